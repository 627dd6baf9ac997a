// The statement that keeps the model calls of a turn that failed (migration 028): it inserts them, keyed by the
// turn's try and their order in it, and adds only the rows it inserted to the run's spend (its budgets) and kept
// totals, so a statement retried by its transport adds nothing twice. One statement is one transaction.
import type { AbandonedCallsWrite } from '../engine/store.ts';
import { LIMITS, truncateText } from './stored-limits.ts';
import type { SqlValue } from './sql.ts';

const RECORD_ABANDONED = `
WITH ins AS (
  INSERT INTO abandoned_llm_calls (experiment_id, turn_number, attempt, call_index, model, input_tokens, output_tokens,
    cache_read_input_tokens, cache_write_input_tokens, reported_reasoning_tokens, cost_usd, latency_ms, stop_reason,
    error)
  SELECT e.id, $2, $3, c.c, e.model, c.i, c.o, c.kr, c.kw, c.rr, c.cost, c.l, c.s, $5
  FROM experiments e, jsonb_to_recordset($4::jsonb)
    AS c(c int, i int, o int, kr int, kw int, rr int, cost numeric, l int, s text)
  WHERE e.id = $1
  ON CONFLICT DO NOTHING
  RETURNING input_tokens, output_tokens, cache_read_input_tokens, cache_write_input_tokens, cost_usd
), added AS (
  SELECT count(*) AS calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
    coalesce(sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0) + coalesce(cache_read_input_tokens, 0)
      + coalesce(cache_write_input_tokens, 0)), 0) AS tokens,
    sum(cost_usd) AS cost_usd, bool_and(cost_known(cost_usd, 1)) AS cost_known
  FROM ins
), spend AS (
  UPDATE experiments SET spent_tokens = spent_tokens + added.tokens,
    spent_cost_usd = spent_cost_usd + coalesce(added.cost_usd, 0), updated_at = now(),
    -- a simulator's answers and cut prompts mark the run whether or not their turn was written
    simulated = simulated OR $6, prompt_truncated_calls = prompt_truncated_calls + $7
  FROM added WHERE id = $1 AND added.calls > 0
  RETURNING 1
), totals AS (
  INSERT INTO experiment_totals AS k (experiment_id, tool_calls, text_tool_calls, invalid_actions, failed_moves,
    recall_calls, refused_calls, loop_cells, max_cell_visits, llm_calls, input_tokens, output_tokens, cost_usd,
    cost_known, stuck_signals, abandoned_calls)
  SELECT $1, 0, 0, 0, 0, 0, 0, 0, 0, calls, input_tokens, output_tokens, cost_usd, cost_known, 0, calls
  FROM added WHERE calls > 0
  ON CONFLICT (experiment_id) DO UPDATE SET
    llm_calls = k.llm_calls + EXCLUDED.llm_calls,
    input_tokens = coalesce(k.input_tokens + EXCLUDED.input_tokens, k.input_tokens, EXCLUDED.input_tokens),
    output_tokens = coalesce(k.output_tokens + EXCLUDED.output_tokens, k.output_tokens, EXCLUDED.output_tokens),
    cost_usd = coalesce(k.cost_usd + EXCLUDED.cost_usd, k.cost_usd, EXCLUDED.cost_usd),
    cost_known = k.cost_known AND EXCLUDED.cost_known,
    abandoned_calls = k.abandoned_calls + EXCLUDED.abandoned_calls
  RETURNING 1
)
SELECT calls::int AS written FROM added`;

/** The statement and its parameters for the answered calls of one failed try of a turn. */
export function recordAbandonedQuery(w: AbandonedCallsWrite): { name: string; text: string; values: SqlValue[] } {
  const calls = w.calls.map((c) => ({
    c: c.callIndex,
    i: c.inputTokens,
    o: c.outputTokens,
    kr: c.cacheReadInputTokens,
    kw: c.cacheWriteInputTokens,
    rr: c.reportedReasoningTokens ?? null,
    cost: c.costUsd,
    l: Math.round(c.latencyMs),
    s: c.stopReason === null ? null : truncateText(c.stopReason, LIMITS['llm_calls.stop_reason']),
  }));
  return {
    name: 'ariadne-record-abandoned',
    text: RECORD_ABANDONED,
    values: [
      w.experimentId,
      w.turnNumber,
      w.attempt,
      JSON.stringify(calls),
      truncateText(w.error, LIMITS['experiments.failure_reason']),
      w.calls.some((c) => c.simulator !== undefined),
      w.calls.filter((c) => c.promptTruncated === true).length,
    ],
  };
}
