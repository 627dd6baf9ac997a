-- A local run stopped on purpose (Ctrl-C or SIGTERM to `ariadne run`, `resume` or `sweep`) says so at once: the
-- process lets the turn in flight commit, then writes when and why here, so `ariadne live`, `list` and the viewer
-- show the run as INTERRUPTED with its resume command instead of waiting for the STALE timeout. The status stays
-- `running` (it is resumable, and the status values are a contract); resuming clears both columns. Null for every
-- other run: one that ran on, finished, or died without a word (that one still shows STALE in time).
-- experiment_summary is not recreated: the readers of the mark read the experiments table itself.
ALTER TABLE experiments ADD COLUMN interrupted_at timestamptz;
ALTER TABLE experiments ADD COLUMN interrupted_reason text
  CHECK (interrupted_reason IS NULL OR length(interrupted_reason) <= 500);
ALTER TABLE experiments ADD CONSTRAINT experiments_interrupted_mark
  CHECK ((interrupted_at IS NULL) = (interrupted_reason IS NULL));
