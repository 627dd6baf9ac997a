// The pg transport's retries: connection-level failures (backend terminated, a reset socket, a failover) and
// serialization failures are retried a few times with backoff, then surface as DatabaseUnavailableError, which the
// state machine retries. Safe because every write is idempotent: a turn's commit is conditional on the turn before.
import { DatabaseUnavailableError, isTransientSqlState } from './sql.ts';
import { sqlStateOf } from './sql-state.ts';

// Socket failures of the pg client (SQLStates: isTransientSqlState).
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);

// pg's own failures, which carry neither a SQLState nor a socket's code: only their words tell them apart.
const TRANSIENT_MESSAGE = new RegExp(
  [
    'Connection terminated',
    'connection timeout',
    'timeout exceeded when trying to connect',
    'Client has encountered a connection error',
    'terminating connection',
  ].join('|'),
  'i',
);

/**
 * An error Postgres sent is judged by its SQLState, read from pg's structured field (sql-state.ts), never by its
 * words; a socket error by its code; the message only for what has no SQLState (pg's "Connection terminated").
 */
function isTransientDatabaseError(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  const state = sqlStateOf(err);
  if (state) return isTransientSqlState(state.code);
  if (e.code && NETWORK_CODES.has(e.code)) return true;
  return TRANSIENT_MESSAGE.test(e.message ?? '');
}

export interface RetryOptions {
  attempts?: number;
  baseDelayMs?: number;
  /** The longest wait between two attempts (the doubling stops there); none by default. */
  maxDelayMs?: number;
  /** Which errors are retried; default: the transient ones above. */
  retries?: (err: unknown) => boolean;
}

/** Runs `attempt` until it succeeds, a non-transient error, or the attempts run out. */
export async function withRetry<T>(attempt: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? 4;
  const retried = opts.retries ?? isTransientDatabaseError;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!retried(err)) throw err;
      if (n >= attempts)
        throw new DatabaseUnavailableError(
          `the database is unavailable after ${attempts} attempts: ${(err as Error).message}`,
          err,
        );
      const delay = Math.min((opts.baseDelayMs ?? 50) * 2 ** (n - 1), opts.maxDelayMs ?? Infinity);
      await new Promise((r) => setTimeout(r, delay * (0.5 + Math.random() / 2)));
    }
  }
}

/**
 * Work outside a turn that must outlast a server restart or a failover (a sweep's own reads and marks): retried for
 * about a minute (51-102 s of waits), each statement's own retries inside. A turn does not wait here: the state
 * machine retries it (DatabaseUnavailableError), locally as on AWS.
 */
export function patiently<T>(work: () => Promise<T>): Promise<T> {
  return withRetry(work, {
    attempts: 15,
    baseDelayMs: 200,
    maxDelayMs: 10_000,
    retries: (err) => err instanceof DatabaseUnavailableError || isTransientDatabaseError(err),
  });
}
