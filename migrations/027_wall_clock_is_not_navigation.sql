-- A run stopped by the wall clock (max_duration_minutes) ran out of time, not out of moves: how far it got depends
-- on the serving stack (a slow server and a fast one under one limit), so it is not a navigation failure. Its
-- outcome_class is 'wall_clock': like an error it is in no denominator (it pairs with nothing and is no
-- observation), and the sensitivity columns (*_if_errors_failed) count it as a failure. Everything else in
-- sweep_runs and sweep_stats is as migration 011 defined it. reports/stop-reasons.ts names every way a run ends.
CREATE OR REPLACE VIEW sweep_runs AS
WITH latest AS (
  SELECT DISTINCT ON (e.sweep_id, e.sweep_cell, e.sweep_repeat)
    e.sweep_id, e.sweep_cell AS cell_index, e.sweep_repeat AS repeat, e.sweep_attempt AS attempt,
    c.cell_key, c.label, c.agent, c.model, c.maze_generator, c.maze_size, c.maze_seed, c.settings,
    s.experiment_id, s.status, s.goal_found, s.stop_reason, s.failure_reason, s.actions, s.optimal_moves,
    -- experiment_summary's efficiency, unrounded (it rounds to 4 decimals): the statistics mean it, then round once
    CASE WHEN s.goal_found AND s.actions > 0 THEN s.optimal_moves::numeric / s.actions END AS efficiency,
    s.tiles_seen, s.turns, s.invalid_actions, s.failed_moves, s.loop_cells, s.max_cell_visits,
    s.llm_calls, s.input_tokens, s.output_tokens, s.cost_usd, s.wall_seconds, s.stuck_signals,
    e.provider = 'baseline' AS deterministic,
    e.provider, e.agent_seed, e.trajectory_hash,
    reaching_settings(e.provider, c.settings) AS factor_settings,
    CASE WHEN e.status = 'running' THEN 'running' WHEN e.status = 'failed' THEN 'error'
         WHEN e.goal_found THEN 'success'
         WHEN e.status = 'timeout' AND e.stop_reason = 'max_duration' THEN 'wall_clock'
         ELSE 'failure' END AS outcome_class
  FROM experiments e
  JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
  JOIN experiment_summary s ON s.experiment_id = e.id
  WHERE e.sweep_id IS NOT NULL
  ORDER BY e.sweep_id, e.sweep_cell, e.sweep_repeat, e.sweep_attempt DESC
), keyed AS (
  SELECT l.*, outcome_class IN ('success', 'failure') AS counted,
    CASE WHEN deterministic AND outcome_class IN ('success', 'failure') AND trajectory_hash IS NOT NULL
         THEN jsonb_build_array(trajectory_hash, CASE WHEN NOT agent_ignores_seed(agent) THEN agent_seed END)
         ELSE to_jsonb(experiment_id) END AS observation_key
  FROM latest l
)
SELECT sweep_id, cell_index, repeat, attempt,
  cell_key, label, agent, model, maze_generator, maze_size, maze_seed, settings,
  experiment_id, status, goal_found, stop_reason, failure_reason, actions, optimal_moves, efficiency,
  tiles_seen, turns, invalid_actions, failed_moves, loop_cells, max_cell_visits, llm_calls,
  input_tokens, output_tokens, cost_usd, wall_seconds, stuck_signals,
  deterministic,
  counted AND experiment_id = first_value(experiment_id) OVER w AS independent,
  CASE WHEN counted THEN nullif(first_value(experiment_id) OVER w, experiment_id) END AS duplicate_of,
  provider, outcome_class, factor_settings, trajectory_hash,
  counted AND NOT deterministic AND trajectory_hash IS NOT NULL
    AND count(*) OVER (PARTITION BY sweep_id, cell_index, counted, trajectory_hash) > 1 AS identical_repeat
FROM keyed
WINDOW w AS (PARTITION BY sweep_id, label, maze_generator, maze_size, factor_settings, observation_key
             ORDER BY cell_index, repeat);

