-- Each run's config snapshot's digest, kept with the row: the sweep report finds the settings a sweep varies from
-- the distinct snapshots of its runs (results/sweep-conditions.ts), and DISTINCT over the jsonb itself hashed every
-- key and number of every run's snapshot at each read, 32 ms of the report's 45 for 1,000 runs (issue 32, item 1).
-- The digest is md5 of the snapshot's text: equal snapshots have equal text (jsonb's output is canonical: keys
-- sorted, no duplicates), and a collision between two runs' configs of one sweep would have to be an md5 collision
-- of two JSON documents written by our own code. A stored generated column (PostgreSQL 12+), computed once at insert.
ALTER TABLE experiments ADD COLUMN IF NOT EXISTS config_digest text GENERATED ALWAYS AS (md5(config::text)) STORED;
