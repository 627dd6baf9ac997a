// A running experiment's agent, model and stored config: what `ariadne resume` checks the provider against.
import type { ExperimentConfigInput } from '../core/config/experiment-config.ts';
import type { Sql } from '../core/store/sql.ts';

export interface RunningConfig {
  agent: string;
  model: string | null;
  config: ExperimentConfigInput;
}

/** The experiment's, while it is running; null when it is not there or not running. */
export async function runningConfig(db: Sql, id: string): Promise<RunningConfig | null> {
  const { rows } = await db.query<RunningConfig>(
    "SELECT agent, model, config FROM experiments WHERE id = $1 AND status = 'running'",
    [id],
  );
  return rows[0] ?? null;
}
