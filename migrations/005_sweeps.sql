-- Sweeps (issue 7): a sweep file expands into cells (agent x maze x settings),
-- each run `repeats` times; every experiment knows its sweep cell, repeat and
-- attempt (a failed run is tried again as a new attempt; statistics use the
-- latest attempt of each run).

CREATE TABLE sweeps (
  id            text PRIMARY KEY,
  spec          jsonb NOT NULL,
  spec_hash     text NOT NULL,                 -- a sweep name never changes meaning: a different spec is refused
  spec_text     text NOT NULL,                 -- the file as written
  cells         integer NOT NULL,
  repeats       integer NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sweep_cells (
  sweep_id        text NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
  cell_index      integer NOT NULL,
  cell_key        text NOT NULL,
  label           text NOT NULL,               -- the agent's label: the model, else the agent
  agent           text NOT NULL,
  model           text,
  maze_generator  text NOT NULL,
  maze_size       integer NOT NULL,
  maze_seed       bigint NOT NULL,
  settings        jsonb NOT NULL,
  PRIMARY KEY (sweep_id, cell_index)
);

ALTER TABLE experiments ADD COLUMN sweep_id text REFERENCES sweeps(id);
ALTER TABLE experiments ADD COLUMN sweep_cell integer;
ALTER TABLE experiments ADD COLUMN sweep_repeat integer;
ALTER TABLE experiments ADD COLUMN sweep_attempt integer;
ALTER TABLE experiments ADD CONSTRAINT experiments_sweep_cell
  FOREIGN KEY (sweep_id, sweep_cell) REFERENCES sweep_cells (sweep_id, cell_index);
CREATE UNIQUE INDEX experiments_sweep_run ON experiments (sweep_id, sweep_cell, sweep_repeat, sweep_attempt) WHERE sweep_id IS NOT NULL;

-- The latest attempt of every run, with its cell and its summary.
CREATE VIEW sweep_runs AS
SELECT DISTINCT ON (e.sweep_id, e.sweep_cell, e.sweep_repeat)
  e.sweep_id, e.sweep_cell AS cell_index, e.sweep_repeat AS repeat, e.sweep_attempt AS attempt,
  c.cell_key, c.label, c.agent, c.model, c.maze_generator, c.maze_size, c.maze_seed, c.settings,
  s.experiment_id, s.status, s.goal_found, s.stop_reason, s.failure_reason, s.actions, s.optimal_moves, s.efficiency,
  s.tiles_seen, s.turns, s.invalid_actions, s.failed_moves, s.loop_cells, s.max_cell_visits, s.llm_calls,
  s.input_tokens, s.output_tokens, s.cost_usd, s.wall_seconds, s.stuck_signals
FROM experiments e
JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
JOIN experiment_summary s ON s.experiment_id = e.id
WHERE e.sweep_id IS NOT NULL
ORDER BY e.sweep_id, e.sweep_cell, e.sweep_repeat, e.sweep_attempt DESC;

-- Wilson score interval for k successes in n trials (95%: z = 1.959964); null for n = 0.
CREATE FUNCTION wilson_low(k bigint, n bigint, z double precision DEFAULT 1.959963984540054) RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN n = 0 THEN NULL WHEN k = 0 THEN 0.0 ELSE greatest(0.0,
    ((k::float8 / n) + z * z / (2 * n) - z * sqrt((k::float8 / n) * (1 - k::float8 / n) / n + z * z / (4.0 * n * n))) / (1 + z * z / n)) END
$$;
CREATE FUNCTION wilson_high(k bigint, n bigint, z double precision DEFAULT 1.959963984540054) RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN n = 0 THEN NULL WHEN k = n THEN 1.0 ELSE least(1.0,
    ((k::float8 / n) + z * z / (2 * n) + z * sqrt((k::float8 / n) * (1 - k::float8 / n) / n + z * z / (4.0 * n * n))) / (1 + z * z / n)) END
$$;

-- C(c, k) / C(n, k): the chance that k of n trials drawn without replacement all succeed, c of n having succeeded.
CREATE FUNCTION all_k_succeed(c bigint, n bigint, k integer) RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN k > n OR n = 0 THEN NULL WHEN c < k THEN 0.0
              ELSE (SELECT exp(sum(ln((c - i)::float8 / (n - i)))) FROM generate_series(0, k - 1) AS i) END
$$;

CREATE FUNCTION ln_choose(n bigint, k bigint) RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce((SELECT sum(ln((n - k + i)::float8 / i)) FROM generate_series(1, k) AS i), 0.0)
$$;

-- Exact two-sided McNemar test on the discordant pairs b and c: min(1, 2 * P(X <= min(b, c))), X ~ Binomial(b + c, 1/2).
CREATE FUNCTION mcnemar_exact_p(b bigint, c bigint) RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN b + c = 0 THEN 1.0 ELSE least(1.0, 2 * (
    SELECT sum(exp(ln_choose(b + c, i) - (b + c) * ln(2.0::float8))) FROM generate_series(0, least(b, c)) AS i)) END
$$;

-- What a paper prints, per sweep x agent x maze generator x size.
CREATE VIEW sweep_stats AS
SELECT sweep_id, label, agent, model, maze_generator, maze_size,
  count(*)                                                         AS n,
  count(*) FILTER (WHERE goal_found)                               AS successes,
  round(avg(goal_found::int)::numeric, 4)                          AS success_rate,
  round(wilson_low(count(*) FILTER (WHERE goal_found), count(*))::numeric, 4)  AS success_low95,
  round(wilson_high(count(*) FILTER (WHERE goal_found), count(*))::numeric, 4) AS success_high95,
  round(avg(efficiency)::numeric, 4)                               AS mean_efficiency,
  round((percentile_cont(0.5) WITHIN GROUP (ORDER BY efficiency))::numeric, 4) AS median_efficiency,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY actions) FILTER (WHERE goal_found) AS median_actions_to_success,
  round((sum(invalid_actions)::numeric / nullif(sum(actions), 0)), 4) AS invalid_action_rate,
  round(avg((loop_cells > 0)::int)::numeric, 4)                    AS loop_rate,
  round(avg(coalesce(input_tokens, 0) + coalesce(output_tokens, 0))::numeric, 1) AS tokens_per_experiment,
  round((sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0))::numeric / nullif(count(*) FILTER (WHERE goal_found), 0)), 1) AS tokens_per_success,
  round(avg(cost_usd)::numeric, 6)                                 AS cost_per_experiment,
  round((sum(cost_usd) / nullif(count(*) FILTER (WHERE goal_found), 0))::numeric, 6) AS cost_per_success,
  count(*) FILTER (WHERE status NOT IN ('completed', 'timeout', 'stuck')) AS unfinished
