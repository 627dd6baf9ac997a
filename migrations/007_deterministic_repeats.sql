-- Deterministic repeats are one observation. A baseline agent is a pure function of its agent, its agent seed (if
-- it uses one), the maze and the resolved config: five repeats of `frontier` on one maze are the same run five
-- times, and counting them as five trials narrowed the Wilson interval and fed pass^k and McNemar with copies.
-- Runs now carry `deterministic`, `independent` and `duplicate_of`; intervals, pass^k and pairs count each
-- observation once, while `n` and `successes` still count every run.

-- The one list this needs: baseline agents whose moves do not depend on the agent seed. Sweeps give every repeat
-- its own seed, so only these collapse across repeats (frontier: lambdas/providers/frontier-agent.ts never reads
-- it; random: random-agent.ts draws every move from it). Which agents are deterministic at all is read from what
-- is stored (provider 'baseline': no model call), so a new baseline is at worst counted per seed, never collapsed
-- by mistake. test/repeats.test.ts plays every baseline with two seeds and checks this list against it.
CREATE FUNCTION agent_ignores_seed(agent text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT agent IN ('frontier')
$$;

-- sweep_runs gains, at the end:
--   deterministic: the run's outcome follows from what is stored (a baseline; a model is sampled, even at
--                  temperature 0, so an LLM run never is, however alike its repeats look);
--   independent:   an observation of its own: any non-deterministic run, or the first of a group of deterministic
--                  runs with the same agent, maze (content hash), config snapshot and agent seed (unless the agent
--                  ignores it), within one agent label, generator and size. The first is the finished one with
--                  the lowest cell and repeat, so an interrupted copy never stands for a finished one;
--   duplicate_of:  the experiment an exact copy repeats (null when independent).
-- A deterministic run can still differ from its copy by wall-clock time (max_duration_minutes); a copy is then
-- counted as its first, which is what the run would have done on a machine that was not busy.
CREATE OR REPLACE VIEW sweep_runs AS
WITH latest AS (
  SELECT DISTINCT ON (e.sweep_id, e.sweep_cell, e.sweep_repeat)
    e.sweep_id, e.sweep_cell AS cell_index, e.sweep_repeat AS repeat, e.sweep_attempt AS attempt,
    c.cell_key, c.label, c.agent, c.model, c.maze_generator, c.maze_size, c.maze_seed, c.settings,
    s.experiment_id, s.status, s.goal_found, s.stop_reason, s.failure_reason, s.actions, s.optimal_moves,
    s.efficiency, s.tiles_seen, s.turns, s.invalid_actions, s.failed_moves, s.loop_cells, s.max_cell_visits,
    s.llm_calls, s.input_tokens, s.output_tokens, s.cost_usd, s.wall_seconds, s.stuck_signals,
    e.provider = 'baseline' AS deterministic,
    CASE WHEN e.provider = 'baseline'
         THEN jsonb_build_array(e.agent, s.maze_hash, e.config,
                                CASE WHEN NOT agent_ignores_seed(e.agent) THEN e.agent_seed END)
         ELSE to_jsonb(e.id) END AS observation_key
  FROM experiments e
  JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
  JOIN experiment_summary s ON s.experiment_id = e.id
  WHERE e.sweep_id IS NOT NULL
  ORDER BY e.sweep_id, e.sweep_cell, e.sweep_repeat, e.sweep_attempt DESC
)
SELECT sweep_id, cell_index, repeat, attempt,
  cell_key, label, agent, model, maze_generator, maze_size, maze_seed, settings,
  experiment_id, status, goal_found, stop_reason, failure_reason, actions, optimal_moves, efficiency,
  tiles_seen, turns, invalid_actions, failed_moves, loop_cells, max_cell_visits, llm_calls,
  input_tokens, output_tokens, cost_usd, wall_seconds, stuck_signals,
  deterministic,
  experiment_id = first_value(experiment_id) OVER w AS independent,
  nullif(first_value(experiment_id) OVER w, experiment_id) AS duplicate_of
FROM latest
WINDOW w AS (PARTITION BY sweep_id, label, maze_generator, maze_size, observation_key
             ORDER BY status IN ('running', 'failed'), cell_index, repeat);

-- The success rate and its Wilson interval are over the independent observations (a copy adds no information);
-- n and successes still count every run, and three columns are appended: n_independent, successes_independent,
-- and deterministic_repeats (the runs counted as copies: n - n_independent). The other columns (efficiency,
-- actions, loops, tokens, cost) stay over every run: a copy repeats its first's values, so with equal repeats per
-- cell those means are unchanged, and no interval is drawn from them here.
CREATE OR REPLACE VIEW sweep_stats AS
SELECT sweep_id, label, agent, model, maze_generator, maze_size,
  count(*)                                                         AS n,
  count(*) FILTER (WHERE goal_found)                               AS successes,
  round((count(*) FILTER (WHERE goal_found AND independent))::numeric
        / nullif(count(*) FILTER (WHERE independent), 0), 4)       AS success_rate,
  round(wilson_low(count(*) FILTER (WHERE goal_found AND independent),
                   count(*) FILTER (WHERE independent))::numeric, 4)  AS success_low95,
  round(wilson_high(count(*) FILTER (WHERE goal_found AND independent),
                    count(*) FILTER (WHERE independent))::numeric, 4) AS success_high95,
  round(avg(efficiency)::numeric, 4)                               AS mean_efficiency,
  round((percentile_cont(0.5) WITHIN GROUP (ORDER BY efficiency))::numeric, 4) AS median_efficiency,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY actions) FILTER (WHERE goal_found) AS median_actions_to_success,
  round((sum(invalid_actions)::numeric / nullif(sum(actions), 0)), 4) AS invalid_action_rate,
  round(avg((loop_cells > 0)::int)::numeric, 4)                    AS loop_rate,
  round(avg(coalesce(input_tokens, 0) + coalesce(output_tokens, 0))::numeric, 1) AS tokens_per_experiment,
  round((sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0))::numeric
         / nullif(count(*) FILTER (WHERE goal_found), 0)), 1)      AS tokens_per_success,
  round(avg(cost_usd)::numeric, 6)                                 AS cost_per_experiment,
  round((sum(cost_usd) / nullif(count(*) FILTER (WHERE goal_found), 0))::numeric, 6) AS cost_per_success,
  count(*) FILTER (WHERE status NOT IN ('completed', 'timeout', 'stuck')) AS unfinished,
  count(*) FILTER (WHERE independent)                              AS n_independent,
  count(*) FILTER (WHERE independent AND goal_found)               AS successes_independent,
  count(*) FILTER (WHERE NOT independent)                          AS deterministic_repeats
