// Two to eight experiments' numbers side by side, for the compare page: each with its maze (the page refuses runs
// on different mazes) and its sweep cell's settings that reach its agent, so two runs of one agent under two
// formats are never shown as one agent's.
import type { Sql } from '../core/store/sql.ts';
import type { ExperimentSummary } from './summary-row.ts';

/** The summary's columns the page compares (summary-row.ts), with the run's label, tokens, cost and maze. */
export interface ComparedSummary extends Pick<
  ExperimentSummary,
  | 'experiment_id'
  | 'agent'
  | 'model'
  | 'status'
  | 'goal_found'
  | 'stop_reason'
  | 'actions'
  | 'optimal_moves'
  | 'efficiency'
  | 'tiles_seen'
  | 'turns'
  | 'stuck_signals'
  | 'maze_hash'
  | 'maze_generator'
  | 'maze_width'
  | 'maze_seed'
> {
  label: string | null;
  tokens: number | null;
  /** Unknown (null) only when a model was called without a price: a baseline costs nothing. */
  cost_usd: number | null;
  /** Its sweep cell's settings that reach its agent ({} outside a sweep): runs differing only there told apart. */
  settings: Record<string, unknown>;
  maze_id: number;
}

/** The summaries of the experiments found among `ids`, in no order. */
export async function comparedSummaries(db: Sql, ids: readonly string[]): Promise<ComparedSummary[]> {
  const { rows } = await db.query<ComparedSummary>(
    `SELECT s.experiment_id, c.label, s.agent, s.model, s.status, s.goal_found, s.stop_reason, s.actions,
            s.optimal_moves, s.efficiency::float8 AS efficiency, s.tiles_seen, s.turns,
            (s.input_tokens + s.output_tokens)::float8 AS tokens,
            -- unknown (null) only when a model was called without a price: a baseline costs nothing
            CASE WHEN cost_known(s.cost_usd, s.llm_calls) THEN coalesce(s.cost_usd, 0) END::float8 AS cost_usd,
            s.stuck_signals::int AS stuck_signals, e.maze_id::int AS maze_id, s.maze_hash, s.maze_generator,
            s.maze_width, s.maze_seed::float8 AS maze_seed,
            coalesce(reaching_settings(e.provider, c.settings), '{}'::jsonb) AS settings
     FROM experiment_summary s
     JOIN experiments e ON e.id = s.experiment_id
     LEFT JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
     WHERE s.experiment_id = ANY($1::text[])`,
    [ids],
  );
  return rows;
}
