-- Valid statistics (issue 29, points 3, 4 and 5): no table pools a setting the sweep varies, errors are not
-- failures, and copies are found by what the agent did (its trajectory), not by its config snapshot.
-- reports/sweep-statistics.ts computes the same numbers (plus the clustered bootstrap) from sweep_runs; the
-- README's statistics section says what each count includes and excludes.

-- Which settings reach which kind of agent (experiments.provider: baseline, ollama, bedrock), by top-level config
-- key. The one list is reports/setting-reach.ts; test/statistics-factors.test.ts checks this function against it
-- for every key. A setting that does not reach an agent is not one of its factors: its rows merge (frontier under
-- five observation formats is one row) and the setting shows as not applicable. A key not listed reaches every
-- agent, so a new setting is at worst split by, never merged by mistake.
CREATE FUNCTION setting_reaches(provider text, setting text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    -- a price table and the execution's history budget change what a run costs or how it is hopped, not the run
    WHEN setting IN ('prices', 'history_event_budget') THEN false
    WHEN setting = 'ollama' THEN provider = 'ollama'
    WHEN setting IN ('bedrock', 'context_windows') THEN provider = 'bedrock'
    -- what a model is shown, remembers and is offered, how it is sampled and parsed, how its calls are retried
    -- and limited
    WHEN setting IN ('prompt_version', 'observation', 'memory', 'memory_history_actions', 'memory_conversation_tokens',
                     'recall_tool', 'max_recall_actions', 'recall_interval', 'context_policy', 'retry', 'rate_limits',
                     'temperature', 'top_p', 'max_output_tokens', 'model_seed', 'strict_tool_calls')
      THEN provider <> 'baseline'
    ELSE true END
$$;

-- A cell's settings (sweep_cells.settings: the keys of the sweep's `settings:`) less those that do not reach the
-- run's agent: what its rows are split by.
CREATE FUNCTION reaching_settings(provider text, settings jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_object_agg(key, value), '{}'::jsonb) FROM jsonb_each(settings)
  WHERE setting_reaches(provider, key)
$$;

