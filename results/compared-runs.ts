// Two to eight experiments' numbers side by side, for the compare page: each with its maze (the page refuses runs
// on different mazes) and its sweep cell's settings that reach its agent, so two runs of one agent under two
// formats are never shown as one agent's.
import type { Sql } from '../lambdas/store/sql.ts';

export interface ComparedSummary {
  experiment_id: string;
  label: string | null;
  agent: string;
  model: string | null;
  status: string;
  goal_found: boolean;
  stop_reason: string | null;
  actions: number;
  optimal_moves: number;
  efficiency: number | null;
  tiles_seen: number;
  turns: number;
  tokens: number | null;
  cost_usd: number | null;
  stuck_signals: number;
  /** Its sweep cell's settings that reach its agent ({} outside a sweep): runs differing only there told apart. */
  settings: Record<string, unknown>;
  maze_id: number;
  maze_hash: string;
  maze_generator: string;
  maze_width: number;
  maze_seed: number | null;
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
