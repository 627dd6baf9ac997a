// Database calls that survive a dropped connection: connection-level
// failures (the backend terminated, a reset socket, a failover) and
// serialization failures are retried a few times with backoff, then surface
// as DatabaseUnavailableError, which the state machine retries. Retrying is
// safe because every write is idempotent: a turn's commit is conditional on
// the turn before, so a commit that did land is not applied twice.
import type pg from 'pg';

class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
  }
}

const RETRYABLE_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '40001',
  '40P01',
  '53300',
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
]);

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

function isTransientDatabaseError(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && (RETRYABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  return TRANSIENT_MESSAGE.test(e.message ?? '');
}

export interface RetryOptions {
  attempts?: number;
  baseDelayMs?: number;
}

export async function queryWithRetry<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  query: string | pg.QueryConfig,
  values?: unknown[],
  opts: RetryOptions = {},
): Promise<pg.QueryResult<R>> {
  const attempts = opts.attempts ?? 4;
  for (let attempt = 1; ; attempt++) {
    try {
      return await pool.query<R>(query as never, values as never);
    } catch (err) {
      if (!isTransientDatabaseError(err)) throw err;
      if (attempt >= attempts)
        throw new DatabaseUnavailableError(
          `the database is unavailable after ${attempts} attempts: ${(err as Error).message}`,
          err,
        );
      await new Promise((r) =>
        setTimeout(r, (opts.baseDelayMs ?? 50) * 2 ** (attempt - 1) * (0.5 + Math.random() / 2)),
      );
    }
  }
}
