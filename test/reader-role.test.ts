// The researchers' read-only role, made as the migrations make it after a deploy, then used as a researcher would:
// a real Postgres decides what it may do.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantReader, ReaderCredentialsError } from '../core/store/reader-role.ts';
import { urlWithSecret } from '../simulators/rds-data-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
let reader: { username: string; password: string };
let asReader: pg.Client;
beforeAll(async () => {
  db = await testDatabase(2);
  reader = { username: `${db.schema}_reader`.slice(0, 63), password: randomBytes(18).toString('hex') };
  await db.transaction((tx) => grantReader(tx, reader));
  // granted twice, as every deploy does: idempotent
  await db.transaction((tx) => grantReader(tx, reader));
  asReader = new pg.Client({ connectionString: urlWithSecret(db.url, reader), options: `-c search_path=${db.schema}` });
  await asReader.connect();
});
afterAll(async () => {
  await asReader?.end();
  await db.pool.query(`DROP OWNED BY ${reader.username}`);
  await db.pool.query(`DROP ROLE ${reader.username}`);
  await db.drop();
});

const sqlState = (p: Promise<unknown>) =>
  p.then(
    () => 'ran',
    (err: { code?: string }) => err.code,
  );

describe('the read-only role', () => {
  it('reads every table and view', async () => {
    const { rows } = await asReader.query<{ n: number }>('SELECT count(*)::int AS n FROM experiments');
    expect(rows[0].n).toBeGreaterThanOrEqual(0);
    const views = await db.pool.query<{ name: string }>(
      'SELECT table_name AS name FROM information_schema.views WHERE table_schema = $1',
      [db.schema],
    );
    expect(views.rows.length).toBeGreaterThan(0);
    for (const v of views.rows) await asReader.query(`SELECT * FROM "${v.name}" LIMIT 0`);
  });

  it('writes nothing: its sessions are read-only, and without them it has no write grant', async () => {
    expect(await sqlState(asReader.query("DELETE FROM experiments WHERE id = 'x'"))).toBe('25006');
    expect(await sqlState(asReader.query('CREATE TABLE intruder (a int)'))).toBe('25006');
    await asReader.query('BEGIN');
    await asReader.query('SET TRANSACTION READ WRITE');
    expect(await sqlState(asReader.query("DELETE FROM experiments WHERE id = 'x'"))).toBe('42501');
    await asReader.query('ROLLBACK');
    await asReader.query('BEGIN');
    await asReader.query('SET TRANSACTION READ WRITE');
    expect(await sqlState(asReader.query('CREATE TABLE intruder (a int)'))).toBe('42501');
    await asReader.query('ROLLBACK');
    // a role may change its own session defaults ("Ordinary roles can only set defaults for themselves", ALTER
    // ROLE): the read-only default is a first line; the grants are the lock
    await asReader.query('BEGIN');
    await asReader.query('SET TRANSACTION READ WRITE');
    await asReader.query('SET LOCAL default_transaction_read_only = off');
    expect(await sqlState(asReader.query('INSERT INTO schema_migrations VALUES (999, $1, $2)', ['x', 'y']))).toBe(
      '42501',
    );
    await asReader.query('ROLLBACK');
  });

  it('reads a table the migrations make later (default privileges)', async () => {
    await db.pool.query('CREATE TABLE later_results (a int)');
    await db.pool.query('INSERT INTO later_results VALUES (7)');
    const { rows } = await asReader.query<{ a: number }>('SELECT a FROM later_results');
    expect(rows).toEqual([{ a: 7 }]);
  });

  it('refuses credentials it would not splice into SQL', async () => {
    for (const bad of [
      { username: 'Robert"; DROP TABLE experiments; --', password: 'long-enough' },
      { username: 'reader', password: 'short' },
    ])
      await expect(db.transaction((tx) => grantReader(tx, bad))).rejects.toBeInstanceOf(ReaderCredentialsError);
  });
});
