// Which experiments changed since a moment: each turn updates its experiment's row, so the viewer's live feed asks
// this every beat while a page listens.
import type { Sql } from '../core/store/sql.ts';

export interface ExperimentChange {
  experiment_id: string;
  sweep_id: string | null;
  status: string;
  actions: number;
  turns: number;
  /** When it changed, to the microsecond (UTC text: also the change's version). */
  updated_at: string;
}

/** The experiments updated after `from`, oldest change first, each with its update time as a Date (`at`). */
export async function experimentsChangedSince(db: Sql, from: Date): Promise<Array<ExperimentChange & { at: Date }>> {
  const { rows } = await db.query<ExperimentChange & { at: Date }>(
    `SELECT id AS experiment_id, sweep_id, status, actions_taken AS actions, turns_completed AS turns,
            updated_at AS at, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS updated_at
     FROM experiments WHERE updated_at > $1 ORDER BY updated_at`,
    [from],
    { name: 'viewer-live-feed' },
  );
  return rows;
}
