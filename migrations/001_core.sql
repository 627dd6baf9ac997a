-- Core tables: mazes, experiments, turns, actions.
-- A turn and its actions are written in one statement keyed by
-- (experiment_id, turn_number); see lambdas/store/turns.ts.

CREATE TABLE mazes (
  id                      bigserial PRIMARY KEY,
  content_hash            text NOT NULL UNIQUE,
  generator               text NOT NULL,
  seed                    bigint,
  width                   integer NOT NULL CHECK (width > 0),
  height                  integer NOT NULL CHECK (height > 0),
  grid                    jsonb NOT NULL,            -- grid[y][x]: 0 empty, 1 wall, 2 goal
  start_x                 integer NOT NULL,
  start_y                 integer NOT NULL,
  goal_x                  integer NOT NULL,
  goal_y                  integer NOT NULL,
  shortest_path           integer NOT NULL,          -- BFS moves start -> goal
  shortest_path_to_sight  integer NOT NULL,          -- BFS moves start -> nearest cell seeing the goal (vision 3, rays)
  created_at              timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE experiments (
  id               text PRIMARY KEY,
  execution_arns   text[] NOT NULL DEFAULT '{}',
  agent            text NOT NULL,                    -- random | frontier | ollama | bedrock
  provider         text NOT NULL,                    -- baseline | ollama | bedrock
  model            text,
  prompt_version   text,
  prompt_hash      text,
  prompt_text      text,
  agent_seed       bigint NOT NULL,
  maze_id          bigint NOT NULL REFERENCES mazes(id),
  config           jsonb NOT NULL,                   -- the full resolved config snapshot
  optimal_moves    integer NOT NULL,                 -- optimum under this experiment's success rule and vision
  status           text NOT NULL DEFAULT 'running'
                   CHECK (status IN ('running', 'completed', 'timeout', 'failed')),
  goal_found       boolean NOT NULL DEFAULT false,
  stop_reason      text,                             -- goal_found | max_moves | max_duration | error
  failure_reason   text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz NOT NULL DEFAULT now(),
  completed_at     timestamptz,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  position_x       integer NOT NULL,
  position_y       integer NOT NULL,
  turns_completed  integer NOT NULL DEFAULT 0,
  actions_taken    integer NOT NULL DEFAULT 0,
  tiles_seen       integer NOT NULL DEFAULT 0
  -- What the agent knows (seen tiles, recall window) is not stored here: it is
  -- derived from actions.vision, so it can never disagree with the log.
);
CREATE INDEX experiments_status ON experiments (status);
CREATE INDEX experiments_maze ON experiments (maze_id);

CREATE TABLE turns (
  experiment_id       text NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  turn_number         integer NOT NULL CHECK (turn_number > 0),
  started_at          timestamptz NOT NULL,
  ended_at            timestamptz NOT NULL,
  stop_reason         text NOT NULL,                 -- goal_found | action_limit | no_tool_calls | max_moves
  actions_executed    integer NOT NULL,
  calls_refused       integer NOT NULL,
  llm_calls           integer NOT NULL DEFAULT 0,
  input_tokens        integer,                       -- as the provider reported; null for baselines
  output_tokens       integer,
  cost_usd            numeric(14, 6),
  latency_ms          integer NOT NULL DEFAULT 0,
  goal_found          boolean NOT NULL,
  actions_taken_after integer NOT NULL,
  tiles_seen_after    integer NOT NULL,
  position_x_after    integer NOT NULL,
  position_y_after    integer NOT NULL,
  PRIMARY KEY (experiment_id, turn_number)
);

CREATE TABLE actions (
  experiment_id    text NOT NULL,
  turn_number      integer NOT NULL,
  call_index       integer NOT NULL,                 -- order of the call within the turn
  step_number      integer,                          -- global 1-based number; null when not executed
  tool             text NOT NULL,
  arguments        jsonb,
  reasoning        text,
  assistant_text   text,
  parsed_from_text boolean NOT NULL DEFAULT false,
  executed         boolean NOT NULL,
  success          boolean NOT NULL,
  outcome          text NOT NULL,
  message          text NOT NULL,
  from_x           integer NOT NULL,
  from_y           integer NOT NULL,
  to_x             integer NOT NULL,
  to_y             integer NOT NULL,
  vision           jsonb NOT NULL,                   -- [[x, y, tile], ...] seen after the action
  new_tiles_seen   integer NOT NULL,
  recalled         jsonb,                            -- tiles returned by recall_all
  goal_found       boolean NOT NULL,
  PRIMARY KEY (experiment_id, turn_number, call_index),
  FOREIGN KEY (experiment_id, turn_number) REFERENCES turns (experiment_id, turn_number) ON DELETE CASCADE
);
CREATE UNIQUE INDEX actions_step ON actions (experiment_id, step_number) WHERE step_number IS NOT NULL;

-- One row per experiment with the numbers a researcher reads first.
CREATE VIEW experiment_summary AS
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
  coalesce(a.invalid_actions, 0)         AS invalid_actions,
  coalesce(a.failed_moves, 0)            AS failed_moves,
  coalesce(a.recall_calls, 0)            AS recall_calls,
  coalesce(a.refused_calls, 0)           AS refused_calls,
  coalesce(v.loop_cells, 0)              AS loop_cells,
  coalesce(v.max_visits, 0)              AS max_cell_visits,
  coalesce(t.llm_calls, 0)               AS llm_calls,
  t.input_tokens, t.output_tokens, t.cost_usd,
  e.started_at, e.completed_at,
  round(EXTRACT(epoch FROM (coalesce(e.completed_at, now()) - e.started_at))::numeric, 3) AS wall_seconds
FROM experiments e
JOIN mazes m ON m.id = e.maze_id
LEFT JOIN LATERAL (
  SELECT count(*) FILTER (WHERE outcome IN ('unknown_tool', 'invalid_arguments')) AS invalid_actions,
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
         sum(output_tokens) AS output_tokens, sum(cost_usd) AS cost_usd
  FROM turns WHERE experiment_id = e.id
) t ON true;
