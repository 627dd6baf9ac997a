// Opens the experiment database over `pg`: DATABASE_URL when set, else the
// embedded server. Checks the URL and the connection up front so a typo or a
// server that is down gives a clear error instead of a hang. The result is
// the SQL port (sql.ts) the store uses, plus the pool for local tools.
import pg from 'pg';
import { DatabaseConfigError, DatabaseUnreachableError } from './errors.ts';
import { migrate, quoteIdent } from './migrate.ts';
import { withRetry } from './retry-query.ts';
import { pgTextParser, SESSION_SETTINGS } from './column-values.ts';
import type { QueryOptions, Sql, SqlDatabase, SqlResult, SqlValue } from './sql.ts';

// A Date parameter goes as UTC text, as the Data API transport sends it (TIMESTAMP hint): pg's default is local
// time with its offset, which a `timestamp` column (no zone) would keep as the laptop's wall-clock time.
pg.defaults.parseInputDatesAsUTC = true;

/** Values decoded as the Data API transport decodes them (column-values.ts); binary results are never asked for. */
const types: pg.CustomTypesConfig = {
  getTypeParser: (oid: number, format?: string): unknown =>
    format === 'binary' ? (pg.types.getTypeParser(oid, 'binary') as unknown) : pgTextParser(oid),
};

export interface Database extends SqlDatabase {
  pool: pg.Pool;
  schema: string;
  /** The URL with its password masked, for messages. */
  displayUrl: string;
}

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

function pgQuery<R extends object>(
  on: Queryable,
  text: string,
  values: readonly SqlValue[] | undefined,
  options: QueryOptions | undefined,
): Promise<SqlResult<R>> {
  return on.query({ text, values: values as unknown[], name: options?.name }).then((r) => ({
    rows: r.rows as R[],
    rowCount: r.rowCount ?? r.rows.length,
    columns: r.fields.map((f) => f.name),
  }));
}

/** The port over a pool: each statement retried on its own, a transaction retried whole (on one connection). */
function pgSqlDatabase(pool: pg.Pool): Pick<SqlDatabase, 'query' | 'transaction' | 'transport'> {
  return {
    transport: 'pg',
    query: (text, values, options) => withRetry(() => pgQuery(pool, text, values, options)),
    transaction: <T>(fn: (tx: Sql) => Promise<T>) =>
      withRetry(async () => {
        const client = await pool.connect();
        let broken: Error | undefined;
        // A client the pool has lent out has no listener for its 'error' event, which pg emits beside the failed
        // query when the server drops the connection (a restart, a failover, a terminated backend): unheard, it
        // ends the process. The query's rejection carries the error; the client is released as broken.
        const dropped = (err: Error) => (broken = err);
        client.on('error', dropped);
        try {
          await client.query('BEGIN');
          const result = await fn({ query: (text, values, options) => pgQuery(client, text, values, options) });
          await client.query('COMMIT');
          return result;
        } catch (err) {
          await client.query('ROLLBACK').catch((e: Error) => (broken = e));
          throw err;
        } finally {
          client.removeListener('error', dropped);
          client.release(broken);
        }
      }),
  };
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
  /** Every transaction read-only (the viewer's): the server refuses any write. Implies migrate: false. */
  readOnly?: boolean;
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  const field = opts.field ?? 'DATABASE_URL';
  checkDatabaseUrl(opts.url, field);
  const schema = opts.schema ?? 'public';
  quoteIdent(schema);
  const pool = new pg.Pool({
    connectionString: opts.url,
    types,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    // Session settings as each connection's first statement, awaited before the pool hands it out; not startup
    // options, which poolers and proxies refuse.
    // @types/pg says void, but pg-pool awaits the promise before handing the client out (pg-pool 3.14, index.js)
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    onConnect: async (client) => {
      const session = Object.entries(SESSION_SETTINGS);
      await client.query(
        "SELECT set_config('search_path', $1, false), set_config('statement_timeout', $2, false), " +
          "set_config('idle_in_transaction_session_timeout', '60000', false), " +
          "set_config('default_transaction_read_only', $3, false), " +
          session.map((_, i) => `set_config($${4 + 2 * i}, $${5 + 2 * i}, false)`).join(', '),
        [
          quoteIdent(schema),
          String(opts.statementTimeoutMs ?? 60_000),
          opts.readOnly ? 'on' : 'off',
          ...session.flat(),
        ],
      );
    },
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
  const db: Database = { ...pgSqlDatabase(pool), pool, schema, displayUrl: maskUrl(opts.url), close: () => pool.end() };
  if (opts.migrate !== false && !opts.readOnly) await migrate(db, { schema });
  return db;
}
