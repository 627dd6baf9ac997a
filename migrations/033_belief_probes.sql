-- Belief probes (config.belief_probe_every, core/engine/belief-probe.ts): every N turns, after the turn's last
-- action, a model agent is asked apart from its conversation to write the maze as it believes it is and where it
-- is. One row per probe, written by the turn's own statement (core/store/turn-sql.ts), keyed like the turn:
--   status            scored (a map was read from the answer), malformed (none could be: the cells count as not
--                     claimed, so its accuracy is 0), failed (the call failed: no answer), skipped (not asked: the
--                     turn had asked the model nothing, or its budget or time was spent); problem says why, or
--                     what was off in a scored answer (rows missing, no position)
--   shown_*           the cells the model had been shown (every tile its actions' vision and the start showed; the
--                     whole maze under full_map): walls, and open cells (the goal among them)
--   correct_*         of those, the cells the answer gives as they are
--   claimed_unshown   cells the answer claims (open, wall, goal) that it was never shown, and how many are right
--   position_error    Manhattan distance from the position it gives to where it is; null when it gives none
-- Its tokens and cost count as any model call's: added to the run's spend (its budgets) and kept totals
-- (experiment_totals: llm_calls, tokens, cost, and probe_calls, how many of llm_calls were probes) unless a record
-- answered it (answered_by replay: nothing spent, as for a replayed turn's calls). Turns keep their own calls only.
CREATE TABLE belief_probes (
  experiment_id            text NOT NULL,
  turn_number              integer NOT NULL,
  step_number              integer NOT NULL,       -- actions taken when asked
  status                   text NOT NULL CHECK (status IN ('scored', 'malformed', 'failed', 'skipped')),
  prompt                   text NOT NULL,          -- the question, appended to the turn's conversation
  answer                   text,                   -- the reply's text as given (cut to fit the row, with a marker)
  problem                  text,
  shown_cells              integer,
  shown_walls              integer,
  shown_open               integer,
  correct_cells            integer,
  correct_walls            integer,
  correct_open             integer,
  claimed_unshown          integer,
  claimed_unshown_correct  integer,
  believed_x               integer,
  believed_y               integer,
  position_x               integer NOT NULL,
  position_y               integer NOT NULL,
  position_error           integer,
  input_tokens             integer,                -- as reported, like llm_calls
  output_tokens            integer,
  cache_read_input_tokens  integer,
  cache_write_input_tokens integer,
  reported_reasoning_tokens integer,
  cost_usd                 numeric,                -- at the run's config.prices; null without a price
  latency_ms               integer NOT NULL DEFAULT 0,
  stop_reason              text,
  answered_by              text CHECK (answered_by IN ('model', 'replay')),
  simulator                text,
  recorded_at              timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (experiment_id, turn_number),
  FOREIGN KEY (experiment_id, turn_number) REFERENCES turns (experiment_id, turn_number) ON DELETE CASCADE
);

ALTER TABLE experiment_totals ADD COLUMN probe_calls bigint NOT NULL DEFAULT 0;

-- Migration 028's recomputation with the probes' answered calls added to the model-call sums (a probe a record
-- answered spent nothing: its tokens are not added), and their count as a new last column.
CREATE OR REPLACE VIEW experiment_totals_recomputed AS
SELECT
  e.id                           AS experiment_id,
  coalesce(a.tool_calls, 0)      AS tool_calls,
  coalesce(a.text_tool_calls, 0) AS text_tool_calls,
  coalesce(a.invalid_actions, 0) AS invalid_actions,
  coalesce(a.failed_moves, 0)    AS failed_moves,
  coalesce(a.recall_calls, 0)    AS recall_calls,
  coalesce(a.refused_calls, 0)   AS refused_calls,
  coalesce(v.loop_cells, 0)      AS loop_cells,
  coalesce(v.max_visits, 0)      AS max_cell_visits,
  coalesce(t.llm_calls, 0) + coalesce(x.calls, 0) + coalesce(p.calls, 0) AS llm_calls,
  -- each sum stays null while all its parts are, as sum() over the rows would
  (SELECT sum(n) FROM (VALUES (t.input_tokens), (x.input_tokens), (p.input_tokens)) AS parts(n))::bigint
    AS input_tokens,
  (SELECT sum(n) FROM (VALUES (t.output_tokens), (x.output_tokens), (p.output_tokens)) AS parts(n))::bigint
    AS output_tokens,
  (SELECT sum(n) FROM (VALUES (t.cost_usd), (x.cost_usd), (p.cost_usd)) AS parts(n)) AS cost_usd,
  coalesce(t.cost_known, true) AND coalesce(x.cost_known, true) AND coalesce(p.cost_known, true) AS cost_known,
  lt.agent_phase                 AS last_phase,
  coalesce(s.signals, 0)         AS stuck_signals,
  s.first_detector               AS first_stuck_detector,
  s.first_step                   AS first_stuck_step,
  coalesce(x.calls, 0)           AS abandoned_calls,
  coalesce(p.calls, 0)           AS probe_calls
FROM experiments e
LEFT JOIN LATERAL (
  SELECT count(*) AS tool_calls,
         count(*) FILTER (WHERE parsed_from_text)                                    AS text_tool_calls,
         count(*) FILTER (WHERE outcome IN ('unknown_tool', 'invalid_arguments')) AS invalid_actions,
         count(*) FILTER (WHERE outcome IN ('blocked_by_wall', 'blocked_by_edge'))  AS failed_moves,
         count(*) FILTER (WHERE tool = 'recall_all' AND executed)                   AS recall_calls,
         count(*) FILTER (WHERE NOT executed)                                        AS refused_calls
  FROM actions WHERE experiment_id = e.id
) a ON true
LEFT JOIN LATERAL (
  SELECT count(*) FILTER (WHERE visits >= 10) AS loop_cells, max(visits) AS max_visits
  FROM (SELECT count(*) AS visits FROM actions
        WHERE experiment_id = e.id AND outcome = 'moved' GROUP BY to_x, to_y) cells
) v ON true
LEFT JOIN LATERAL (
  SELECT sum(llm_calls) AS llm_calls, sum(input_tokens) AS input_tokens,
         sum(output_tokens) AS output_tokens, sum(cost_usd) AS cost_usd,
         bool_and(cost_known(cost_usd, llm_calls)) AS cost_known
  FROM turns WHERE experiment_id = e.id
) t ON true
LEFT JOIN LATERAL (
  SELECT count(*) AS calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
         sum(cost_usd) AS cost_usd, bool_and(cost_known(cost_usd, 1)) AS cost_known
  FROM abandoned_llm_calls WHERE experiment_id = e.id
) x ON true
LEFT JOIN LATERAL (
  SELECT count(*) AS calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
         sum(cost_usd) AS cost_usd, bool_and(cost_known(cost_usd, 1)) AS cost_known
  FROM belief_probes WHERE experiment_id = e.id AND answered_by = 'model'
) p ON true
LEFT JOIN LATERAL (
  SELECT agent_phase FROM turns WHERE experiment_id = e.id ORDER BY turn_number DESC LIMIT 1
) lt ON true
LEFT JOIN LATERAL (
  SELECT count(*) AS signals, (array_agg(detector ORDER BY turn_number, seq))[1] AS first_detector,
         min(step_number) AS first_step
  FROM stuck_signals WHERE experiment_id = e.id
) s ON true;

-- belief_probe_every asks a model a question: like the other model settings, it reaches no baseline. Migration
-- 025's function with it added (reports/setting-reach.ts is the same list).
CREATE OR REPLACE FUNCTION unreached_settings(provider text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY['prices', 'history_event_budget', 'provider_outage_wait_minutes']
    || CASE WHEN provider = 'ollama' THEN ARRAY[]::text[] ELSE ARRAY['ollama'] END
    || CASE WHEN provider = 'bedrock' THEN ARRAY[]::text[] ELSE ARRAY['bedrock'] END
    || CASE WHEN provider = 'openai' THEN ARRAY[]::text[] ELSE ARRAY['openai'] END
    || CASE WHEN provider IN ('bedrock', 'openai') THEN ARRAY[]::text[] ELSE ARRAY['context_windows'] END
    || CASE WHEN provider <> 'baseline' THEN ARRAY[]::text[] ELSE ARRAY['prompt_version', 'observation', 'memory',
         'memory_history_actions', 'memory_conversation_tokens', 'recall_tool', 'max_recall_actions',
         'recall_interval', 'context_policy', 'retry', 'rate_limits', 'temperature', 'top_p', 'max_output_tokens',
         'model_seed', 'strict_tool_calls', 'max_cost_usd', 'max_tokens', 'belief_probe_every'] END
$$;
