// The distinct conditions a sweep's runs ran under: each run's config snapshot with its agent's kind, label and
// maze. The statistics find the factors a sweep varies from these (reports/factors.ts varyingFactors).
import type { Sql } from '../core/store/sql.ts';

export interface RunCondition {
  config: unknown;
  provider: string;
  label: string;
  maze_generator: string;
  maze_size: number;
}

/** Each distinct condition of the sweep's runs (the latest attempt of each), in no order. */
export async function sweepRunConditions(db: Sql, sweepId: string): Promise<RunCondition[]> {
  const { rows } = await db.query<RunCondition>(
    // distinct by the snapshot's digest (migration 019), not the jsonb: hashing every run's snapshot was most of it
    `SELECT DISTINCT ON (e.config_digest, e.provider, r.label, r.maze_generator, r.maze_size)
            e.config, e.provider, r.label, r.maze_generator, r.maze_size
     FROM sweep_runs r JOIN experiments e ON e.id = r.experiment_id WHERE r.sweep_id = $1`,
    [sweepId],
  );
  return rows;
}
