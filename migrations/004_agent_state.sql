-- Agent state (issue 6): the agent's phase, every phase transition, and the
-- stuck detectors' signals, written in the turn's single statement.

ALTER TABLE experiments DROP CONSTRAINT experiments_status_check;
ALTER TABLE experiments ADD CONSTRAINT experiments_status_check
  CHECK (status IN ('running', 'completed', 'timeout', 'failed', 'stuck'));
-- The agent's own memory between turns: a workflow's state, step and variables (null for other agents).
ALTER TABLE experiments ADD COLUMN agent_memory jsonb;
-- A workflow agent's steps behind each reply (which ran, which were skipped or failed, and why).
ALTER TABLE llm_calls ADD COLUMN workflow_steps jsonb;

ALTER TABLE turns ADD COLUMN agent_phase text;        -- phase after the turn
-- The agent monitor's snapshot after the turn (engine/agent-monitor.ts MonitorSnapshot): how the state survives
-- between turns without Lambda memory. Kept with the turn (an insert), not on the experiment row, which every
-- turn updates: a wider row there would be compressed or moved to TOAST again on every update.
ALTER TABLE turns ADD COLUMN agent_state jsonb;
ALTER TABLE turns ADD COLUMN halted_by jsonb;          -- {detector, detail, step} when the halt policy ended the run here

CREATE TABLE agent_state_transitions (
  experiment_id text NOT NULL,
  turn_number   integer NOT NULL,
  seq           integer NOT NULL,                      -- order within the turn
  machine       text NOT NULL DEFAULT 'agent',         -- agent: the phase (engine/agent-monitor.ts); workflow: the prompt workflow's state
  step_number   integer NOT NULL,                      -- actions taken when it happened
  from_phase    text NOT NULL,
  to_phase      text NOT NULL,
  cause         text NOT NULL,                         -- the outcome, detector or request that caused it
  refused       boolean NOT NULL,                      -- not in the transition table: logged, phase unchanged
  recorded_at   timestamptz NOT NULL,
  PRIMARY KEY (experiment_id, turn_number, seq),
  FOREIGN KEY (experiment_id, turn_number) REFERENCES turns (experiment_id, turn_number) ON DELETE CASCADE
);

CREATE TABLE stuck_signals (
  experiment_id text NOT NULL,
  turn_number   integer NOT NULL,
  seq           integer NOT NULL,
  step_number   integer NOT NULL,
  detector      text NOT NULL,                         -- repeated_failed_move | oscillation | no_new_tiles | recall_spam | idle_turns | cell_revisits
  detail        text NOT NULL,
  policy        text NOT NULL,                         -- observe | advise | halt, as configured for the experiment
  recorded_at   timestamptz NOT NULL,
  PRIMARY KEY (experiment_id, turn_number, seq),
  FOREIGN KEY (experiment_id, turn_number) REFERENCES turns (experiment_id, turn_number) ON DELETE CASCADE
);

-- Stuck signals per experiment: how many, which detectors, when first.
CREATE VIEW experiment_stuck_signals AS
SELECT e.id AS experiment_id, e.agent, e.model, e.status, e.config ->> 'stuck_policy' AS stuck_policy,
       count(s.*)                                              AS signals,
       coalesce(array_agg(DISTINCT s.detector) FILTER (WHERE s.detector IS NOT NULL), '{}') AS detectors,
       min(s.step_number)                                      AS first_signal_step,
       (array_agg(s.detector ORDER BY s.turn_number, s.seq))[1] AS first_detector,
       (array_agg(s.detail ORDER BY s.turn_number, s.seq))[1]   AS first_detail
FROM experiments e
LEFT JOIN stuck_signals s ON s.experiment_id = e.id
GROUP BY e.id;

-- The phase timeline: each accepted transition with how long the previous phase lasted.
CREATE VIEW agent_phase_timeline AS
SELECT experiment_id, turn_number, seq, step_number, from_phase, to_phase, cause, recorded_at,
       step_number - coalesce(lag(step_number) OVER w, 0) AS actions_in_previous_phase
FROM agent_state_transitions
WHERE NOT refused AND machine = 'agent'
WINDOW w AS (PARTITION BY experiment_id ORDER BY turn_number, seq);

-- The summary gains the stuck policy, the agent's phase and its stuck signals (columns appended).
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
  coalesce(a.invalid_actions, 0)         AS invalid_actions,
  coalesce(a.failed_moves, 0)            AS failed_moves,
  coalesce(a.recall_calls, 0)            AS recall_calls,
  coalesce(a.refused_calls, 0)           AS refused_calls,
  coalesce(v.loop_cells, 0)              AS loop_cells,
  coalesce(v.max_visits, 0)              AS max_cell_visits,
  coalesce(t.llm_calls, 0)               AS llm_calls,
  t.input_tokens, t.output_tokens, t.cost_usd,
  e.started_at, e.completed_at,
  round(EXTRACT(epoch FROM (coalesce(e.completed_at, now()) - e.started_at))::numeric, 3) AS wall_seconds,
  -- added by 004: the agent's phase and the stuck detectors
  e.config ->> 'stuck_policy'            AS stuck_policy,
  coalesce(lt.agent_phase, 'exploring')  AS agent_phase,
  coalesce(s.signals, 0)                 AS stuck_signals,
  s.first_detector                       AS first_stuck_detector,
  s.first_step                           AS first_stuck_step
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
) t ON true
LEFT JOIN LATERAL (
  SELECT agent_phase FROM turns WHERE experiment_id = e.id ORDER BY turn_number DESC LIMIT 1
) lt ON true
LEFT JOIN LATERAL (
  SELECT count(*) AS signals, (array_agg(detector ORDER BY turn_number, seq))[1] AS first_detector, min(step_number) AS first_step
  FROM stuck_signals WHERE experiment_id = e.id
) s ON true;
