// The sweeps pages' data: every sweep with its progress and cost so far, and one sweep's factor grid: per cell
// the latest attempt of each run by outcome class (success, failure, error: ended by infrastructure, running) and
// its cost so far. Read from the experiments and turns tables, not the summary views, so a grid of a thousand runs
// costs what its rows cost.
import type { Sql } from '../core/store/sql.ts';
import { settingsText, variedSettingsOfCells } from './run-settings.ts';

/** Runs by outcome class, and what they cost so far: the priced runs' sum, and how many runs have no price. */
export interface SweepOutcomes {
  runs: number;
  started: number;
  successes: number;
  failures: number;
  errors: number;
  running: number;
  actions: number;
  cost_usd: number;
  priced: number;
  unpriced: number;
}

export interface SweepProgressRow extends SweepOutcomes {
  sweep_id: string;
  description: string | null;
  cells: number;
  repeats: number;
  created_at: string;
}

// the latest attempt of each run of each sweep, its outcome class (as sweep_runs has it), and its cost so far:
// known when every turn that called a model was priced (cost_known, migration 011), from its kept totals (017)
const LATEST = `
  SELECT DISTINCT ON (e.sweep_id, e.sweep_cell, e.sweep_repeat)
         e.sweep_id, e.sweep_cell, e.sweep_repeat, e.id, e.status, e.goal_found, e.actions_taken,
         CASE WHEN e.status = 'running' THEN 'running' WHEN e.status = 'failed' THEN 'error'
              WHEN e.goal_found THEN 'success' ELSE 'failure' END AS outcome_class,
         coalesce(k.cost_usd, 0) AS cost_usd, coalesce(k.cost_known, true) AS cost_known
  FROM experiments e LEFT JOIN experiment_totals k ON k.experiment_id = e.id
  WHERE e.sweep_id IS NOT NULL AND ($1::text IS NULL OR e.sweep_id = $1)
  ORDER BY e.sweep_id, e.sweep_cell, e.sweep_repeat, e.sweep_attempt DESC`;

// the outcome counts of a group of LATEST rows l
const OUTCOMES = `
  count(l.id)::int AS started,
  count(l.id) FILTER (WHERE l.outcome_class = 'success')::int AS successes,
  count(l.id) FILTER (WHERE l.outcome_class = 'failure')::int AS failures,
  count(l.id) FILTER (WHERE l.outcome_class = 'error')::int AS errors,
  count(l.id) FILTER (WHERE l.outcome_class = 'running')::int AS running,
  coalesce(sum(l.actions_taken), 0)::int AS actions,
  coalesce(sum(l.cost_usd) FILTER (WHERE l.cost_known), 0)::float8 AS cost_usd,
  count(l.id) FILTER (WHERE l.cost_known)::int AS priced,
  count(l.id) FILTER (WHERE NOT l.cost_known)::int AS unpriced`;

/** The sweeps' rows with their totals: every sweep newest first, or the one named. */
async function progressRows(db: Sql, sweepId: string | null): Promise<SweepProgressRow[]> {
  const { rows } = await db.query<SweepProgressRow>(
    `WITH latest AS (${LATEST})
     SELECT s.id AS sweep_id, s.spec ->> 'description' AS description, s.cells, s.repeats,
            s.cells * s.repeats AS runs, ${OUTCOMES},
            to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at
     FROM sweeps s LEFT JOIN latest l ON l.sweep_id = s.id
     WHERE $2::text IS NULL OR s.id = $2
     GROUP BY s.id ORDER BY s.created_at DESC, s.id`,
    [sweepId, sweepId], // $1 narrows LATEST to the sweep too
  );
  return rows;
}

/** Every sweep, newest first, with its progress. */
export function sweepProgressList(db: Sql): Promise<SweepProgressRow[]> {
  return progressRows(db, null);
}

/** One sweep's row with its totals; null when no sweep has that name. */
export async function sweepProgress(db: Sql, sweepId: string): Promise<SweepProgressRow | null> {
  return (await progressRows(db, sweepId))[0] ?? null;
}

export interface SweepCellRow extends Omit<SweepOutcomes, 'runs'> {
  cell_index: number;
  label: string;
  agent: string;
  model: string | null;
  maze_generator: string;
  maze_size: number;
  maze_seed: number;
  /** The cell's settings as the sweep file gave them (every key of its `settings:`). */
  settings: Record<string, unknown>;
  /** The settings the sweep varies that reach the cell's agent, as key=value (run-settings.ts). */
  settings_text: string;
  /** The latest attempt of each run, by repeat. */
  runs: Array<{ repeat: number; experiment_id: string; status: string; outcome_class: string; goal_found: boolean }>;
}

/** One sweep's factor grid, by cell. */
export async function sweepCellRows(db: Sql, sweepId: string): Promise<SweepCellRow[]> {
  const [{ rows }, varied] = await Promise.all([
    db.query<Omit<SweepCellRow, 'settings_text'>>(
      `WITH latest AS (${LATEST})
       SELECT c.cell_index, c.label, c.agent, c.model, c.maze_generator, c.maze_size,
              c.maze_seed::float8 AS maze_seed, c.settings, ${OUTCOMES},
              coalesce(json_agg(json_build_object('repeat', l.sweep_repeat, 'experiment_id', l.id, 'status', l.status,
                                                  'outcome_class', l.outcome_class, 'goal_found', l.goal_found)
                                ORDER BY l.sweep_repeat)
                       FILTER (WHERE l.id IS NOT NULL), '[]') AS runs
       FROM sweep_cells c LEFT JOIN latest l ON l.sweep_id = c.sweep_id AND l.sweep_cell = c.cell_index
       WHERE c.sweep_id = $1
       GROUP BY c.sweep_id, c.cell_index ORDER BY c.cell_index`,
      [sweepId],
    ),
    variedSettingsOfCells(db, sweepId),
  ]);
  return rows.map((r) => ({ ...r, settings_text: settingsText(varied.get(r.cell_index) ?? {}) }));
}
