-- Every attempt and every answered call counted.
--
-- 1. Model calls answered in a turn that then failed (a provider error after retries, a context overflow, a deadline
-- with no reply, a commit that failed): the turn is never written, so its llm_calls rows are not either (they need
-- their turn). They are kept here instead, marked abandoned, keyed by the try of the turn that made them (attempt: a
-- fresh id per invocation of the turn) and their order in it, so a statement retried by its transport writes them
-- once (lambdas/store/abandoned-sql.ts). The statement that writes them adds them, in the same transaction and only
-- for the rows it inserted, to the run's spend (experiments.spent_tokens, spent_cost_usd: its budgets and its
-- sweep's) and to its kept totals (experiment_totals: llm_calls, input_tokens, output_tokens, cost_usd, cost_known,
-- and abandoned_calls, how many of llm_calls were abandoned), so experiment_summary, sweep_runs and every reader above
-- them count every answered call. Finalize recomputes the totals from experiment_totals_recomputed, which counts
-- them too.
CREATE TABLE abandoned_llm_calls (
  experiment_id           text NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  turn_number             integer NOT NULL,
  attempt                 text NOT NULL,          -- the try of the turn (one id per invocation)
  call_index              integer NOT NULL,       -- order of the call within that try
  model                   text,
  input_tokens            integer,                -- as reported, like llm_calls
  output_tokens           integer,
  cache_read_input_tokens integer,
  cache_write_input_tokens integer,
  reported_reasoning_tokens integer,
  cost_usd                numeric,                -- at the run's config.prices; null when the model has no price
  latency_ms              integer NOT NULL,
  stop_reason             text,
  error                   text,                   -- what ended the try (its error's name and message, cut)
  recorded_at             timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (experiment_id, turn_number, attempt, call_index)
);

ALTER TABLE experiment_totals ADD COLUMN abandoned_calls bigint NOT NULL DEFAULT 0;

-- Migration 017's recomputation with the abandoned calls added to the model-call sums (a sum stays null while both
-- parts are null), and their count as a new last column.
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
  coalesce(t.llm_calls, 0) + coalesce(x.calls, 0) AS llm_calls,
  coalesce(t.input_tokens + x.input_tokens, t.input_tokens, x.input_tokens) AS input_tokens,
  coalesce(t.output_tokens + x.output_tokens, t.output_tokens, x.output_tokens) AS output_tokens,
  coalesce(t.cost_usd + x.cost_usd, t.cost_usd, x.cost_usd) AS cost_usd,
  coalesce(t.cost_known, true) AND coalesce(x.cost_known, true) AS cost_known,
  lt.agent_phase                 AS last_phase,
  coalesce(s.signals, 0)         AS stuck_signals,
  s.first_detector               AS first_stuck_detector,
  s.first_step                   AS first_stuck_step,
  coalesce(x.calls, 0)           AS abandoned_calls
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
  SELECT agent_phase FROM turns WHERE experiment_id = e.id ORDER BY turn_number DESC LIMIT 1
) lt ON true
LEFT JOIN LATERAL (
  SELECT count(*) AS signals, (array_agg(detector ORDER BY turn_number, seq))[1] AS first_detector,
         min(step_number) AS first_step
  FROM stuck_signals WHERE experiment_id = e.id
) s ON true;

-- 2. Every attempt of a sweep's run. Running a sweep file again retries its failed runs as new experiments (attempt
-- 2, 3, ...); sweep_runs keeps the latest. sweep_attempts keeps what all of them did, one row per (sweep, cell,
-- repeat), for the statistics to join (results/statistics-runs.ts):
--   attempts          every attempt started (experiments of the run, whatever their status)
--   errored_attempts  attempts that ended in error (status failed), the latest included
--   earlier_errors    errored attempts before the latest one, and error_reasons: their failure reasons in attempt
--                     order ('no reason recorded' when none)
--   tokens            input, cache reads and writes, and output tokens of every answered call of every attempt
--                     (experiments.spent_tokens, abandoned calls included)
--   cost_usd          what every attempt cost (experiment_totals, abandoned calls included); null when any attempt's
--                     cost is unknown (a model call with no price)
CREATE VIEW sweep_attempts AS
SELECT sweep_id, cell_index, repeat,
  count(*)                                                    AS attempts,
  count(*) FILTER (WHERE status = 'failed')                   AS errored_attempts,
  count(*) FILTER (WHERE status = 'failed' AND attempt < latest) AS earlier_errors,
  coalesce(array_agg(coalesce(failure_reason, 'no reason recorded') ORDER BY attempt)
             FILTER (WHERE status = 'failed' AND attempt < latest), ARRAY[]::text[]) AS error_reasons,
  sum(spent_tokens)                                           AS tokens,
  CASE WHEN bool_and(cost_known(cost_usd, llm_calls)) THEN sum(coalesce(cost_usd, 0)) END AS cost_usd
FROM (
  -- the sweep's filter reaches inside: it is on the window's partition
  SELECT e.sweep_id, e.sweep_cell AS cell_index, e.sweep_repeat AS repeat, e.sweep_attempt AS attempt, e.status,
    e.failure_reason, e.spent_tokens, k.cost_usd, coalesce(k.llm_calls, 0) AS llm_calls,
    max(e.sweep_attempt) OVER (PARTITION BY e.sweep_id, e.sweep_cell, e.sweep_repeat) AS latest
  FROM experiments e LEFT JOIN experiment_totals k ON k.experiment_id = e.id
  WHERE e.sweep_id IS NOT NULL
) a
GROUP BY sweep_id, cell_index, repeat;
