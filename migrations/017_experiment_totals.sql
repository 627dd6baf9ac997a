-- Summaries kept, not recomputed (issue 32, item 1): experiment_summary aggregated every action and turn of every
-- experiment at read time (1.5 s for a sweep's statistics over a million actions). What it aggregated is now
-- written: one experiment_totals row per experiment, kept current by each turn's statement (lambdas/store/turn-sql.ts,
-- from that turn's rows only) and recomputed whole from the experiment's own rows when it is finalized
-- (pg-store.ts finalizeExperiment). The view keeps its columns, order and types and reads the row.
-- test/experiment-totals.test.ts holds the old view's SQL and checks every kept row against it.

-- Per experiment, the sums and counts over its actions and turns. A running experiment has its row from its first
-- committed turn; one with no turn has none (the readers coalesce, as the view's outer joins did).
--   tool_calls, text_tool_calls  every action row (tool call), and those recovered from reply text
--   invalid_actions ... refused_calls, loop_cells, max_cell_visits, llm_calls, input_tokens, output_tokens, cost_usd
--                                as experiment_summary has them (sums of turns' tokens and cost null when every
--                                turn's is null)
--   cost_known                   every turn was priced or called no model (cost_known(), migration 011)
--   last_phase                   the last turn's agent_phase (null: the view reads 'exploring')
--   stuck_signals, first_stuck_detector, first_stuck_step   over stuck_signals
CREATE TABLE experiment_totals (
  experiment_id        text PRIMARY KEY REFERENCES experiments(id) ON DELETE CASCADE,
  tool_calls           bigint NOT NULL,
  text_tool_calls      bigint NOT NULL,
  invalid_actions      bigint NOT NULL,
  failed_moves         bigint NOT NULL,
  recall_calls         bigint NOT NULL,
  refused_calls        bigint NOT NULL,
  loop_cells           bigint NOT NULL,
  max_cell_visits      bigint NOT NULL,
  llm_calls            bigint NOT NULL,
  input_tokens         bigint,
  output_tokens        bigint,
  cost_usd             numeric,
  cost_known           boolean NOT NULL,
  last_phase           text,
  stuck_signals        bigint NOT NULL,
  first_stuck_detector text,
  first_stuck_step     integer
);

-- How often a running experiment has entered each cell (moves whose outcome is 'moved'), so a turn updates
-- loop_cells and max_cell_visits from the cells it entered alone. Emptied at finalize: a finished run takes no turn.
CREATE TABLE experiment_cell_visits (
  experiment_id text NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  x             integer NOT NULL,
  y             integer NOT NULL,
  visits        bigint NOT NULL,
  PRIMARY KEY (experiment_id, x, y)
);

-- The totals recomputed from the rows, by experiment_summary's own aggregates (migration 004): the backfill below
-- and finalize write it; a check or a repair may read it (slow: it reads every action).
CREATE VIEW experiment_totals_recomputed AS
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
  coalesce(t.llm_calls, 0)       AS llm_calls,
  t.input_tokens, t.output_tokens, t.cost_usd,
  coalesce(t.cost_known, true)   AS cost_known,
  lt.agent_phase                 AS last_phase,
  coalesce(s.signals, 0)         AS stuck_signals,
  s.first_detector               AS first_stuck_detector,
  s.first_step                   AS first_stuck_step
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
  -- a cell entered 10 or more times marks a loop (the MazeEval convention)
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
  SELECT agent_phase FROM turns WHERE experiment_id = e.id ORDER BY turn_number DESC LIMIT 1
) lt ON true
LEFT JOIN LATERAL (
  SELECT count(*) AS signals, (array_agg(detector ORDER BY turn_number, seq))[1] AS first_detector,
         min(step_number) AS first_step
  FROM stuck_signals WHERE experiment_id = e.id
) s ON true;

-- The backfill: every experiment's totals, and the cells a running one has entered.
INSERT INTO experiment_totals (experiment_id, tool_calls, text_tool_calls, invalid_actions, failed_moves, recall_calls,
  refused_calls, loop_cells, max_cell_visits, llm_calls, input_tokens, output_tokens, cost_usd, cost_known, last_phase,
  stuck_signals, first_stuck_detector, first_stuck_step)
SELECT experiment_id, tool_calls, text_tool_calls, invalid_actions, failed_moves, recall_calls, refused_calls,
  loop_cells, max_cell_visits, llm_calls, input_tokens, output_tokens, cost_usd, cost_known, last_phase,
  stuck_signals, first_stuck_detector, first_stuck_step
FROM experiment_totals_recomputed;

INSERT INTO experiment_cell_visits (experiment_id, x, y, visits)
SELECT a.experiment_id, a.to_x, a.to_y, count(*)
FROM actions a JOIN experiments e ON e.id = a.experiment_id
WHERE e.status = 'running' AND a.outcome = 'moved'
GROUP BY a.experiment_id, a.to_x, a.to_y;

-- experiment_summary as migration 004 defined it, its aggregates read from experiment_totals: the same columns in
-- the same order and of the same types, so sweep_runs and every reader above it are unchanged.
CREATE OR REPLACE VIEW experiment_summary AS
SELECT
  e.id                                   AS experiment_id,
  e.agent, e.provider, e.model, e.prompt_version,
  e.status, e.goal_found, e.stop_reason, e.failure_reason,
  m.generator                            AS maze_generator,
  m.width                                AS maze_width,
  m.height                               AS maze_height,
  m.seed                                 AS maze_seed,
  m.content_hash                         AS maze_hash,
  e.config ->> 'success_rule'            AS success_rule,
  e.actions_taken                        AS actions,
  e.optimal_moves,
  CASE WHEN e.goal_found AND e.actions_taken > 0
       THEN round(e.optimal_moves::numeric / e.actions_taken, 4) END AS efficiency,
  e.tiles_seen,
  e.turns_completed                      AS turns,
  coalesce(k.invalid_actions, 0)         AS invalid_actions,
  coalesce(k.failed_moves, 0)            AS failed_moves,
  coalesce(k.recall_calls, 0)            AS recall_calls,
  coalesce(k.refused_calls, 0)           AS refused_calls,
  coalesce(k.loop_cells, 0)              AS loop_cells,
  coalesce(k.max_cell_visits, 0)         AS max_cell_visits,
  coalesce(k.llm_calls, 0)               AS llm_calls,
  k.input_tokens, k.output_tokens, k.cost_usd,
  e.started_at, e.completed_at,
  round(EXTRACT(epoch FROM (coalesce(e.completed_at, now()) - e.started_at))::numeric, 3) AS wall_seconds,
  e.config ->> 'stuck_policy'            AS stuck_policy,
  coalesce(k.last_phase, 'exploring')    AS agent_phase,
  coalesce(k.stuck_signals, 0)           AS stuck_signals,
  k.first_stuck_detector,
  k.first_stuck_step
FROM experiments e
JOIN mazes m ON m.id = e.maze_id
LEFT JOIN experiment_totals k ON k.experiment_id = e.id;
