// A sweep's runs as its statistics count them (reports/sweep-statistics.ts): each run's latest attempt from the
// sweep_runs view (migration 011) with its outcome, cost and tool calls, what all its attempts did (sweep_attempts,
// migration 028: their count, their errors, their tokens and cost), and its value of each factor asked for,
// read in keyset pages (the Data API's 1 MiB a response). Which factors exist and what a value means for a run
// (reports/factors.ts) is the statistics' business; how a factor is read from the database is here.
import type { Sql, SqlValue } from '../core/store/sql.ts';
import { readPaged, sweepPageRows } from '../core/store/pages.ts';

/** Factors that are columns of sweep_runs rather than config settings, each with the column it reads. */
const RUN_COLUMNS = new Map([
  ['label', 'r.label'],
  ['agent', 'r.agent'],
  ['model', 'r.model'],
  ['maze_generator', 'r.maze_generator'],
  ['maze_size', 'r.maze_size'],
  // a bundled simulator answered the run (migration 029): never pooled with real runs (reports/factors.ts)
  ['simulated', 'e.simulated'],
]);

/** The factors that are run columns; every other factor is a dotted path into the run's config snapshot. */
export const RUN_FACTORS: readonly string[] = [...RUN_COLUMNS.keys()];

export interface StatisticsRunRow {
  experiment_id: string;
  cell_index: number;
  repeat: number;
  provider: string;
  /** generator, size and seed: the maze, the cluster of every test and interval. */
  maze: string;
  /** wall_clock: stopped by max_duration_minutes, in no denominator (migration 027). */
  outcome_class: 'success' | 'failure' | 'error' | 'wall_clock' | 'running';
  status: string;
  goal_found: boolean;
  stop_reason: string | null;
  interrupted: boolean;
  failure_reason: string | null;
  independent: boolean;
  deterministic: boolean;
  identical_repeat: boolean;
  /** Every model call answered by config.cache: a copy of answers already counted, in no denominator. */
  from_cache: boolean;
  efficiency: number | null;
  actions: number;
  invalid_actions: number;
  loop_cells: number;
  /** The cell of the run a copy repeats (null when the run is not a copy). */
  duplicate_cell: number | null;
  /** The latest attempt's input, cache read and write, and output tokens (abandoned calls included). */
  tokens: number;
  cost_usd: number | null;
  llm_calls: number;
  /** A model run's tool calls and those recovered from its reply text; null for a baseline. */
  tool_calls: number | null;
  from_text: number | null;
  /** Every attempt of the run (a sweep run again retries its failed runs), and those that ended in error. */
  attempts: number;
  errored_attempts: number;
  /** The failure reasons of the attempts before the latest that ended in error, in attempt order. */
  earlier_error_reasons: string[];
  /** Tokens as `tokens`, and cost, of every attempt; cost null when any attempt's is unknown. */
  all_tokens: number;
  all_cost_usd: number | null;
  /** Calls of the run whose prompt the server cut to its context window (migration 029). */
  prompt_truncated_calls: number;
  /** A bundled simulator answered some of the run's calls (migration 029). */
  simulated: boolean;
  /**
   * Its belief probes' mean cell accuracy, each answered probe (scored or malformed) weighing the same and a
   * malformed answer counting 0 (migration 033); null when none was answered.
   */
  belief_accuracy: number | null;
  /** Its belief probes: answered (scored or malformed), malformed among them, and asked but unanswered. */
  belief_answered: number;
  belief_malformed: number;
  /** Failed or skipped: no answer, so in no mean. */
  belief_unanswered: number;
  /** The run's value of factor i, as stored: a run column, or the setting's text in its config snapshot. */
  [factor: `f${number}`]: unknown;
}

/**
 * Each factor as a SELECT expression over sweep_runs r and experiments e, named f0, f1, ...: a run column, or the
 * setting's text in the snapshot (its path a parameter, never SQL text).
 */