FROM sweep_runs
GROUP BY sweep_id, label, agent, model, maze_generator, maze_size;

-- pass^k over repeats (as in tau-bench): per cell, the chance that k repeats drawn from its n all succeed,
-- averaged over the cells of the group; k runs from 1 to the number of repeats.
CREATE VIEW sweep_pass_k AS
WITH cells AS (
  SELECT sweep_id, label, maze_generator, maze_size, cell_index, count(*) AS n, count(*) FILTER (WHERE goal_found) AS c
  FROM sweep_runs GROUP BY sweep_id, label, maze_generator, maze_size, cell_index
)
SELECT sweep_id, label, maze_generator, maze_size, k, count(*) AS cells, round(avg(all_k_succeed(c, n, k))::numeric, 4) AS pass_k
FROM cells, generate_series(1, (SELECT max(n) FROM cells)::int) AS k
WHERE k <= n
GROUP BY sweep_id, label, maze_generator, maze_size, k;

-- Two agents on the same mazes, settings and repeats: the 2x2 table of outcomes, McNemar's exact p and the mean
-- efficiency difference (a minus b, over pairs both solved).
CREATE VIEW sweep_pairs AS
WITH runs AS (
  SELECT r.*, r.settings::text AS settings_key FROM sweep_runs r
), pairs AS (
  SELECT a.sweep_id, a.label AS label_a, b.label AS label_b, a.goal_found AS ok_a, b.goal_found AS ok_b,
         a.efficiency AS eff_a, b.efficiency AS eff_b
  FROM runs a JOIN runs b ON a.sweep_id = b.sweep_id AND a.label < b.label
    AND a.maze_generator = b.maze_generator AND a.maze_size = b.maze_size AND a.maze_seed = b.maze_seed
    AND a.settings_key = b.settings_key AND a.repeat = b.repeat
)
SELECT sweep_id, label_a, label_b, count(*) AS pairs,
  count(*) FILTER (WHERE ok_a AND ok_b) AS both_solved,
  count(*) FILTER (WHERE ok_a AND NOT ok_b) AS only_a,
  count(*) FILTER (WHERE ok_b AND NOT ok_a) AS only_b,
  count(*) FILTER (WHERE NOT ok_a AND NOT ok_b) AS neither,
  mcnemar_exact_p(count(*) FILTER (WHERE ok_a AND NOT ok_b), count(*) FILTER (WHERE ok_b AND NOT ok_a)) AS mcnemar_p,
  round(avg(eff_a - eff_b) FILTER (WHERE ok_a AND ok_b)::numeric, 4) AS mean_efficiency_diff
FROM pairs GROUP BY sweep_id, label_a, label_b;
