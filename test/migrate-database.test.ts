// The migrations custom resource (functions/migrate-database.ts) against the Data API server in front of a
// schema of its own: a poll tries a paused cluster once and answers "not yet"; a DDL statement past the Data API's
// statement timeout runs on (continueAfterTimeout) and is waited out in its transaction, where without it the
// statement is cancelled and the migration fails.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { RdsDataSim } from '../simulators/rds-data-sim.ts';
import { dataApiFunctionEnv } from './support/data-api-env.ts';

/** The sim's statement timeout here (AWS: 45 s), and the slow migrations' sleep, well past it. */
const TIMEOUT_MS = 300;
const SLEEP_S = 1;

const dir = mkdtempSync(join(tmpdir(), 'ariadne-migrations-'));
writeFileSync(join(dir, '001_probe.sql'), 'CREATE TABLE probe (id integer PRIMARY KEY);\n');
writeFileSync(
  join(dir, '002_slow.sql'),
  `CREATE TABLE slow AS SELECT ${SLEEP_S} AS slept FROM pg_sleep(${SLEEP_S});\nINSERT INTO probe VALUES (2);\n`,
);
// where migrate.ts reads the SQL files (MIGRATIONS_DIR, read at each load of them), as the bundled handler has it;
// test/support/per-file.ts puts the environment back when this file ends
process.env.MIGRATIONS_DIR = dir;

const schema = `t_mig_${randomBytes(4).toString('hex')}`;
let admin: pg.Client;
let sim: RdsDataSim;
let endpoint: string;
let isComplete: typeof import('../functions/migrate-database.ts').isComplete;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: inject('databaseUrl') });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  sim = new RdsDataSim({ url: inject('databaseUrl'), schema, statementTimeoutMs: TIMEOUT_MS });
  endpoint = await sim.listen();
  Object.assign(process.env, dataApiFunctionEnv(sim, endpoint));
  delete process.env.DATABASE_URL;
  delete process.env.DATABASE_SCHEMA;
  ({ isComplete } = await import('../functions/migrate-database.ts'));
});

afterAll(async () => {
  await sim?.close();
  await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin?.end();
});

const tables = async () =>
  (
    await admin.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
      [schema],
    )
  ).rows.map((r) => r.table_name);

describe('the migrations custom resource', () => {
  it('tries a paused cluster once and answers not yet; once it is up, waits out a slow DDL and migrates', async () => {
    await sim.pause(500);
    expect(await isComplete({ RequestType: 'Create' })).toEqual({ IsComplete: false });
    expect(sim.requests.map((r) => r.path)).toEqual(['/BeginTransaction']); // no retries inside the poll
    await new Promise((r) => setTimeout(r, 600));
    const started = Date.now();
    expect(await isComplete({ RequestType: 'Create' })).toEqual({
      IsComplete: true,
      Data: { Applied: '001_probe.sql,002_slow.sql' },
    });
    // the CREATE TABLE ran past the statement timeout, ran on, and the poll waited for it in its transaction
    expect(Date.now() - started).toBeGreaterThanOrEqual(SLEEP_S * 1000);
    const executes = sim.requests.filter((r) => r.path === '/Execute');
    expect(executes.every((r) => r.body.continueAfterTimeout === true)).toBe(true);
    expect(executes.filter((r) => r.body.sql === 'SELECT 1').length).toBeGreaterThan(0);
    expect(await tables()).toEqual(['probe', 'schema_migrations', 'slow']);
    expect((await admin.query(`SELECT id FROM "${schema}".probe`)).rows).toEqual([{ id: 2 }]);
    // a second deploy finds them applied
    expect(await isComplete({ RequestType: 'Update', PhysicalResourceId: 'ariadne-migrations' })).toMatchObject({
      IsComplete: true,
    });
  });

  it('without continueAfterTimeout the same statement is cancelled at the timeout: its migration fails', async () => {
    const { DataApiDatabase } = await import('../core/store/data-api-sql.ts');
    const { migrate } = await import('../core/store/migrate.ts');
    const plain = new DataApiDatabase({
      resourceArn: sim.clusterArn,
      secretArn: sim.secretArn,
      database: sim.database,
      client: new RDSDataClient({
        endpoint,
        region: 'eu-west-1',
        credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' },
      }),
    });
    const sql = `CREATE TABLE slow_again AS SELECT 1 AS slept FROM pg_sleep(${SLEEP_S});`;
    const again = { version: 3, name: '003_slow_again.sql', sql, checksum: 'x' };
    try {
      await expect(migrate(plain, { migrations: [again] })).rejects.toThrow(/003_slow_again\.sql failed/);
    } finally {
      await plain.close();
    }
    expect(await tables()).not.toContain('slow_again');
  });

  it('a slow statement that then fails fails the deploy, saying where its own error is', async () => {
    // pg_sleep runs first (a FROM item), then the division by a volatile zero
    writeFileSync(
      join(dir, '003_boom.sql'),
      `CREATE TABLE boom AS SELECT 1 / floor(random())::int AS x FROM pg_sleep(${SLEEP_S});\n`,
    );
    await expect(isComplete({ RequestType: 'Update', PhysicalResourceId: 'ariadne-migrations' })).rejects.toThrow(
      /003_boom\.sql failed: a migration statement that ran past the Data API's 45 s failed .*postgresql log/,
    );
    expect(await tables()).not.toContain('boom');
  });

  it('deleting the stack touches nothing', async () => {
    const before = sim.requests.length;
    expect(await isComplete({ RequestType: 'Delete', PhysicalResourceId: 'ariadne-migrations' })).toEqual({
      IsComplete: true,
    });
    expect(sim.requests.length).toBe(before);
  });
});