-- The trajectory: what decides the run, hashed once when the experiment ends (lambdas/store/pg-store.ts
-- finalizeExperiment) and backfilled below. The agent and model, the maze's content, and every tool call in order
-- (turn, call) with its outcome (moved, blocked_by_wall, refused, ...), ending with whether the goal was found. Two
-- runs with the same hash took the same path through the same maze with the same result; their words (reasoning,
-- reply text) may differ. md5 names the sequence, it guards nothing.
CREATE FUNCTION experiment_trajectory_hash(experiment text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT md5(concat_ws('|', e.agent, coalesce(e.model, ''), m.content_hash,
           (SELECT coalesce(string_agg(a.tool || ':' || a.outcome, ' ' ORDER BY a.turn_number, a.call_index), '')
                   || CASE WHEN bool_or(a.goal_found) THEN ' goal' ELSE '' END
            FROM actions a WHERE a.experiment_id = e.id)))
  FROM experiments e JOIN mazes m ON m.id = e.maze_id WHERE e.id = experiment
$$;

ALTER TABLE experiments ADD COLUMN trajectory_hash text;
UPDATE experiments SET trajectory_hash = experiment_trajectory_hash(id) WHERE status <> 'running';

-- sweep_runs keeps its columns and meaning of n-counting flags, now by behaviour, and appends:
--   provider, outcome_class (success: goal found; failure: ended without it (timeout, stuck, completed without the
--   goal); error: status failed, ended by infrastructure (provider errors after retries, context overflow,
--   database), failure_reason says which; running: not finished, counted nowhere), factor_settings (the cell's
--   settings that reach the agent), trajectory_hash, identical_repeat (a model's run whose trajectory equals another
--   finished repeat's in the same cell).
-- deterministic: a baseline (provider 'baseline'). independent: a success or failure that is an observation of its
-- own: any model run, or the first (lowest cell, then repeat) of the deterministic runs of one label, maze
-- generator and size and factor settings with the same trajectory and, for an agent that uses its seed (not
-- agent_ignores_seed), the same agent seed: so frontier under a setting it ignores counts once, and random's
-- repeats (a new seed each) count each, even where two draws happen to walk alike. Errors and running runs are never
-- independent (they are in no denominator) and never a copy. duplicate_of: the independent run a copy repeats.
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
         WHEN e.goal_found THEN 'success' ELSE 'failure' END AS outcome_class
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

-- A run's cost is known when the provider priced it, or when it called no model (a baseline costs nothing); a group
-- with any run of unknown cost has an unknown (null) cost, never the partial sum.
CREATE FUNCTION cost_known(cost numeric, llm_calls bigint) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT cost IS NOT NULL OR coalesce(llm_calls, 0) = 0
$$;

DROP VIEW sweep_pairs;
DROP VIEW sweep_run_pairs;
DROP VIEW sweep_pass_k;
DROP VIEW sweep_stats;

-- Per sweep x label x maze generator x size x settings (the varied settings that reach the agent; {} when none).
-- Counts: runs (every run's latest attempt), n and successes (successes and failures, every repeat), n_independent
-- and successes_independent (the observations), deterministic_repeats (n - n_independent: copies), errors (with
-- error_reasons, one per error run) and running (in no denominator), unfinished (errors + running, as before),
-- identical_repeats (model runs whose trajectory equals another repeat's of their cell). The success rate and its
-- Wilson interval are over the observations; *_if_errors_failed counts every error as a failed observation (the
-- sensitivity row). Efficiency, actions, loops, invalid actions and tokens are over the observations; cost_usd is
-- what every run cost (errors included), null when any run's cost is unknown.
-- Nothing is rounded: rates, bounds and means are double precision, costs exact numeric sums. A page rounds once,
-- when it writes the number (reports/stat-format.ts); a view that rounded first would make a reader who formats
-- its 4-decimal 0.2065 print 20.6% where the value, 0.20654..., is 20.7%.
CREATE VIEW sweep_stats AS
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
    / nullif(count(*) FILTER (WHERE independent OR outcome_class = 'error'), 0) AS success_rate_if_errors_failed,
  wilson_low(count(*) FILTER (WHERE goal_found AND independent),
             count(*) FILTER (WHERE independent OR outcome_class = 'error')) AS success_low95_if_errors_failed,
  wilson_high(count(*) FILTER (WHERE goal_found AND independent),
              count(*) FILTER (WHERE independent OR outcome_class = 'error')) AS success_high95_if_errors_failed,
  count(*) FILTER (WHERE identical_repeat)                         AS identical_repeats,
  CASE WHEN bool_and(cost_known(cost_usd, llm_calls)) THEN sum(coalesce(cost_usd, 0))::numeric END
                                                                   AS cost_usd
FROM sweep_runs
GROUP BY sweep_id, label, agent, model, maze_generator, maze_size, factor_settings;

-- pass^k per cell over its observations (successes and failures; errors and running runs left out), split by the
-- settings as sweep_stats is; a cell of deterministic copies is one observation (its outcome for every k), and a
-- cell whose every run copies another cell's (frontier under a setting it ignores) adds nothing and is left out.
CREATE VIEW sweep_pass_k AS
WITH cells AS (
  SELECT sweep_id, label, maze_generator, maze_size, factor_settings, cell_index,
    count(*) FILTER (WHERE outcome_class IN ('success', 'failure'))   AS runs,
    count(*) FILTER (WHERE independent)                               AS n,
    count(*) FILTER (WHERE independent AND goal_found)                AS c,
    bool_and(deterministic) AND count(*) FILTER (WHERE outcome_class IN ('success', 'failure') AND NOT independent) > 0
                                                                      AS collapsed
  FROM sweep_runs GROUP BY sweep_id, label, maze_generator, maze_size, factor_settings, cell_index
)
SELECT sweep_id, label, maze_generator, maze_size, factor_settings AS settings, k, count(*) AS cells,
  avg(all_k_succeed(c, n, least(k, n::int))) AS pass_k,
  count(*) FILTER (WHERE collapsed) AS deterministic_cells
FROM cells, generate_series(1, greatest(1, (SELECT max(runs) FROM cells))::int) AS k
WHERE n > 0 AND (k <= n OR (collapsed AND k <= runs))
GROUP BY sweep_id, label, maze_generator, maze_size, factor_settings, k;

-- Two agents on the same maze, cell settings and repeat, both runs a success or failure (a pair with an error or a
-- running side is left out), paired by observation (copies pair once). settings: the cell's settings that reach
-- either agent, so frontier vs a model under two observation formats is two comparisons, one per format.
-- identical_a/b: that side is a model run whose trajectory equals another repeat's of its cell (flagged, still
-- counted); model_a/b: that side is a model run (the flag's denominator).
CREATE VIEW sweep_run_pairs AS
WITH runs AS (
  SELECT r.*, r.settings::text AS settings_key, coalesce(r.duplicate_of, r.experiment_id) AS observation
  FROM sweep_runs r WHERE r.outcome_class IN ('success', 'failure')
), pairs AS (
  SELECT a.sweep_id, a.label AS label_a, b.label AS label_b, a.maze_generator, a.maze_size, a.maze_seed,
         a.factor_settings || b.factor_settings AS pair_settings,
         a.observation AS experiment_a, b.observation AS experiment_b, count(*) AS run_pairs
  FROM runs a JOIN runs b ON a.sweep_id = b.sweep_id AND a.label < b.label
    AND a.maze_generator = b.maze_generator AND a.maze_size = b.maze_size AND a.maze_seed = b.maze_seed
    AND a.settings_key = b.settings_key AND a.repeat = b.repeat
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
)
SELECT p.sweep_id, p.label_a, p.label_b, p.maze_generator, p.maze_size, p.maze_seed, p.pair_settings AS settings,
  p.experiment_a, p.experiment_b, oa.goal_found AS ok_a, ob.goal_found AS ok_b,
  oa.efficiency AS eff_a, ob.efficiency AS eff_b, p.run_pairs,
  oa.identical_repeat AS identical_a, ob.identical_repeat AS identical_b,
  NOT oa.deterministic AS model_a, NOT ob.deterministic AS model_b
FROM pairs p
JOIN runs oa ON oa.experiment_id = p.experiment_a
JOIN runs ob ON ob.experiment_id = p.experiment_b;

-- The 2x2 table over counted pairs, per two agents and settings; copied_pairs: run pairs that were copies.
CREATE VIEW sweep_pairs AS
SELECT sweep_id, label_a, label_b, settings, count(*) AS pairs,
  count(*) FILTER (WHERE ok_a AND ok_b) AS both_solved,
  count(*) FILTER (WHERE ok_a AND NOT ok_b) AS only_a,
  count(*) FILTER (WHERE ok_b AND NOT ok_a) AS only_b,
  count(*) FILTER (WHERE NOT ok_a AND NOT ok_b) AS neither,
  mcnemar_exact_p(count(*) FILTER (WHERE ok_a AND NOT ok_b), count(*) FILTER (WHERE ok_b AND NOT ok_a)) AS mcnemar_p,
  (avg(eff_a - eff_b) FILTER (WHERE ok_a AND ok_b))::float8 AS mean_efficiency_diff,
  (sum(run_pairs) - count(*))::bigint AS copied_pairs
FROM sweep_run_pairs GROUP BY sweep_id, label_a, label_b, settings;
