// Whether a chunk of turns (an Express execution) has room for one more turn: from the chunk's elapsed time and the
// slowest turn seen so far, against Express's 5-minute limit (config/budgets.ts says the margins and why).
import { CHUNK_MARGIN_SECONDS, EXPRESS_MAX_SECONDS, PER_TURN_ABOVE_SECONDS } from '../config/budgets.ts';

/** Carried in the loop state: when the last turn ended (CheckProgress's clock), the slowest turn's seconds. */
export interface Pace {
  at: string;
  slowestTurnSeconds: number;
}

/** In a chunk: one more turn here, hand back for a new chunk, or hand back and go on one turn at a time. */
export type ChunkStep = 'continue' | 'hand_back' | 'per_turn';

/**
 * The turn that just ended began at the last turn's end, or at the chunk's start if that is later (a wait between
 * chunks, an outage's, is no turn's time).
 */
export function paceAfterTurn(pace: Pace | undefined, chunkStart: Date, now: Date): Pace {
  const began = Math.max(chunkStart.getTime(), pace ? Date.parse(pace.at) : 0);
  const seconds = Math.max(0, (now.getTime() - began) / 1000);
  return { at: now.toISOString(), slowestTurnSeconds: Math.max(pace?.slowestTurnSeconds ?? 0, seconds) };
}

export function chunkStep(pace: Pace, chunkStart: Date, now: Date): ChunkStep {
  if (pace.slowestTurnSeconds > PER_TURN_ABOVE_SECONDS) return 'per_turn';
  const elapsed = (now.getTime() - chunkStart.getTime()) / 1000;
  return elapsed + 2 * pace.slowestTurnSeconds + CHUNK_MARGIN_SECONDS >= EXPRESS_MAX_SECONDS ? 'hand_back' : 'continue';
}
