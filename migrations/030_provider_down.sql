-- A provider outage as it happens, for `ariadne status` (results/live-status.ts): the turns record their waits only
-- when they commit (migration 022), and CheckProgress, which decides a wait, opens no database. So each try of a turn
-- that fails with the provider unavailable (ProviderTransientError) writes, on its experiment
-- (core/store/pg-store.ts recordProviderDown):
--   provider_down_turn     the turn the provider keeps failing; the outage is over once that turn is committed
--   provider_down_since    when its first try failed
--   provider_down_waits    the outage waits before the try that failed, and provider_failed_tries: its failed tries
--                          at that many waits (the machine's retries of the turn, then an outage wait)
--   provider_next_try_at   when the next try is due at the latest (a retry's time is jittered below it)
ALTER TABLE experiments
  ADD COLUMN provider_down_turn integer,
  ADD COLUMN provider_down_since timestamptz,
  ADD COLUMN provider_down_waits integer,
  ADD COLUMN provider_failed_tries integer,
  ADD COLUMN provider_next_try_at timestamptz;
