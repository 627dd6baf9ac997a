-- The flight recorder (core/providers/llm/recorded-model.ts): every model call's request and reply, so a run can be
-- replayed with no model server. Content-addressed: a part of a request (the sampling parameters, the system prompt,
-- the tool schema, one message) and a reply are each stored once, as canonical JSON text under its sha256, however
-- many calls send it; a request is the manifest of its parts' hashes, under a key over the provider, the model, the
-- version the server reported and those hashes. Each call lists its exchanges in order (a workflow step is one), and
-- who answered it: the model's server, the record of the run a replay or fork repeats, or the cache (config.cache).
CREATE TABLE model_bodies (
  sha256  text PRIMARY KEY,
  body    text NOT NULL
);

CREATE TABLE model_requests (
  request_key  text PRIMARY KEY,
  manifest     jsonb NOT NULL
);

CREATE TABLE model_exchanges (
  experiment_id  text NOT NULL,
  turn_number    integer NOT NULL,
  call_index     integer NOT NULL,
  seq            integer NOT NULL,          -- order among the call's model requests (a workflow's steps)
  request_key    text NOT NULL,
  reply_sha256   text NOT NULL,
  answered_by    text NOT NULL CHECK (answered_by IN ('model', 'replay', 'cache')),
  recorded_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (experiment_id, turn_number, call_index, seq),
  FOREIGN KEY (experiment_id, turn_number, call_index)
    REFERENCES llm_calls (experiment_id, turn_number, call_index) ON DELETE CASCADE
);
CREATE INDEX model_exchanges_by_request ON model_exchanges (request_key);

-- A replay names the run it replays (its trajectory hash must equal that run's); a fork, the run it continues and
-- the step after which it does (its steps up to that one are the parent's: ariadne fork).
ALTER TABLE experiments
  ADD COLUMN replay_of text REFERENCES experiments (id) ON DELETE SET NULL,
  ADD COLUMN forked_from text REFERENCES experiments (id) ON DELETE SET NULL,
  ADD COLUMN fork_step integer CHECK (fork_step > 0);
CREATE INDEX experiments_replays ON experiments (replay_of) WHERE replay_of IS NOT NULL;
CREATE INDEX experiments_forks ON experiments (forked_from) WHERE forked_from IS NOT NULL;

-- A run whose every model call the cache answered (config.cache) repeats answers already counted: sweep_runs marks it
-- from_cache and never counts it (in no denominator, never independent), as an error is not. Otherwise the view is
-- migration 027's.
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
         ELSE 'failure' END AS outcome_class,
    EXISTS (SELECT 1 FROM model_exchanges x WHERE x.experiment_id = e.id)
      AND NOT EXISTS (SELECT 1 FROM model_exchanges x WHERE x.experiment_id = e.id AND x.answered_by <> 'cache')
      AS from_cache
  FROM experiments e
  JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
  JOIN experiment_summary s ON s.experiment_id = e.id
  WHERE e.sweep_id IS NOT NULL
  ORDER BY e.sweep_id, e.sweep_cell, e.sweep_repeat, e.sweep_attempt DESC
), keyed AS (
  SELECT l.*, outcome_class IN ('success', 'failure') AND NOT from_cache AS counted,
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
    AND count(*) OVER (PARTITION BY sweep_id, cell_index, counted, trajectory_hash) > 1 AS identical_repeat,
  from_cache
FROM keyed
WINDOW w AS (PARTITION BY sweep_id, label, maze_generator, maze_size, factor_settings, observation_key
             ORDER BY cell_index, repeat);
