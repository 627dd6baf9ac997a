// A sweep's stop_when rule over its runs as the database holds them (results/stop-rule-runs.ts), judged by
// sequential-stop.ts: the local sweep asks it before each start, `stats` for what it decided. The mazes are taken in
// the order the sweep runs them (sweep-order.ts's mazeOrder of its name), fixed before any run.
import type { Sql } from '../core/store/sql.ts';
import { mazeOrder } from '../core/sweeps/sweep-order.ts';
import { stopRuleRuns } from '../results/stop-rule-runs.ts';
import { sequentialState, type SequentialState } from './sequential-stop.ts';

/** The rule's state over the sweep's ended runs; null when the sweep has no stop_when. */
export async function sweepSequentialState(db: Sql, sweepId: string): Promise<SequentialState | null> {
  const found = await stopRuleRuns(db, sweepId);
  if (!found) return null;
  return sequentialState(found.runs, mazeOrder(sweepId, found.mazes), found.rule, found.repeats);
}

/** What the local sweep asks before each start: a reason to start no more once the rule decided, else null. */
export class SweepStopRule {
  private seen = -1;
  private reason: string | null = null;
  constructor(
    private readonly db: Sql,
    private readonly sweepId: string,
  ) {}

  /** `ended`: runs ended so far; the runs are read again only when more have. */
  async decided(ended: number): Promise<string | null> {
    if (ended === this.seen || this.reason !== null) return this.reason;
    this.seen = ended;
    const state = await sweepSequentialState(this.db, this.sweepId);
    if (state?.decided)
      this.reason = `stop_when: ${state.decided.better} is better after ${state.decided.atMazes} mazes`;
    return this.reason;
  }
}
