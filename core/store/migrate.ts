// Applies migrations/NNN_name.sql in order, once each, through the SQL port
// (pg or the Data API): each migration in a transaction of its own, one
// statement per call (the Data API runs one per call), under a
// transaction-scoped advisory lock so concurrent starters (several Lambdas,
// several test files) do not race.
import { readdir, readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import type { Sql, SqlDatabase } from './sql.ts';
import { splitStatements } from './sql-text.ts';
import { envString } from '../config/environment.ts';

/**
 * Where the SQL files are: in a bundled Lambda beside the bundle (MIGRATIONS_DIR says where), else the repository's
 * migrations/. Read at each call, not at import: a process that sets it later (a test) is heard.
 */
function migrationsDir(): URL {
  const bundled = envString('MIGRATIONS_DIR');
  return bundled ? new URL(`file://${bundled.replace(/\/?$/, '/')}`) : new URL('../../migrations/', import.meta.url);
}
const LOCK_KEY = 0x41524941; // "ARIA"

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export async function loadMigrations(dir: URL | string = migrationsDir()): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (name) => {
      const sql = await readFile(new URL(name, dir instanceof URL ? dir : `file://${dir}/`), 'utf8');
      return {
        version: Number.parseInt(name, 10),
        name,
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    }),
  );
}

interface Applied {
  version: number;
  name: string;
  checksum: string;
}

/** Takes the migration lock (until the caller's transaction ends) and reads what is applied. */
async function appliedUnderLock(tx: Sql, before?: (tx: Sql) => Promise<void>): Promise<Map<number, Applied>> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
  await before?.(tx);
  const { rows } = await tx.query<Applied>('SELECT version, name, checksum FROM schema_migrations');
  return new Map(rows.map((r) => [r.version, r]));
}

function refuseEdited(m: Migration, prior: Applied): void {
  if (prior.checksum !== m.checksum)
    throw new Error(
      `migration ${m.name} was changed after it was applied (as ${prior.name}); ` +
        'add a new numbered migration instead of editing an applied one',
    );
}

/**
 * Returns the names of the migrations applied now (empty when up to date). `schema` is created when given
 * (the pg transport's connections already search it); without it the tables go where the session's
 * search_path puts them (on AWS: public).
 */
export async function migrate(
  db: SqlDatabase,
  opts: { schema?: string; migrations?: Migration[] } = {},
): Promise<string[]> {
  const list = opts.migrations ?? (await loadMigrations());
  // the schema and the bookkeeping table first, under the lock: later transactions only read it
  const done = await db.transaction((tx) =>
    appliedUnderLock(tx, async () => {
      if (opts.schema) await tx.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(opts.schema)}`);
      await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now())`);
    }),
  );
  const applied: string[] = [];
  for (const m of list) {
    const prior = done.get(m.version);
    if (prior) {
      refuseEdited(m, prior);
      continue;
    }
    const ran = await db.transaction(async (tx) => {
      // another starter may have applied it since the read above
      const now = (await appliedUnderLock(tx)).get(m.version);
      if (now) {
        refuseEdited(m, now);
        return false;
      }
      for (const statement of splitStatements(m.sql)) {
        try {
          await tx.query(statement);
        } catch (err) {
          throw new Error(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
        }
      }
      await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        m.version,
        m.name,
        m.checksum,
      ]);
      return true;
    });
    if (ran) applied.push(m.name);
  }
  return applied;
}

export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new Error(`schema name "${name}" must be lower-case letters, digits and _`);
  return `"${name}"`;
}
