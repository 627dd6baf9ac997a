// A sweep against its plan: the runs it registered (its cells x its repeats, as grown), which of them were started,
// which ended, and the cells with a run that did not end (not started, or started and not ended: running, or
// interrupted), so that every table of a sweep cut short says "N of M planned runs" and names what is missing.
// Counted on the latest attempt of each run, as every statistic is; a run ended by an error has ended (the
// statistics count it apart).
import type { Sql } from '../core/store/sql.ts';
import { settingsText } from './run-settings.ts';

/** At most this many missing cells are listed; the rest are counted (by agent) in the summary. */
const MISSING_CELLS_LISTED = 200;

interface MissingCell {
  cell_index: number;
  label: string;
  /** "perfect 21 seed 3" */
  maze: string;
  /** The cell's settings from the sweep file, key=value ("" for none). */
  settings: string;
  /** Repeats with no ended run: never started, or started and not ended. */
  missing_repeats: number[];
  /** Of those, the ones never started. */
  not_started_repeats: number[];
}

export interface SweepPlan {
  /** Cells x repeats, as registered. */
  planned: number;
  /** Runs with at least one attempt. */
  started: number;
  /** Runs whose latest attempt ended (an error included). */
  ended: number;
  /** Started, not ended: running, or interrupted. */
  running: number;
  not_started: number;
  /** Cells with a run not ended: how many in all, and the first MISSING_CELLS_LISTED by cell index. */
  missing_cell_count: number;
  missing_cells: MissingCell[];
  /** Runs not ended by agent label (the summary when there are many missing cells). */
  missing_by_label: Array<{ label: string; missing: number; not_started: number }>;
}

// every planned run of the sweep with its latest attempt's status (null: never started)
const PLANNED = `
  WITH latest AS (
    SELECT DISTINCT ON (sweep_cell, sweep_repeat) sweep_cell, sweep_repeat, status
    FROM experiments WHERE sweep_id = $1 ORDER BY sweep_cell, sweep_repeat, sweep_attempt DESC
  )
  SELECT c.cell_index, c.label, c.maze_generator, c.maze_size, c.maze_seed, c.settings, r.n AS repeat, l.status
  FROM sweeps s JOIN sweep_cells c ON c.sweep_id = s.id
  CROSS JOIN LATERAL generate_series(1, s.repeats) AS r(n)
  LEFT JOIN latest l ON l.sweep_cell = c.cell_index AND l.sweep_repeat = r.n
  WHERE s.id = $1`;

const MISSING = "(status IS NULL OR status = 'running')";

type Totals = Pick<SweepPlan, 'planned' | 'started' | 'ended' | 'running' | 'not_started' | 'missing_cell_count'>;

/** The sweep against its plan; null when no sweep has that name. */
export async function sweepPlan(db: Sql, sweepId: string): Promise<SweepPlan | null> {
  const [totals, cells, byLabel] = await Promise.all([
    db.query<Totals & { sweeps: number }>(
      `WITH p AS (${PLANNED})
       SELECT (SELECT count(*) FROM sweeps WHERE id = $1)::int AS sweeps, count(p.cell_index)::int AS planned,
              count(p.status)::int AS started,
              count(*) FILTER (WHERE p.status IS NOT NULL AND p.status <> 'running')::int AS ended,
              count(*) FILTER (WHERE p.status = 'running')::int AS running,
              count(*) FILTER (WHERE p.cell_index IS NOT NULL AND p.status IS NULL)::int AS not_started,
              count(DISTINCT p.cell_index) FILTER (WHERE ${MISSING})::int AS missing_cell_count
       FROM p`,
      [sweepId],
    ),
    db.query<Omit<MissingCell, 'maze' | 'settings'> & MazeColumns & { settings: Record<string, unknown> }>(
      `WITH p AS (${PLANNED})
       SELECT cell_index, label, maze_generator, maze_size, maze_seed::float8 AS maze_seed, settings,
              json_agg(repeat ORDER BY repeat) AS missing_repeats,
              coalesce(json_agg(repeat ORDER BY repeat) FILTER (WHERE status IS NULL), '[]') AS not_started_repeats
       FROM p WHERE ${MISSING}
       GROUP BY cell_index, label, maze_generator, maze_size, maze_seed, settings
       ORDER BY cell_index LIMIT ${MISSING_CELLS_LISTED}`,
      [sweepId],
    ),
    db.query<{ label: string; missing: number; not_started: number }>(
      `WITH p AS (${PLANNED})
       SELECT label, count(*)::int AS missing, count(*) FILTER (WHERE status IS NULL)::int AS not_started
       FROM p WHERE ${MISSING} GROUP BY label ORDER BY label`,
      [sweepId],
    ),
  ]);
  const { sweeps, ...t } = totals.rows[0];
  if (sweeps === 0) return null;
  return {
    ...t,
    missing_cells: cells.rows.map(({ maze_generator, maze_size, maze_seed, settings, ...c }) => ({
      cell_index: c.cell_index,
      label: c.label,
      maze: `${maze_generator} ${maze_size} seed ${maze_seed}`,
      settings: settingsText(settings ?? {}),
      missing_repeats: c.missing_repeats,
      not_started_repeats: c.not_started_repeats,
    })),
    missing_by_label: byLabel.rows,
  };
}

interface MazeColumns {
  maze_generator: string;
  maze_size: number;
  maze_seed: number;
}
