-- A resumed experiment keeps the time it had left. max_duration_minutes limits how long the experiment ran, not how
-- long the machine running it was down: a sweep killed and resumed three hours later must not end its runs as
-- `timeout` (stop reason max_duration) after one more turn. `suspended_seconds` is the time between an
-- interruption (the last committed turn, or the start) and the resume that picked the run up again, summed over
-- resumes; the experiment's clock (CheckProgress's startedAt) starts at started_at + suspended_seconds.
-- started_at stays when the experiment really started.
ALTER TABLE experiments ADD COLUMN suspended_seconds double precision NOT NULL DEFAULT 0
  CHECK (suspended_seconds >= 0);
