// What a sweep's stop_when rule is judged on (reports/sweep-stop-rule.ts): the rule as registered, the sweep's
// repeats and mazes (its cells'), and each run's maze, repeat, label and outcome.
import type { Sql } from '../core/store/sql.ts';
import { statisticsRunRows } from './statistics-runs.ts';

export interface StopRuleRuns {
  rule: { compare: [string, string]; confidence: number; min_mazes: number };
  repeats: number;
  /** `generator size seed` of each maze the sweep lists. */
  mazes: string[];
  runs: Array<{ maze: string; repeat: number; outcome_class: string; goal_found: boolean; label: string }>;
}

/** The sweep's rule and runs; null when it has no stop_when. */
export async function stopRuleRuns(db: Sql, sweepId: string): Promise<StopRuleRuns | null> {
  const { rows } = await db.query<Omit<StopRuleRuns, 'runs'>>(
    `SELECT s.spec -> 'stop_when' AS rule, s.repeats,
       (SELECT array_agg(DISTINCT c.maze_generator || ' ' || c.maze_size || ' ' || c.maze_seed)
        FROM sweep_cells c WHERE c.sweep_id = s.id) AS mazes
     FROM sweeps s WHERE s.id = $1`,
    [sweepId],
  );
  const found = rows[0];
  if (!found?.rule) return null;
  const runs = (await statisticsRunRows(db, sweepId, ['label'])).map((r) => ({ ...r, label: String(r.f0) }));
  return { ...found, runs };
}
