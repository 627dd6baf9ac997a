-- Agent state (issue 6): the agent's phase, every phase transition, and the
-- stuck detectors' signals, written in the turn's single statement.

ALTER TABLE experiments DROP CONSTRAINT experiments_status_check;
ALTER TABLE experiments ADD CONSTRAINT experiments_status_check
  CHECK (status IN ('running', 'completed', 'timeout', 'failed', 'stuck'));
-- The agent monitor's snapshot after the last committed turn (engine/agent-monitor.ts MonitorSnapshot);
-- null before the first turn. It is how the state survives between turns without Lambda memory.
ALTER TABLE experiments ADD COLUMN agent_state jsonb;

ALTER TABLE turns ADD COLUMN agent_phase text;        -- phase after the turn
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
