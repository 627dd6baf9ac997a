// Every way a run ends, named once: the statistics count each group's runs by it, and the tables and their notes
// print the counts. Navigation outcomes (the goal, a move or turn limit, a stuck halt, a spent budget, a person who
// gave up) are the agent's; the wall clock, an outage, an error and an interruption are the infrastructure's and never
// count as a navigation failure (migration 027 gives a wall-clock stop its own outcome class).

export const STOP_REASONS = [
  'goal',
  'move_limit',
  'turn_limit',
  'stuck_halt',
  'cost_budget',
  'token_budget',
  'gave_up',
  'wall_clock',
  'outage',
  'error',
  'interrupted',
  'running',
  'other',
] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/** The words the tables print for each. */
export const STOP_REASON_WORDS: Record<StopReason, string> = {
  goal: 'goal',
  move_limit: 'move limit',
  turn_limit: 'turn limit',
  stuck_halt: 'stuck halt',
  cost_budget: 'cost budget',
  token_budget: 'token budget',
  gave_up: 'gave up',
  wall_clock: 'wall clock',
  outage: 'outage',
  error: 'error',
  interrupted: 'interrupted',
  running: 'running',
  other: 'other',
};

const TIMEOUTS: Record<string, StopReason> = {
  max_moves: 'move_limit',
  max_turns: 'turn_limit',
  max_cost_usd: 'cost_budget',
  max_tokens: 'token_budget',
  max_duration: 'wall_clock',
  // a person who quit (the human agent): the agent's own outcome, a failure to navigate
  gave_up: 'gave_up',
};

/** An outage that outlasted provider_outage_wait_minutes ends the run failed with this in its reason. */
const OUTAGE_REASON = /the provider stayed unavailable/;

export interface RunEnd {
  status: string;
  goalFound: boolean;
  stopReason: string | null;
  failureReason: string | null;
  /** A local run stopped on purpose (experiments.interrupted_at) and not resumed. */
  interrupted: boolean;
}

/** How one run ended. */
export function stopReasonOf(r: RunEnd): StopReason {
  if (r.goalFound) return 'goal';
  switch (r.status) {
    case 'running':
      return r.interrupted ? 'interrupted' : 'running';
    case 'failed':
      return OUTAGE_REASON.test(r.failureReason ?? '') ? 'outage' : 'error';
    case 'stuck':
      return 'stuck_halt';
    case 'timeout':
      return TIMEOUTS[r.stopReason ?? ''] ?? 'other';
    default:
      return 'other';
  }
}

/** Counts by stop reason, every reason present (0 where none). */
export function countStopReasons(runs: readonly RunEnd[]): Record<StopReason, number> {
  const counts = Object.fromEntries(STOP_REASONS.map((s) => [s, 0])) as Record<StopReason, number>;
  for (const r of runs) counts[stopReasonOf(r)]++;
  return counts;
}

/** "goal 4, move limit 2, wall clock 1": the reasons that occurred, in the order above. */
export function stopReasonsText(counts: Readonly<Record<StopReason, number>>): string {
  return STOP_REASONS.filter((s) => counts[s] > 0)
    .map((s) => `${STOP_REASON_WORDS[s]} ${counts[s]}`)
    .join(', ');
}
