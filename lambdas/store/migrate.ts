// Applies migrations/NNN_name.sql in order, once each, under an advisory lock
// so concurrent starters (several Lambdas, several test files) do not race.
import { readdir, readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import type pg from 'pg';

// In a bundled Lambda the SQL files sit beside the bundle: MIGRATIONS_DIR says where.
const MIGRATIONS_DIR = process.env.MIGRATIONS_DIR
  ? new URL(`file://${process.env.MIGRATIONS_DIR.replace(/\/?$/, '/')}`)
  : new URL('../../migrations/', import.meta.url);
const LOCK_KEY = 0x41524941; // "ARIA"

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export async function loadMigrations(dir: URL | string = MIGRATIONS_DIR): Promise<Migration[]> {
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

/** Returns the names of the migrations applied now (empty when up to date). */
export async function migrate(pool: pg.Pool, schema: string, migrations?: Migration[]): Promise<string[]> {
  const list = migrations ?? (await loadMigrations());
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(`SET search_path TO ${quoteIdent(schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM schema_migrations',
    );
    const done = new Map(rows.map((r) => [r.version, r]));
    const applied: string[] = [];
    for (const m of list) {
      const prior = done.get(m.version);
      if (prior) {
        if (prior.checksum !== m.checksum) {
          throw new Error(
            `migration ${m.name} was changed after it was applied (as ${prior.name}); ` +
              'add a new numbered migration instead of editing an applied one',
          );
        }
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
          m.version,
          m.name,
          m.checksum,
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(m.name);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await client.query('RESET search_path').catch(() => undefined);
    client.release();
  }
}

export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new Error(`schema name "${name}" must be lower-case letters, digits and _`);
  return `"${name}"`;
}
