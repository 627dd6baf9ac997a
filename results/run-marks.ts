// What a run's calls say of where its numbers come from (migration 029): whether a bundled simulator answered any of
// its calls (simulated), and how many of its calls had their prompt cut to the server's context window.
import type { Sql } from '../core/store/sql.ts';

export interface RunMarks {
  /** Any call of the run was answered by a bundled simulator (it announced itself); false for a baseline. */
  simulated: boolean;
  /** Calls whose prompt the server cut to its context window (not the output cut by its cap: truncated). */
  truncated_calls: number;
}

/** The run's marks; null when there is no such experiment. */
export async function runMarksOf(db: Sql, experimentId: string): Promise<RunMarks | null> {
  const { rows } = await db.query<RunMarks>(
    'SELECT simulated, prompt_truncated_calls AS truncated_calls FROM experiments WHERE id = $1',
    [experimentId],
  );
  return rows[0] ?? null;
}

/**
 * Whether a sweep holds both simulated and real model runs (any attempt of any cell): then the statistics split by
 * `simulated` (reports/factors.ts). A run no model answered (a baseline, a run that failed before its first reply)
 * is neither, and splits nothing.
 */
export async function sweepMixesSimulated(db: Sql, sweepId: string): Promise<boolean> {
  const { rows } = await db.query<{ kinds: number }>(
    `SELECT count(DISTINCT e.simulated)::int AS kinds
     FROM experiments e JOIN experiment_totals k ON k.experiment_id = e.id
     WHERE e.sweep_id = $1 AND k.llm_calls > 0`,
    [sweepId],
  );
  return (rows[0]?.kinds ?? 0) > 1;
}