CREATE OR REPLACE VIEW sweep_stats AS
SELECT sweep_id, label, agent, model, maze_generator, maze_size, factor_settings AS settings,
  count(*) FILTER (WHERE outcome_class IN ('success', 'failure'))  AS n,
  count(*) FILTER (WHERE outcome_class = 'success')                AS successes,
  (count(*) FILTER (WHERE goal_found AND independent))::float8
    / nullif(count(*) FILTER (WHERE independent), 0)               AS success_rate,
  wilson_low(count(*) FILTER (WHERE goal_found AND independent),
             count(*) FILTER (WHERE independent))                  AS success_low95,
  wilson_high(count(*) FILTER (WHERE goal_found AND independent),
              count(*) FILTER (WHERE independent))                 AS success_high95,
  (avg(efficiency) FILTER (WHERE independent))::float8             AS mean_efficiency,
  (percentile_cont(0.5) WITHIN GROUP (ORDER BY efficiency) FILTER (WHERE independent))::float8
                                                                   AS median_efficiency,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY actions) FILTER (WHERE independent AND goal_found)
                                                                   AS median_actions_to_success,
  (sum(invalid_actions) FILTER (WHERE independent))::float8
    / nullif(sum(actions) FILTER (WHERE independent), 0)           AS invalid_action_rate,
  (avg((loop_cells > 0)::int) FILTER (WHERE independent))::float8  AS loop_rate,
  (avg(coalesce(input_tokens, 0) + coalesce(output_tokens, 0)) FILTER (WHERE independent))::float8
                                                                   AS tokens_per_experiment,
  (sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0)) FILTER (WHERE independent))::float8
    / nullif(count(*) FILTER (WHERE independent AND goal_found), 0) AS tokens_per_success,
  CASE WHEN bool_and(cost_known(cost_usd, llm_calls)) FILTER (WHERE independent)
       THEN (avg(coalesce(cost_usd, 0)) FILTER (WHERE independent))::numeric END AS cost_per_experiment,
  CASE WHEN bool_and(cost_known(cost_usd, llm_calls)) FILTER (WHERE independent)
       THEN (sum(coalesce(cost_usd, 0)) FILTER (WHERE independent)
             / nullif(count(*) FILTER (WHERE independent AND goal_found), 0))::numeric END
                                                                   AS cost_per_success,
  count(*) FILTER (WHERE outcome_class IN ('error', 'running'))    AS unfinished,
  count(*) FILTER (WHERE independent)                              AS n_independent,
  count(*) FILTER (WHERE independent AND goal_found)               AS successes_independent,
  count(*) FILTER (WHERE outcome_class IN ('success', 'failure') AND NOT independent) AS deterministic_repeats,
  count(*)                                                         AS runs,
  count(*) FILTER (WHERE outcome_class = 'error')                  AS errors,
  coalesce(jsonb_agg(coalesce(failure_reason, 'no reason recorded') ORDER BY cell_index, repeat)
             FILTER (WHERE outcome_class = 'error'), '[]'::jsonb) AS error_reasons,
  count(*) FILTER (WHERE outcome_class = 'running')                AS running,
  (count(*) FILTER (WHERE goal_found AND independent))::float8
    / nullif(count(*) FILTER (WHERE independent OR outcome_class IN ('error', 'wall_clock')), 0)
                                                                   AS success_rate_if_errors_failed,
  wilson_low(count(*) FILTER (WHERE goal_found AND independent),
             count(*) FILTER (WHERE independent OR outcome_class IN ('error', 'wall_clock')))
                                                                   AS success_low95_if_errors_failed,
  wilson_high(count(*) FILTER (WHERE goal_found AND independent),
              count(*) FILTER (WHERE independent OR outcome_class IN ('error', 'wall_clock')))
                                                                   AS success_high95_if_errors_failed,
  count(*) FILTER (WHERE identical_repeat)                         AS identical_repeats,
  CASE WHEN bool_and(cost_known(cost_usd, llm_calls)) THEN sum(coalesce(cost_usd, 0))::numeric END
                                                                   AS cost_usd
FROM sweep_runs
GROUP BY sweep_id, label, agent, model, maze_generator, maze_size, factor_settings;

-- McNemar's test on run pairs takes repeats on one maze as independent: with 24 pairs on 4 mazes it printed p =
-- 0.000122 where no test at the level of the maze can go below 0.125. The view keeps the 2x2 table and says how
-- many mazes it stands on; the maze-level test (an exact sign-flip test of the per-maze differences) is
-- reports/maze-inference.ts's, printed by `ariadne compare` (--json: groups[].test). mcnemar_exact_p(b, c) stays
-- as a function for pairs that are truly independent (one run per maze).
DROP VIEW sweep_pairs;
CREATE VIEW sweep_pairs AS
SELECT sweep_id, label_a, label_b, settings, count(*) AS pairs,
  count(DISTINCT (maze_generator, maze_size, maze_seed)) AS mazes,
  count(*) FILTER (WHERE ok_a AND ok_b) AS both_solved,
  count(*) FILTER (WHERE ok_a AND NOT ok_b) AS only_a,
  count(*) FILTER (WHERE ok_b AND NOT ok_a) AS only_b,
  count(*) FILTER (WHERE NOT ok_a AND NOT ok_b) AS neither,
  (avg(eff_a - eff_b) FILTER (WHERE ok_a AND ok_b))::float8 AS mean_efficiency_diff,
  (sum(run_pairs) - count(*))::bigint AS copied_pairs
FROM sweep_run_pairs GROUP BY sweep_id, label_a, label_b, settings;
