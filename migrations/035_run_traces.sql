-- A finished run's executed actions packed small, for the readers of every move of a sweep (the behaviour analytics,
-- results/run-moves.ts; the viewer's heatmap): finalize (core/store/pg-store.ts) writes them from the run's actions
-- in its own statement, so such a read takes 10 bytes a step from here instead of scanning the wide actions table.
-- A row holds 2,000 steps (20,000 bytes; 40 KB as Postgres prints bytea, under a Data API row). A running run has
-- none: its moves are read from actions. Runs finished before this migration are packed by it.

-- A run's executed actions in chunks of 2,000 steps, each action as 10 bytes, big-endian: kind * 2^20 + y * 1024 + x
-- (int4; kind 0 moved, 1 blocked by a wall, 2 by the edge, 3 anything else), new tiles seen (int2, at most 32,767),
-- step number (int4); in no particular order within a chunk. What finalize stores, and what a running run is read as.
CREATE VIEW run_trace_chunks AS
SELECT experiment_id, (step_number - 1) / 2000 AS chunk,
       string_agg(int4send((CASE outcome WHEN 'moved' THEN 0 WHEN 'blocked_by_wall' THEN 1
                            WHEN 'blocked_by_edge' THEN 2 ELSE 3 END) * 1048576 + to_y * 1024 + to_x)
                  || int2send(least(new_tiles_seen, 32767)::int2) || int4send(step_number), ''::bytea) AS actions
FROM actions WHERE step_number IS NOT NULL
GROUP BY experiment_id, (step_number - 1) / 2000;

CREATE TABLE run_traces (
  experiment_id text NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
  chunk         integer NOT NULL,
  actions       bytea NOT NULL,
  PRIMARY KEY (experiment_id, chunk)
);

INSERT INTO run_traces (experiment_id, chunk, actions)
SELECT c.experiment_id, c.chunk, c.actions
FROM run_trace_chunks c JOIN experiments e ON e.id = c.experiment_id
WHERE e.status <> 'running';
