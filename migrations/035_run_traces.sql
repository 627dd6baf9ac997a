-- A finished run's executed actions packed small, for the readers of every move of a sweep (the behaviour analytics,
-- results/run-moves.ts; the viewer's heatmap): finalize (core/store/pg-store.ts) writes them from the run's actions
-- in its own statement, so such a read takes 10 bytes a step from here instead of scanning the wide actions table.
-- A row holds 2,000 steps (20,000 bytes; 40 KB as Postgres prints bytea, under a Data API row). A running run has
-- none: its moves are read from actions. Runs finished before this migration are packed by it.

-- One action as 10 bytes, big-endian: kind * 2^20 + y * 1024 + x (int4; kind 0 moved, 1 blocked by a wall, 2 by
-- the edge, 3 anything else), new tiles seen (int2, at most 32,767), step number (int4).
CREATE FUNCTION packed_action(outcome text, to_x integer, to_y integer, new_tiles integer, step integer)
RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT int4send((CASE outcome WHEN 'moved' THEN 0 WHEN 'blocked_by_wall' THEN 1 WHEN 'blocked_by_edge' THEN 2
                   ELSE 3 END) * 1048576 + to_y * 1024 + to_x)
         || int2send(least(new_tiles, 32767)::int2) || int4send(step)
$$;

CREATE TABLE run_traces (
  experiment_id text NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
  chunk         integer NOT NULL,   -- (step_number - 1) / 2000
  actions       bytea NOT NULL,     -- packed_action of each of the chunk's steps, in no particular order
  PRIMARY KEY (experiment_id, chunk)
);

INSERT INTO run_traces (experiment_id, chunk, actions)
SELECT a.experiment_id, (a.step_number - 1) / 2000,
       string_agg(packed_action(a.outcome, a.to_x, a.to_y, a.new_tiles_seen, a.step_number), ''::bytea)
FROM actions a JOIN experiments e ON e.id = a.experiment_id
WHERE e.status <> 'running' AND a.step_number IS NOT NULL
GROUP BY a.experiment_id, (a.step_number - 1) / 2000;
