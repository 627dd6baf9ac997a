// The sweeps, newest first (`ariadne list --sweeps`): each with its runs, how many are done and succeeded, and how
// the others ended, by stop reason (results/stop-reasons.ts): a run that met its wall clock or move limit is not
// an error, and an error is not a limit.
import type { Sql } from '../core/store/sql.ts';
import { offsetPaged } from './offset-pages.ts';
import { STOP_REASONS, stopReasonOf, type StopReason } from './stop-reasons.ts';

export interface SweepListRow {
  sweep: string;
  runs: number;
  done: number;
  succeeded: number;
  /** Runs that ended in an error (a provider outage is its own stop reason, not counted here). */
  errors: number;
  /** The latest attempt of every run started, by how it ended; every reason present (0 where none). */
  stop_reasons: Record<StopReason, number>;
  started: Date;
}

// $2 rows in all, read in pages of $4 from offset $3.
const SWEEPS_SQL = `
SELECT s.id AS sweep, s.cells * s.repeats AS runs, s.created_at AS started
FROM sweeps s
WHERE ($1::text IS NULL OR s.id = $1)
ORDER BY s.created_at DESC, s.id
LIMIT least($2::int - $3::int, $4::int) OFFSET $3`;

// Each run counts once, by its latest attempt (as the sweep_runs view does), read from the experiments table alone;
// grouped by what decides its stop reason (a failure's reason only for failed runs: it tells an outage apart).
const ENDS_SQL = `
SELECT sweep_id, status, goal_found, stop_reason, failure_reason, interrupted, count(*)::int AS n
FROM (SELECT DISTINCT ON (sweep_id, sweep_cell, sweep_repeat) sweep_id, status, goal_found, stop_reason,
             CASE WHEN status = 'failed' THEN failure_reason END AS failure_reason,
             interrupted_at IS NOT NULL AS interrupted
      FROM experiments WHERE sweep_id = ANY($1::text[])
      ORDER BY sweep_id, sweep_cell, sweep_repeat, sweep_attempt DESC) latest
GROUP BY 1, 2, 3, 4, 5, 6`;

interface EndRow {
  sweep_id: string;
  status: string;
  goal_found: boolean;
  stop_reason: string | null;
  failure_reason: string | null;
  interrupted: boolean;
  n: number;
}

const noEnds = () => Object.fromEntries(STOP_REASONS.map((s) => [s, 0])) as Record<StopReason, number>;

/** The stop reasons of each sweep's runs. */
async function endsOf(db: Sql, sweeps: string[]): Promise<Map<string, Record<StopReason, number>>> {
  const ends = new Map(sweeps.map((s) => [s, noEnds()]));
  if (sweeps.length === 0) return ends;
  for (const r of (await db.query<EndRow>(ENDS_SQL, [sweeps])).rows) {
    const reason = stopReasonOf({
      ...r,
      goalFound: r.goal_found,
      stopReason: r.stop_reason,
      failureReason: r.failure_reason,
    });
    ends.get(r.sweep_id)![reason] += r.n;
  }
  return ends;
}

/** The newest `count` sweeps (or only `sweep`), newest first. */
export async function newestSweeps(db: Sql, sweep: string | undefined, count: number): Promise<SweepListRow[]> {
  const rows = await offsetPaged(
    async (offset, limit) =>
      (
        await db.query<{ sweep: string; runs: number; started: Date }>(SWEEPS_SQL, [
          sweep ?? null,
          count,
          offset,
          limit,
        ])
      ).rows,
  );
  const ends = await endsOf(
    db,
    rows.map((r) => r.sweep),
  );
  return rows.map(({ sweep: id, runs, started }) => {
    const e = ends.get(id)!;
    const started_ = Object.values(e).reduce((a, b) => a + b, 0);
    return {
      sweep: id,
      runs,
      done: started_ - e.running - e.interrupted,
      succeeded: e.goal,
      errors: e.error,
      stop_reasons: e,
      started,
    };
  });
}