function factorColumns(factors: readonly string[], params: SqlValue[]): string[] {
  return factors.map((f, i) => {
    const column = RUN_COLUMNS.get(f);
    if (column) return `${column} AS f${i}`;
    params.push(f.split('.'));
    return `e.config #>> $${params.length}::text[] AS f${i}`;
  });
}

/** Every run of a sweep with its value of each factor (a run column or a dotted config path), by cell and repeat. */
export function statisticsRunRows(db: Sql, sweepId: string, factors: readonly string[]): Promise<StatisticsRunRow[]> {
  const params: SqlValue[] = [sweepId];
  const columns = factorColumns(factors, params);
  const p = params.length;
  return readPaged<StatisticsRunRow>(
    async (last, limit) =>
      (
        await db.query<StatisticsRunRow>(
          `SELECT r.experiment_id, r.cell_index, r.repeat, r.provider,
             r.maze_generator || ' ' || r.maze_size || ' ' || r.maze_seed AS maze,
             r.outcome_class, r.status, r.goal_found, r.stop_reason, e.interrupted_at IS NOT NULL AS interrupted,
             r.failure_reason, r.independent, r.deterministic,
             r.identical_repeat, r.from_cache,
             r.efficiency::float8 AS efficiency, r.actions::int AS actions,
             r.invalid_actions::int AS invalid_actions, r.loop_cells::int AS loop_cells, d.sweep_cell AS duplicate_cell,
             e.spent_tokens::float8 AS tokens,
             r.cost_usd::float8 AS cost_usd, r.llm_calls::int AS llm_calls, t.tool_calls, t.from_text,
             a.attempts::int AS attempts, a.errored_attempts::int AS errored_attempts,
             a.error_reasons AS earlier_error_reasons, a.tokens::float8 AS all_tokens,
             a.cost_usd::float8 AS all_cost_usd,
             e.prompt_truncated_calls, e.simulated, b.belief_accuracy, b.belief_answered, b.belief_malformed,
             b.belief_unanswered
             ${columns.map((c) => `, ${c}`).join('')}
           FROM sweep_runs r JOIN experiments e ON e.id = r.experiment_id
           JOIN sweep_attempts a ON a.sweep_id = r.sweep_id AND a.cell_index = r.cell_index AND a.repeat = r.repeat
           LEFT JOIN experiments d ON d.id = r.duplicate_of
           LEFT JOIN LATERAL (
             -- the run's tool calls as kept (migration 017); a baseline's count as none, as a count of none is 0
             SELECT coalesce(CASE WHEN r.provider <> 'baseline' THEN k.tool_calls END, 0)::int AS tool_calls,
                    coalesce(CASE WHEN r.provider <> 'baseline' THEN k.text_tool_calls END, 0)::int AS from_text
             FROM (SELECT 1) one LEFT JOIN experiment_totals k ON k.experiment_id = r.experiment_id
           ) t ON true
           LEFT JOIN LATERAL (
             -- the mean over the answered probes; the failed and skipped ones are counted, in no mean
             SELECT avg(p.correct_cells::float8 / nullif(p.shown_cells, 0))
                      FILTER (WHERE p.status IN ('scored', 'malformed')) AS belief_accuracy,
                    count(*) FILTER (WHERE p.status IN ('scored', 'malformed'))::int AS belief_answered,
                    count(*) FILTER (WHERE p.status = 'malformed')::int AS belief_malformed,
                    count(*) FILTER (WHERE p.status IN ('failed', 'skipped'))::int AS belief_unanswered
             FROM belief_probes p WHERE p.experiment_id = r.experiment_id
           ) b ON true
           WHERE r.sweep_id = $1 AND (r.cell_index, r.repeat) > ($${p + 1}::int, $${p + 2}::int)
           ORDER BY r.cell_index, r.repeat LIMIT $${p + 3}`,
          [...params, last?.cell_index ?? -1, last?.repeat ?? -1, limit],
        )
      ).rows,
    sweepPageRows(db),
  );
}
