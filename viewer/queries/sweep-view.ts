// The sweeps pages' data: every sweep with its progress and cost so far, and one sweep's factor grid: per cell
// the latest attempt of each run (done, running, failed, not started of its repeats), successes with the Wilson
// 95% interval (the migration's wilson_low/high), actions and cost so far. Read from the experiments and turns
// tables, not the summary views, so a grid of a thousand runs costs what its rows cost.
import type { Sql } from '../../lambdas/store/sql.ts';

export interface SweepListRow {
  sweep_id: string;
  description: string | null;
  cells: number;
  repeats: number;
  runs: number;
  done: number;
  running: number;
  failed: number;
  succeeded: number;
  cost_usd: number | null;
  created_at: string;
}

// the latest attempt of each run of each sweep, with its cost so far
const LATEST = `
  SELECT DISTINCT ON (e.sweep_id, e.sweep_cell, e.sweep_repeat)
         e.sweep_id, e.sweep_cell, e.sweep_repeat, e.id, e.status, e.goal_found, e.actions_taken,
         (SELECT sum(t.cost_usd) FROM turns t WHERE t.experiment_id = e.id) AS cost_usd
  FROM experiments e WHERE e.sweep_id IS NOT NULL AND ($1::text IS NULL OR e.sweep_id = $1)
  ORDER BY e.sweep_id, e.sweep_cell, e.sweep_repeat, e.sweep_attempt DESC`;

export async function listSweeps(db: Sql): Promise<SweepListRow[]> {
  const { rows } = await db.query<SweepListRow>(
    `WITH latest AS (${LATEST})
     SELECT s.id AS sweep_id, s.spec ->> 'description' AS description, s.cells, s.repeats,
            s.cells * s.repeats AS runs,
            count(l.id) FILTER (WHERE l.status <> 'running')::int AS done,
            count(l.id) FILTER (WHERE l.status = 'running')::int AS running,
            count(l.id) FILTER (WHERE l.status = 'failed')::int AS failed,
            count(l.id) FILTER (WHERE l.goal_found)::int AS succeeded,
            sum(l.cost_usd)::float8 AS cost_usd,
            to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at
     FROM sweeps s LEFT JOIN latest l ON l.sweep_id = s.id
     GROUP BY s.id ORDER BY s.created_at DESC, s.id`,
    [null],
  );
  return rows;
}

export interface SweepCell {
  cell_index: number;
  label: string;
  agent: string;
  model: string | null;
  maze_generator: string;
  maze_size: number;
  maze_seed: number;
  settings: Record<string, unknown>;
  started: number;
  done: number;
  running: number;
  failed: number;
  successes: number;
  success_low95: number | null;
  success_high95: number | null;
  actions: number;
  cost_usd: number | null;
  /** The latest attempt of each run, by repeat. */
  runs: Array<{ repeat: number; experiment_id: string; status: string; goal_found: boolean }>;
}

export async function sweepCells(db: Sql, sweepId: string): Promise<SweepCell[]> {
  const { rows } = await db.query<SweepCell>(
    `WITH latest AS (${LATEST})
     SELECT c.cell_index, c.label, c.agent, c.model, c.maze_generator, c.maze_size, c.maze_seed::float8 AS maze_seed,
            c.settings, count(l.id)::int AS started,
            count(l.id) FILTER (WHERE l.status <> 'running')::int AS done,
            count(l.id) FILTER (WHERE l.status = 'running')::int AS running,
            count(l.id) FILTER (WHERE l.status = 'failed')::int AS failed,
            count(l.id) FILTER (WHERE l.goal_found)::int AS successes,
            wilson_low(count(l.id) FILTER (WHERE l.goal_found), count(l.id) FILTER (WHERE l.status <> 'running'))
              AS success_low95,
            wilson_high(count(l.id) FILTER (WHERE l.goal_found), count(l.id) FILTER (WHERE l.status <> 'running'))
              AS success_high95,
            coalesce(sum(l.actions_taken), 0)::int AS actions, sum(l.cost_usd)::float8 AS cost_usd,
            coalesce(json_agg(json_build_object('repeat', l.sweep_repeat, 'experiment_id', l.id, 'status', l.status,
                                                'goal_found', l.goal_found) ORDER BY l.sweep_repeat)
                     FILTER (WHERE l.id IS NOT NULL), '[]') AS runs
     FROM sweep_cells c LEFT JOIN latest l ON l.sweep_id = c.sweep_id AND l.sweep_cell = c.cell_index
     WHERE c.sweep_id = $1
     GROUP BY c.sweep_id, c.cell_index ORDER BY c.cell_index`,
    [sweepId],
  );
  return rows;
}
