// Each turn of one experiment as the viewer's turn panel shows it: the turn's numbers, every model call (its reply,
// tool calls, tokens, latency, retries), every tool call and what it did, the agent-state changes and the stuck
// signals. Read for a window of turns at a time, so a 10,000-action run's first draw waits for none of it. Each call
// says who answered it (the flight recorder's exchanges): the model, a replay of the record, the cache, several of
// them (mixed: a workflow's steps), or null if unrecorded.
import type { Sql } from '../core/store/sql.ts';

type Rows = Array<Record<string, unknown>>;

export interface TurnDetail {
  turn: Record<string, unknown>;
  calls: Rows;
  actions: Rows;
  transitions: Rows;
  signals: Rows;
}

/** Turns `from` to `from + count - 1` of one experiment, with what happened in each. */
export async function loadTurns(db: Sql, experimentId: string, from: number, count: number): Promise<TurnDetail[]> {
  const range = [experimentId, from, from + count - 1];
  const where = 'experiment_id = $1 AND turn_number BETWEEN $2 AND $3';
  const [turns, calls, actions, transitions, signals] = await Promise.all([
    db.query(
      `SELECT turn_number, started_at, ended_at, stop_reason, actions_executed, calls_refused, llm_calls,
              input_tokens, output_tokens, cache_read_input_tokens, cache_write_input_tokens,
              cost_usd::float8 AS cost_usd, latency_ms, goal_found, actions_taken_after, tiles_seen_after,
              position_x_after, position_y_after, agent_phase, halted_by
       FROM turns WHERE ${where} ORDER BY turn_number`,
      range,
    ),
    db.query(
      `SELECT turn_number, call_index, input_tokens, output_tokens, cache_read_input_tokens, cache_write_input_tokens,
              latency_ms, stop_reason, assistant_text, tool_calls, retries, workflow_steps, prompt_estimate,
              context_window, context_trimmed, truncated, reasoning_text, reasoning_tokens, estimated_input_tokens,
              estimate_off, reported_reasoning_tokens, image_sha256, prompt_truncated, simulator,
              CASE WHEN x.requests = 0 THEN NULL WHEN x.kinds = 1 THEN x.one ELSE 'mixed' END AS answered_by
       FROM llm_calls l
       LEFT JOIN LATERAL (
         SELECT count(*)::int AS requests, count(DISTINCT r.answered_by)::int AS kinds, min(r.answered_by) AS one
         FROM model_exchanges r
         WHERE r.experiment_id = l.experiment_id AND r.turn_number = l.turn_number AND r.call_index = l.call_index
       ) x ON true
       WHERE ${where} ORDER BY turn_number, call_index`,
      range,
    ),
    db.query(
      `SELECT turn_number, call_index, step_number, tool, arguments, reasoning, parsed_from_text, executed, success,
              outcome, message, from_x, from_y, to_x, to_y, new_tiles_seen, goal_found
       FROM actions WHERE ${where} ORDER BY turn_number, call_index`,
      range,
    ),
    db.query(
      `SELECT turn_number, seq, machine, step_number, from_phase, to_phase, cause, refused
       FROM agent_state_transitions WHERE ${where} ORDER BY turn_number, seq`,
      range,
    ),
    db.query(
      `SELECT turn_number, seq, step_number, detector, detail, policy
       FROM stuck_signals WHERE ${where} ORDER BY turn_number, seq`,
      range,
    ),
  ]);
  const byTurn = (rows: Rows, n: unknown) => rows.filter((r) => r.turn_number === n);
  return turns.rows.map((turn) => ({
    turn,
    calls: byTurn(calls.rows, turn.turn_number),
    actions: byTurn(actions.rows, turn.turn_number),
    transitions: byTurn(transitions.rows, turn.turn_number),
    signals: byTurn(signals.rows, turn.turn_number),
  }));
}
