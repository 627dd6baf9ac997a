// A sweep's stop_when rule over its runs as the database holds them (reports/sequential-stop.ts judges): the local
// sweep asks it before each start, `stats` for what it decided. The mazes are taken in the order the sweep runs them
// (sweep-order.ts's mazeOrder of its name), fixed before any run.
import type { Sql } from '../core/store/sql.ts';
import { mazeOrder } from '../core/sweeps/sweep-order.ts';
import { sequentialState, type SequentialState, type StopRule } from '../reports/sequential-stop.ts';
import { statisticsRunRows } from './statistics-runs.ts';

interface RuleRow {
  rule: StopRule | null;
  repeats: number;
  mazes: string[];
}

/** The sweep's rule, its repeats and its mazes as its cells list them; null when it has no stop_when. */
async function ruleOf(db: Sql, sweepId: string): Promise<RuleRow | null> {
  const { rows } = await db.query<RuleRow>(
    `SELECT s.spec -> 'stop_when' AS rule, s.repeats,
       (SELECT array_agg(DISTINCT c.maze_generator || ' ' || c.maze_size || ' ' || c.maze_seed)
        FROM sweep_cells c WHERE c.sweep_id = s.id) AS mazes
     FROM sweeps s WHERE s.id = $1`,
    [sweepId],
  );
  const r = rows[0];
  return r?.rule ? r : null;
}

/** The rule's state over the sweep's ended runs; null when the sweep has no stop_when. */
export async function sweepSequentialState(db: Sql, sweepId: string): Promise<SequentialState | null> {
  const found = await ruleOf(db, sweepId);
  if (!found?.rule) return null;
  const runs = await statisticsRunRows(db, sweepId, ['label']);
  const rows = runs.map((r) => ({ ...r, label: String(r.f0) }));
  return sequentialState(rows, mazeOrder(sweepId, found.mazes), found.rule, found.repeats);
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
