// The sweeps, newest first (`ariadne list --sweeps`): each with its runs, and how many are done, succeeded, failed.
import type { Sql } from '../lambdas/store/sql.ts';
import { offsetPaged } from './offset-pages.ts';

export interface SweepListRow {
  sweep: string;
  runs: number;
  done: number;
  succeeded: number;
  failed: number;
  started: Date;
}

// Each run counts once, by its latest attempt (as the sweep_runs view does), read from the experiments table alone.
// $2 rows in all, read in pages of $4 from offset $3.
const SWEEPS_SQL = `
SELECT s.id AS sweep, s.cells * s.repeats AS runs, coalesce(r.done, 0) AS done,
       coalesce(r.succeeded, 0) AS succeeded, coalesce(r.failed, 0) AS failed, s.created_at AS started
FROM sweeps s
LEFT JOIN LATERAL (
  SELECT count(*) FILTER (WHERE status <> 'running') AS done, count(*) FILTER (WHERE goal_found) AS succeeded,
         count(*) FILTER (WHERE status = 'failed') AS failed
  FROM (SELECT DISTINCT ON (sweep_cell, sweep_repeat) status, goal_found FROM experiments
        WHERE sweep_id = s.id ORDER BY sweep_cell, sweep_repeat, sweep_attempt DESC) latest
) r ON true
WHERE ($1::text IS NULL OR s.id = $1)
ORDER BY s.created_at DESC, s.id
LIMIT least($2::int - $3::int, $4::int) OFFSET $3`;

/** The newest `count` sweeps (or only `sweep`), newest first. */
export function newestSweeps(db: Sql, sweep: string | undefined, count: number): Promise<SweepListRow[]> {
  return offsetPaged(
    async (offset, limit) => (await db.query<SweepListRow>(SWEEPS_SQL, [sweep ?? null, count, offset, limit])).rows,
  );
}
