// The newest experiments with their summaries (`ariadne list`): filtered by sweep, status and agent, newest first.
import type { Sql } from '../core/store/sql.ts';
import { offsetPaged } from './offset-pages.ts';
import { INTERRUPTED_SQL } from './interrupted.ts';

export interface NewestExperimentsFilter {
  sweep?: string;
  status?: string;
  /** A baseline, a provider's agent, a model, a sweep label, or a player (agent human). */
  agent?: string;
}

export interface NewestExperimentRow {
  experiment_id: string;
  agent: string;
  provider: string;
  model: string | null;
  label: string | null;
  sweep_id: string | null;
  prompt_version: string | null;
  maze_generator: string;
  maze_width: number;
  maze_height: number;
  maze_seed: number | null;
  status: string;
  goal_found: boolean;
  stop_reason: string | null;
  actions: number;
  optimal_moves: number;
  efficiency: number | null;
  llm_calls: number;
  cost_usd: number | null;
  started_at: Date;
  completed_at: Date | null;
  /** How and when it was interrupted on purpose, while it waits for a resume (results/interrupted.ts). */
  interrupted: string | null;
  /** A bundled simulator answered some of its model calls (migration 029). */
  simulated: boolean;
  /** Agent human: who played (migration 034). */
  player: string | null;
}

// The filters and the limit pick ids from the tables first: the summary view counts every run's actions, so it is
// joined for the rows shown only. $4 rows in all, read in pages of $6 from offset $5.
const EXPERIMENTS_SQL = `
WITH picked AS (
  SELECT e.id, e.sweep_id, c.label, ${INTERRUPTED_SQL} AS interrupted, e.simulated
  FROM experiments e
  LEFT JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
  WHERE ($1::text IS NULL OR e.sweep_id = $1)
    AND ($2::text IS NULL OR e.status = $2)
    AND ($3::text IS NULL OR $3 IN (e.agent, e.model, c.label, e.player))
  ORDER BY e.started_at DESC, e.id
  LIMIT least($4::int - $5::int, $6::int) OFFSET $5
)
SELECT s.experiment_id, s.agent, s.provider, s.model, p.label, p.sweep_id, s.prompt_version, s.maze_generator,
       s.maze_width, s.maze_height, s.maze_seed, s.status, s.goal_found, s.stop_reason, s.actions, s.optimal_moves,
       s.efficiency, s.llm_calls, s.cost_usd, s.started_at, s.completed_at, p.interrupted, p.simulated, s.player
FROM picked p
JOIN experiment_summary s ON s.experiment_id = p.id
ORDER BY s.started_at DESC, s.experiment_id`;

/** The newest `count` experiments that pass the filter, newest first (an id breaks ties). */
export function newestExperiments(db: Sql, f: NewestExperimentsFilter, count: number): Promise<NewestExperimentRow[]> {
  return offsetPaged(
    async (offset, limit) =>
      (
        await db.query<NewestExperimentRow>(EXPERIMENTS_SQL, [
          f.sweep ?? null,
          f.status ?? null,
          f.agent ?? null,
          count,
          offset,
          limit,
        ])
      ).rows,
  );
}
