-- The human baseline (core/providers/human-agent.ts): a person plays a maze through the same turn engine as every
-- agent and is shown exactly what a model is shown, from `ariadne play` or the play page of `ariadne view --play`.
-- Such a run is agent 'human', recorded with provider 'human' (its turns run as a baseline's, with no model call, but
-- it is no deterministic baseline: sweep_runs' `deterministic` stays provider = 'baseline') and with:
--   player      who played (a player id the person gives); set for agent 'human' and only for it
--   suite       the maze suite the maze comes from (ariadne play --suite ariadne-mazes/v1 --maze-index N), and
--   suite_maze  the maze's index in the suite's list: a suite's human reference is its runs by suite (suite show
--               --humans, stats beside a sweep on the suite)
ALTER TABLE experiments
  ADD COLUMN player text CHECK (player ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$'),
  ADD COLUMN suite text,
  ADD COLUMN suite_maze integer CHECK (suite_maze >= 0),
  ADD CONSTRAINT experiments_player_is_human CHECK ((agent = 'human') = (player IS NOT NULL)),
  ADD CONSTRAINT experiments_suite_maze_whole CHECK ((suite IS NULL) = (suite_maze IS NULL));
CREATE INDEX experiments_suite_runs ON experiments (suite, suite_maze) WHERE suite IS NOT NULL;

-- experiment_summary as migration 017 defined it, with the player and the suite maze after its columns (a view
-- keeps its columns' order: new ones go last).
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
  k.first_stuck_step,
  e.player,
  e.suite,
  e.suite_maze
FROM experiments e
JOIN mazes m ON m.id = e.maze_id
LEFT JOIN experiment_totals k ON k.experiment_id = e.id;

-- What reaches a person (provider 'human'): the game's rules, and what a model is shown, remembers and is offered
-- (prompt_version, observation, memory and its sizes, recall_tool and its limits), which the person is shown the
-- same; not how a model is sampled, parsed, guarded, retried, budgeted or probed. Migration 033's function with
-- 'human' added (reports/setting-reach.ts is the same list).
CREATE OR REPLACE FUNCTION unreached_settings(provider text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY['prices', 'history_event_budget', 'provider_outage_wait_minutes']
    || CASE WHEN provider = 'ollama' THEN ARRAY[]::text[] ELSE ARRAY['ollama'] END
    || CASE WHEN provider = 'bedrock' THEN ARRAY[]::text[] ELSE ARRAY['bedrock'] END
    || CASE WHEN provider = 'openai' THEN ARRAY[]::text[] ELSE ARRAY['openai'] END
    || CASE WHEN provider IN ('bedrock', 'openai') THEN ARRAY[]::text[] ELSE ARRAY['context_windows'] END
    || CASE WHEN provider <> 'baseline' THEN ARRAY[]::text[] ELSE ARRAY['prompt_version', 'observation', 'memory',
         'memory_history_actions', 'memory_conversation_tokens', 'recall_tool', 'max_recall_actions',
         'recall_interval'] END
    || CASE WHEN provider NOT IN ('baseline', 'human') THEN ARRAY[]::text[] ELSE ARRAY['context_policy', 'retry',
         'rate_limits', 'temperature', 'top_p', 'max_output_tokens', 'model_seed', 'strict_tool_calls', 'max_cost_usd',
         'max_tokens', 'belief_probe_every'] END
$$;
