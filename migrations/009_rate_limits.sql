-- Providers' rate limits (config.rate_limits), shared by every experiment running at once: one token bucket per
-- "provider:model", here rather than in a process, since on AWS each turn is its own Lambda invocation. Each
-- bucket holds two levels, requests and tokens, refilled continuously by the database's clock and taken in one
-- INSERT ... ON CONFLICT DO UPDATE (store/rate-limit-sql.ts): the row lock of that one statement is what
-- serializes concurrent callers, so it works over the RDS Data API, where no session or lock outlives a call.
-- A level may go below zero: a call larger than the bucket goes when the bucket is full and leaves a debt, and a
-- call's provider-reported tokens correct its estimate afterwards.
CREATE TABLE rate_limit_buckets (
  bucket text PRIMARY KEY,
  requests double precision NOT NULL,
  tokens double precision NOT NULL,
  -- whether the last acquire took from the bucket (RETURNING reads it: SET cannot name its own results)
  granted boolean NOT NULL,
  updated_at timestamptz NOT NULL
);
