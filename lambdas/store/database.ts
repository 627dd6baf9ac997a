// Opens the experiment database: DATABASE_URL when set, else the embedded
// server. Checks the URL and the connection up front so a typo or a server
// that is down gives a clear error instead of a hang.
import pg from 'pg';
import { DatabaseConfigError, DatabaseUnreachableError } from './errors.ts';
import { migrate, quoteIdent } from './migrate.ts';

// bigint (count(*), sum) as JS numbers: our counts stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));

export interface Database {
  pool: pg.Pool;
  schema: string;
  /** The URL with its password masked, for messages. */
  displayUrl: string;
  close(): Promise<void>;
}

function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

export function checkDatabaseUrl(url: string, field = 'DATABASE_URL'): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new DatabaseConfigError(
      field,
      `${field} "${maskUrl(url)}" is not a URL; expected postgres://user:password@host:5432/database`,
    );
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new DatabaseConfigError(
      field,
      `${field} "${maskUrl(url)}" has scheme "${u.protocol}"; expected postgres://user:password@host:5432/database`,
    );
  }
  if (!u.hostname)
    throw new DatabaseConfigError(
      field,
      `${field} "${maskUrl(url)}" names no host; expected postgres://user:password@host:5432/database`,
    );
}

export interface OpenOptions {
  url: string;
  schema?: string;
  poolSize?: number;
  field?: string;
  migrate?: boolean;
  /** A statement running longer is cancelled by the server (a stuck lock must not hold a Lambda to its timeout). */
  statementTimeoutMs?: number;
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  const field = opts.field ?? 'DATABASE_URL';
  checkDatabaseUrl(opts.url, field);
  const schema = opts.schema ?? 'public';
  quoteIdent(schema);
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    options:
      `-c search_path=${schema} -c statement_timeout=${opts.statementTimeoutMs ?? 60_000} ` +
      '-c idle_in_transaction_session_timeout=60000',
  });
  pool.on('error', () => undefined); // an idle client dropped by the server; the pool replaces it
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new DatabaseUnreachableError(
      field,
      `cannot connect to ${field} ${maskUrl(opts.url)}: ${(err as Error).message}. ` +
        `Check that the server is running and the URL is right, or unset ${field} to use the embedded database.`,
    );
  }
  if (opts.migrate !== false) await migrate(pool, schema);
  return { pool, schema, displayUrl: maskUrl(opts.url), close: () => pool.end() };
}
