// The one seam between our SQL and a Postgres: `pg` over a socket (embedded Postgres, any DATABASE_URL) or the RDS
// Data API over HTTPS (AWS), with one contract so the store, migrations and sweeps run on either: positional `$n`
// parameters of plain types (anything else cast in the SQL, as the Data API sends strings as text); rows decoded once
// for both (column-values.ts); a transient failure retried inside the transport, then DatabaseUnavailableError,
// which the state machine retries.
import { ERROR_NAMES } from '../error-names.ts';

export interface SqlResult<R> {
  rows: R[];
  /** Rows returned, or for INSERT/UPDATE/DELETE without RETURNING, rows changed. */
  rowCount: number;
  /** The result's column names in order, for a statement that returns rows (`ariadne sql` prints them). */
  columns?: string[];
}

export type SqlValue = string | number | boolean | null | Date | readonly string[];

export interface QueryOptions {
  /** A name for a statement run often: pg prepares it once per connection; the Data API has no use for it. */
  name?: string;
}

export interface Sql {
  /** Which transport, where the caller's reads differ by it (pages: pg has no response limit). */
  readonly transport?: 'pg' | 'data-api';
  query<R extends object = Record<string, any>>( // eslint-disable-line @typescript-eslint/no-explicit-any -- rows
    text: string,
    values?: readonly SqlValue[],
    options?: QueryOptions,
  ): Promise<SqlResult<R>>;
}

export interface SqlDatabase extends Sql {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** Which transport, for messages ("pg", "data-api"). */
  readonly transport: 'pg' | 'data-api';
  close(): Promise<void>;
}

// SQLStates that pass on a retry: serialization failure, deadlock, the server shutting down or starting, too many
// connections, a session the server ended for idling (in a transaction, 25P03, or out of one, 57P05: a new
// connection goes through); and class 08, connection exceptions. Both transports retry them.
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '57P01', '57P02', '57P03', '53300', '25P03', '57P05']);

export function isTransientSqlState(code: string): boolean {
  return TRANSIENT_SQLSTATES.has(code) || code.startsWith('08');
}

/** The database stayed unreachable through every retry; the state machine retries the Task by this name. */
export class DatabaseUnavailableError extends Error {
  override readonly name = ERROR_NAMES.databaseUnavailable;
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
  }
}

/** A result too large for one response (the Data API's 1 MiB): read it in pages. */
export class ResultTooLargeError extends Error {
  override readonly name = 'ResultTooLargeError';
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
  }
}
