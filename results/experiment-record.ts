// One experiment's record as its viewer page heads it: its sweep and label, when its row last changed (the version
// the replay cache keys on), its status and its prompt, and whether a simulator answered it.
import type { Sql } from '../core/store/sql.ts';
import { INTERRUPTED_SQL } from './interrupted.ts';

export interface ExperimentRecord {
  sweep_id: string | null;
  label: string | null;
  updated_at: Date;
  status: string;
  prompt_version: string | null;
  prompt_text: string | null;
  /** How and when it was interrupted on purpose, while it waits for a resume (results/interrupted.ts). */
  interrupted: string | null;
  /** A bundled simulator answered some of its model calls; calls whose prompt was cut (migration 029). */
  simulated: boolean;
  prompt_truncated_calls: number;
}

/** The experiment's record; null when there is none by that id. */
export async function experimentRecord(db: Sql, experimentId: string): Promise<ExperimentRecord | null> {
  const { rows } = await db.query<ExperimentRecord>(
    `SELECT e.sweep_id, c.label, e.updated_at, e.status, e.prompt_version, e.prompt_text,
            ${INTERRUPTED_SQL} AS interrupted, e.simulated, e.prompt_truncated_calls FROM experiments e
     LEFT JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell WHERE e.id = $1`,
    [experimentId],
  );
  return rows[0] ?? null;
}
