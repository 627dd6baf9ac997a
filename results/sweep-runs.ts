// A sweep's record and its runs (one row each, the latest attempt, from migration 011's sweep_runs, with the
// cost of all its attempts from migration 028's sweep_attempts), as the sweep report lists them: read in keyset
// pages for the Data API's 1 MiB per response.
import type { Sql } from '../core/store/sql.ts';
import { readPaged, sweepPageRows } from '../core/store/pages.ts';

export interface SweepRecord {
  id: string;
  cells: number;
  repeats: number;
  created_at: Date;
  description: string | null;
}

/** The sweep by its name; null when there is none. */
export async function sweepRecord(db: Sql, sweepId: string): Promise<SweepRecord | null> {
  const { rows } = await db.query<SweepRecord>(
    "SELECT id, cells, repeats, created_at, spec ->> 'description' AS description FROM sweeps WHERE id = $1",
    [sweepId],
  );
  return rows[0] ?? null;
}

/** A sweep_runs row as the report reads it: the view's numeric columns may arrive as text (the caller converts). */
export interface SweepRunRow {
  experiment_id: string;
  label: string;
  maze_generator: string;
  maze_size: unknown;
  maze_seed: unknown;
  repeat: number;
  status: string;
  goal_found: boolean;
  efficiency: unknown;
  actions: number;
  stop_reason: string | null;
  /** success, failure, error (ended by infrastructure: in no denominator) or running (counted nowhere). */
  /** wall_clock: stopped by max_duration_minutes, not a navigation failure (migration 027). */
  outcome_class: 'success' | 'failure' | 'error' | 'wall_clock' | 'running';
  failure_reason: string | null;
  /** The cell's settings that reach this run's agent: the varied factors its statistics are split by. */
  settings: Record<string, unknown>;
  /** What decided the run (agent, model, maze, every tool call and outcome); equal hashes walked alike. */
  trajectory_hash: string | null;
  independent: boolean;
  duplicate_of: string | null;
  identical_repeat: boolean;
  /** The latest attempt's input, cache read and write, and output tokens. */
  tokens: unknown;
  /** What every attempt of the run cost (sweep_attempts, migration 028); cost_known false when any is unknown. */
  cost_known: boolean;
  cost_usd: unknown;
  cell_index: number;
}

/** Every run of the sweep, by label, maze generator and size, cell and repeat. */
export function sweepRunRows(db: Sql, sweepId: string): Promise<SweepRunRow[]> {
  return readPaged<SweepRunRow>(
    async (last, limit) =>
      (
        await db.query<SweepRunRow>(
          `SELECT r.experiment_id, label, maze_generator, maze_size, maze_seed, r.repeat, status, goal_found,
                  efficiency, actions, stop_reason, outcome_class, failure_reason, factor_settings AS settings,
                  trajectory_hash, independent, duplicate_of, identical_repeat,
                  (SELECT spent_tokens FROM experiments e WHERE e.id = r.experiment_id) AS tokens,
                  a.cost_usd IS NOT NULL AS cost_known, coalesce(a.cost_usd, 0) AS cost_usd, r.cell_index
           FROM sweep_runs r
           JOIN sweep_attempts a ON a.sweep_id = r.sweep_id AND a.cell_index = r.cell_index AND a.repeat = r.repeat
           WHERE r.sweep_id = $1 AND ($2::text IS NULL OR (label, maze_generator, maze_size, r.cell_index, r.repeat)
                                                          > ($2::text, $3::text, $4::int, $5::int, $6::int))
           ORDER BY label, maze_generator, maze_size, r.cell_index, r.repeat LIMIT $7`,
          last
            ? [sweepId, last.label, last.maze_generator, Number(last.maze_size), last.cell_index, last.repeat, limit]
            : [sweepId, null, null, null, null, null, limit],
        )
      ).rows,
    sweepPageRows(db),
  );
}
