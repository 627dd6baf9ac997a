// The mark a run stopped on purpose carries (migrations/016_interrupted.sql), as every listing shows it: one SQL
// expression, so the CLI and the viewer say the same words on every transport.

/**
 * Of experiments row `e`: why and when it was interrupted ("Ctrl-C (SIGINT) to ariadne run at 2026-05-01 10:00:00
 * UTC"), while it is running and marked; else null. It is then resumable, and no longer waits to look STALE.
 */
export const INTERRUPTED_SQL = `CASE WHEN e.status = 'running' AND e.interrupted_at IS NOT NULL
  THEN e.interrupted_reason || ' at ' || to_char(e.interrupted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"')
  END`;
