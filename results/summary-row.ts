// The experiment_summary row (migrations 001 and 004): the one declaration of its type and the one read of it by
// experiment. Every command, page and report that shows one experiment's numbers reads them here.
import type { Sql } from '../core/store/sql.ts';

/** One row of the experiment_summary view, every column in the view's order, then abandoned_calls and probe_calls. */
export interface ExperimentSummary {
  experiment_id: string;
  agent: string;
  provider: string;
  model: string | null;
  prompt_version: string | null;
  status: string;
  goal_found: boolean;
  stop_reason: string | null;
  failure_reason: string | null;
  maze_generator: string;
  maze_width: number;
  maze_height: number;
  maze_seed: number | null;
  maze_hash: string;
  success_rule: string | null;
  actions: number;
  optimal_moves: number;
  efficiency: number | null;
  tiles_seen: number;
  turns: number;
  invalid_actions: number;
  failed_moves: number;
  recall_calls: number;
  refused_calls: number;
  loop_cells: number;
  max_cell_visits: number;
  /** Every answered model call: those of turns that failed (abandoned_calls) and belief probes (probe_calls) too. */
  llm_calls: number;
  /** As the provider reported them, over every answered call; null when it reported none (and for baselines). */
  input_tokens: number | null;
  output_tokens: number | null;
  /** Null when the model has no price in config.prices (or no tokens were reported). */
  cost_usd: number | null;
  started_at: Date;
  completed_at: Date | null;
  wall_seconds: number;
  stuck_policy: string;
  agent_phase: string;
  stuck_signals: number;
  first_stuck_detector: string | null;
  first_stuck_step: number | null;
  /** Agent human: who played (migration 034); null for every other agent. */
  player: string | null;
  /** A suite maze a person played: the suite (ariadne-mazes/v1) and the maze's index in it; null otherwise. */
  suite: string | null;
  suite_maze: number | null;
  /** Not in the view (experiment_totals, migration 028): calls answered in turns that then failed, kept abandoned. */
  abandoned_calls: number;
  /** Not in the view (experiment_totals, migration 033): belief probes a model's server answered. */
  probe_calls: number;
}

/** The summary of one experiment; null when there is none by that id. */
export async function summaryOf(db: Sql, experimentId: string): Promise<ExperimentSummary | null> {
  const { rows } = await db.query<ExperimentSummary>(
    `SELECT s.*, coalesce(k.abandoned_calls, 0)::int AS abandoned_calls, coalesce(k.probe_calls, 0)::int AS probe_calls
     FROM experiment_summary s LEFT JOIN experiment_totals k ON k.experiment_id = s.experiment_id
     WHERE s.experiment_id = $1`,
    [experimentId],
  );
  return rows[0] ?? null;
}