FROM sweep_runs
GROUP BY sweep_id, label, agent, model, maze_generator, maze_size;

-- pass^k per cell over its independent observations: C(c,k)/C(n,k) of the n observations, c of them successes.
-- A cell whose repeats collapsed (deterministic) is one observation, and k repeats of it all succeed exactly
-- when it did: its pass^k is its outcome, 1 or 0, for every k up to the repeats run (computed as all of its
-- observations succeeding). That is the honest value for an agent with no randomness: pass^k cannot fall with k,
-- and it is not estimated from copies. A cell whose every run copies another cell's adds nothing and is left out;
-- `cells` counts the rest, and the appended `deterministic_cells` says how many of them are such single
-- observations (their pass^k is flat by construction, not by measured consistency).
CREATE OR REPLACE VIEW sweep_pass_k AS
WITH cells AS (
  SELECT sweep_id, label, maze_generator, maze_size, cell_index,
    count(*)                                                        AS runs,
    count(*) FILTER (WHERE independent)                             AS n,
    count(*) FILTER (WHERE independent AND goal_found)              AS c,
    bool_and(deterministic) AND count(*) FILTER (WHERE NOT independent) > 0 AS collapsed
  FROM sweep_runs GROUP BY sweep_id, label, maze_generator, maze_size, cell_index
)
SELECT sweep_id, label, maze_generator, maze_size, k, count(*) AS cells,
  round(avg(all_k_succeed(c, n, least(k, n::int)))::numeric, 4) AS pass_k,
  count(*) FILTER (WHERE collapsed) AS deterministic_cells
FROM cells, generate_series(1, (SELECT max(runs) FROM cells)::int) AS k
WHERE n > 0 AND (k <= n OR (collapsed AND k <= runs))
GROUP BY sweep_id, label, maze_generator, maze_size, k;

-- Two agents on the same maze, settings and repeat, paired by observation: runs that are copies pair once, since
-- McNemar's test on copied pairs is the same overcount as a Wilson interval on copies. A deterministic agent
-- against one with randomness still gives one pair per repeat (the other side differs each time). One row per
-- counted pair, with the number of run pairs it stands for; `ariadne compare` bootstraps over these rows.
CREATE VIEW sweep_run_pairs AS
WITH runs AS (
  SELECT r.*, r.settings::text AS settings_key, coalesce(r.duplicate_of, r.experiment_id) AS observation
  FROM sweep_runs r
), pairs AS (
  SELECT a.sweep_id, a.label AS label_a, b.label AS label_b, a.maze_generator, a.maze_size, a.maze_seed,
         a.settings_key, a.observation AS experiment_a, b.observation AS experiment_b, count(*) AS run_pairs
  FROM runs a JOIN runs b ON a.sweep_id = b.sweep_id AND a.label < b.label
    AND a.maze_generator = b.maze_generator AND a.maze_size = b.maze_size AND a.maze_seed = b.maze_seed
    AND a.settings_key = b.settings_key AND a.repeat = b.repeat
  GROUP BY a.sweep_id, a.label, b.label, a.maze_generator, a.maze_size, a.maze_seed, a.settings_key,
           a.observation, b.observation
)
SELECT p.sweep_id, p.label_a, p.label_b, p.maze_generator, p.maze_size, p.maze_seed, p.settings_key::jsonb AS settings,
  p.experiment_a, p.experiment_b, oa.goal_found AS ok_a, ob.goal_found AS ok_b,
  oa.efficiency AS eff_a, ob.efficiency AS eff_b, p.run_pairs
FROM pairs p
JOIN runs oa ON oa.experiment_id = p.experiment_a
JOIN runs ob ON ob.experiment_id = p.experiment_b;

-- The 2x2 table over counted pairs; the appended copied_pairs says how many run pairs were copies left out.
CREATE OR REPLACE VIEW sweep_pairs AS
SELECT sweep_id, label_a, label_b, count(*) AS pairs,
  count(*) FILTER (WHERE ok_a AND ok_b) AS both_solved,
  count(*) FILTER (WHERE ok_a AND NOT ok_b) AS only_a,
  count(*) FILTER (WHERE ok_b AND NOT ok_a) AS only_b,
  count(*) FILTER (WHERE NOT ok_a AND NOT ok_b) AS neither,
  mcnemar_exact_p(count(*) FILTER (WHERE ok_a AND NOT ok_b), count(*) FILTER (WHERE ok_b AND NOT ok_a)) AS mcnemar_p,
  round(avg(eff_a - eff_b) FILTER (WHERE ok_a AND ok_b)::numeric, 4) AS mean_efficiency_diff,
  (sum(run_pairs) - count(*))::bigint AS copied_pairs
FROM sweep_run_pairs GROUP BY sweep_id, label_a, label_b;
