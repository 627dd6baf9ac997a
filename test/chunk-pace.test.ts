// CheckProgress in a chunk of turns (an Express execution of the turn machine): another turn while the chunk has
// room for one by the pace of its turns, else hand back before Express's 5 minutes; turns too slow for any chunk go
// on one at a time. The pace travels in the loop state; a wait between chunks is no turn's time.
import { describe, expect, it } from 'vitest';
import { checkProgressHandler } from '../functions/check-progress.ts';
import { CHUNK_MARGIN_SECONDS, EXPRESS_MAX_SECONDS, PER_TURN_ABOVE_SECONDS } from '../core/config/budgets.ts';
import { fact } from '../aws-facts/facts.ts';

const T0 = Date.parse('2026-11-28T12:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const clock = { startTime: at(0).toISOString(), timeoutSeconds: 10_800 };
const loop = {
  experimentId: 'e',
  llmProvider: 'baseline' as const,
  turnNumber: 3,
  executionStartTurn: 1,
  startedAt: at(0).toISOString(),
  limits: { maxMoves: 1000, maxDurationMinutes: 120, maxTurns: 500, turnsPerExecution: 1000, outageWaitSeconds: 0 },
  taskToken: null,
  outage: { waits: 0, seconds: 0, total: 0, here: 0 },
  clock,
};
const turn = { goalFound: false, actionsTaken: 24, halt: null };

/** CheckProgress at `now` (seconds after T0) in a chunk that started at `chunkStart`. */
const inChunk = (now: number, chunkStart: number, pace?: { at: string; slowestTurnSeconds: number }) =>
  checkProgressHandler({ now: () => at(now) })({
    state: { ...loop, turn, ...(pace ? { pace } : {}) },
    execution: clock,
    chunk: { startTime: at(chunkStart).toISOString() },
  });

describe('CheckProgress in a chunk', () => {
  it('the limits are the Express quota: a chunk ends with room for two of its slowest turns and a margin', () => {
    expect(EXPRESS_MAX_SECONDS).toBe(fact('sfn.express-max-execution-seconds').value);
    expect(EXPRESS_MAX_SECONDS).toBe(300);
    expect(PER_TURN_ABOVE_SECONDS).toBe((300 - CHUNK_MARGIN_SECONDS) / 3);
  });

  it('goes on while the chunk has room, and carries the pace and the clock to the next turn', async () => {
    const progress = await inChunk(110, 100, { at: at(100).toISOString(), slowestTurnSeconds: 4 });
    expect(progress).toMatchObject({ decision: 'continue', reason: 'running' });
    // the turn took 10 s: the slowest yet
    expect(progress.next).toMatchObject({
      turnNumber: 4,
      clock,
      pace: { at: at(110).toISOString(), slowestTurnSeconds: 10 },
    });
  });

  it('hands back once the elapsed time, two slowest turns and the margin reach the limit', async () => {
    // 10 s turns: at 200 s elapsed, 200 + 20 + 30 < 300 goes on; at 250 s, 250 + 20 + 30 = 300 hands back
    const pace = (s: number) => ({ at: at(s - 10).toISOString(), slowestTurnSeconds: 10 });
    expect(await inChunk(200, 0, pace(200))).toMatchObject({ decision: 'continue' });
    const back = await inChunk(250, 0, pace(250));
    expect(back).toMatchObject({ decision: 'hand_back', reason: 'chunk_time', next: { turnNumber: 4 } });
    expect(back.next!.pace).toEqual({ at: at(250).toISOString(), slowestTurnSeconds: 10 });
  });

  it('one slow turn shortens the chunk: the slowest turn, not the mean, is what the next may take', async () => {
    // nine 1 s turns and one of 100 s (> the per-turn line): one at a time from now on
    const slow = await inChunk(109, 0, { at: at(9).toISOString(), slowestTurnSeconds: 1 });
    expect(slow).toMatchObject({ decision: 'per_turn', reason: 'slow_turns' });
    // a 60 s turn at 100 s: 100 + 120 + 30 < 300 goes on; at 160 s it no longer fits
    expect(await inChunk(100, 0, { at: at(40).toISOString(), slowestTurnSeconds: 1 })).toMatchObject({
      decision: 'continue',
    });
    expect(await inChunk(160, 0, { at: at(100).toISOString(), slowestTurnSeconds: 60 })).toMatchObject({
      decision: 'hand_back',
    });
  });

  it("a wait between chunks (an outage's, in the Standard execution) is not the first turn's time", async () => {
    // the last turn ended at 0; the chunk started at 200 (after a 200 s wait); its first turn took 5 s
    const progress = await inChunk(205, 200, { at: at(0).toISOString(), slowestTurnSeconds: 2 });
    expect(progress).toMatchObject({ decision: 'continue', next: { pace: { slowestTurnSeconds: 5 } } });
  });

  it('an end is an end in a chunk too: it hands its decision back to the Standard execution', async () => {
    const done = await checkProgressHandler({ now: () => at(10) })({
      state: { ...loop, turn: { ...turn, goalFound: true } },
      execution: clock,
      chunk: { startTime: at(0).toISOString() },
    });
    expect(done).toEqual({ decision: 'success', reason: 'goal_found' });
  });

  it('outside a chunk (the Standard execution, one turn at a time) the pace is carried as it was', async () => {
    const pace = { at: at(5).toISOString(), slowestTurnSeconds: 120 };
    const progress = await checkProgressHandler({ now: () => at(500) })({
      state: { ...loop, turn, pace },
      execution: clock,
    });
    expect(progress).toMatchObject({ decision: 'continue', next: { pace, clock } });
  });
});
