// Migrations, the embedded server's persistence, and database errors.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadMigrations, migrate } from '../lambdas/store/migrate.ts';
import { openDatabase, checkDatabaseUrl } from '../lambdas/store/database.ts';
import { startEmbeddedPostgres } from '../lambdas/store/embedded.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
beforeAll(async () => { db = await testDatabase(); });
afterAll(async () => { await db.drop(); });

describe('migrations', () => {
  it('are applied once: a second run applies nothing and changes no table', async () => {
    const again = await migrate(db.pool, db.schema);
    expect(again).toEqual([]);
    const { rows } = await db.pool.query('SELECT name FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.name)).toEqual((await loadMigrations()).map((m) => m.name));
  });

  it('refuse to run when an applied migration was edited', async () => {
    const edited = (await loadMigrations()).map((m, i) => (i === 0 ? { ...m, checksum: 'x' } : m));
    await expect(migrate(db.pool, db.schema, edited)).rejects.toThrow(/was changed after it was applied/);
  });

  it('concurrent starters do not race', async () => {
    const url = db.url;
    const schema = `${db.schema}_race`;
    const pools = [1, 2, 3].map(() => new pg.Pool({ connectionString: url, max: 1 }));
    const applied = await Promise.all(pools.map((p) => migrate(p, schema)));
    expect(applied.flat().length).toBe((await loadMigrations()).length);
    await pools[0].query(`DROP SCHEMA "${schema}" CASCADE`);
    await Promise.all(pools.map((p) => p.end()));
  });
});

describe('database configuration errors', () => {
  it.each([
    ['not a url', /is not a URL/],
    ['mysql://u@h/d', /has scheme "mysql:"/],
  ])('rejects DATABASE_URL %s naming it', (url, message) => {
    expect(() => checkDatabaseUrl(url)).toThrow(message);
    expect(() => checkDatabaseUrl(url)).toThrow(/DATABASE_URL/);
  });

  it('a server that is down gives a clear error quickly, with the password masked', async () => {
    const started = Date.now();
    const err = await openDatabase({ url: 'postgres://me:hunter2@127.0.0.1:1/x' }).catch((e) => e);
    expect(err.name).toBe('DatabaseConfigError');
    expect(err.message).toMatch(/cannot connect to DATABASE_URL postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/x/);
    expect(err.message).not.toContain('hunter2');
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('embedded Postgres', () => {
  it('keeps its data across a restart, and a second starter reuses the running server', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'ariadne-embedded-'));
    chmodSync(parent, 0o755);
    const dataDir = join(parent, 'pgdata');
    try {
      const first = await startEmbeddedPostgres({ dataDir });
      const a = await openDatabase({ url: first.url });
      await a.pool.query("INSERT INTO mazes (content_hash, generator, width, height, grid, start_x, start_y, goal_x, goal_y, shortest_path, shortest_path_to_sight) VALUES ('persist-check', 't', 1, 1, '[[2]]', 0, 0, 0, 0, 0, 0)");
      const shared = await startEmbeddedPostgres({ dataDir });
      expect(shared.owned).toBe(false);
      expect(shared.url).toBe(first.url);
      await a.close();
      await first.stop();

      const second = await startEmbeddedPostgres({ dataDir });
      expect(second.owned).toBe(true);
      const b = await openDatabase({ url: second.url });
      const { rows } = await b.pool.query("SELECT generator FROM mazes WHERE content_hash = 'persist-check'");
      expect(rows).toEqual([{ generator: 't' }]);
      await b.close();
      await second.stop();
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
