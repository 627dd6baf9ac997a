-- The runner at 0.9 of per-turn pg (issue 32, item 5): each turn's statement kept experiment_cell_visits, a row per
-- (running experiment, cell) upserted for every cell the turn's moves entered, to advance the kept totals' loop
-- cells and most visits (migration 017). Those upserts, their foreign-key checks and the join back to the turn's
-- moves were most of what the totals added to a turn (0.17 of 1.03 ms, test-output replay on the embedded server).
-- The game state now counts how often each cell was entered (lambdas/engine/game.ts `entries`, rebuilt from the
-- logged moves like every other part of it), and the statement takes the turn's loop cells and most entries as two
-- parameters (lambdas/store/turn-sql.ts loopCellsOf). The table holds nothing another reader needs: a running
-- experiment's entries follow from its actions, and finalize recomputes the totals from them.
DROP TABLE experiment_cell_visits;
