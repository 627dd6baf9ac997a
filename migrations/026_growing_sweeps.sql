-- Sweeps that grow under their name (issue 34, item 5; lambdas/sweeps/sweep-growth.ts): a spec that only adds
-- agents, generators, sizes, seeds, setting values or repeats replaces the stored one, and each earlier version is
-- kept here, oldest first: its spec hash, its cells and repeats, and until when it was the sweep's spec.
ALTER TABLE sweeps ADD COLUMN grown jsonb NOT NULL DEFAULT '[]'::jsonb;
