// The RDS Data API simulator with a secret of its own, through the real @aws-sdk/client-rds-data client: it
// connects as the secret's user, and after a rotation its new connections use the new password (which Postgres
// then requires), while a transaction open across the rotation finishes on the connection it holds.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import {
  BeginTransactionCommand,
  CommitTransactionCommand,
  ExecuteStatementCommand,
  RDSDataClient,
} from '@aws-sdk/client-rds-data';
import { RdsDataSim, urlWithSecret, type DatabaseSecret } from '../simulators/rds-data-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
let sim: RdsDataSim;
let client: RDSDataClient;
let target: { resourceArn: string; secretArn: string; database: string };
const secret: DatabaseSecret = {
  username: `t_role_${randomBytes(6).toString('hex')}`,
  password: randomBytes(24).toString('hex'),
};
const role = pg.escapeIdentifier(secret.username);

beforeAll(async () => {
  db = await testDatabase(2);
  await db.pool.query(`CREATE ROLE ${role} LOGIN PASSWORD ${pg.escapeLiteral(secret.password)}`);
  await db.pool.query(`ALTER SCHEMA "${db.schema}" OWNER TO ${role}`);
  sim = new RdsDataSim({ url: db.url, schema: db.schema, secret });
  client = new RDSDataClient({
    endpoint: await sim.listen(),
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    maxAttempts: 1,
  });
  target = { resourceArn: sim.clusterArn, secretArn: sim.secretArn, database: sim.database };
});

afterAll(async () => {
  client?.destroy();
  await sim?.close();
  await db?.drop();
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query(`DROP OWNED BY ${role}`).catch(() => undefined); // absent when beforeAll failed early
  await admin.query(`DROP ROLE IF EXISTS ${role}`);
  await admin.end();
});

const execute = (sql: string, transactionId?: string) =>
  client.send(new ExecuteStatementCommand({ ...target, sql, transactionId }));

/** Who the Data API's connection is, and which backend. */
async function session(transactionId?: string): Promise<{ user: string; pid: number }> {
  const out = await execute('SELECT current_user AS u, pg_backend_pid() AS pid', transactionId);
  return { user: out.records![0][0].stringValue!, pid: out.records![0][1].longValue! };
}

/** Postgres's SQLSTATE for a connection as the secret's user, or null when it connects. */
async function refusal(value: DatabaseSecret): Promise<string | null> {
  const c = new pg.Client({ connectionString: urlWithSecret(db.url, value) });
  c.on('error', () => undefined);
  try {
    await c.connect();
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
  await c.end();
  return null;
}

describe('RdsDataSim with a secret', () => {
  it('connects as the secret user; once rotated, with the new password (the old one refused)', async () => {
    await execute('CREATE TABLE rotated (id int PRIMARY KEY)');
    const before = await session();
    expect(before.user).toBe(secret.username);
    // a transaction open across the rotation
    const { transactionId } = await client.send(new BeginTransactionCommand(target));
    await execute('INSERT INTO rotated VALUES (1)', transactionId);

    const { previous, current } = await sim.rotateSecret();
    expect(previous).toEqual(secret);
    expect(current.username).toBe(secret.username);
    expect(current.password).not.toBe(secret.password);
    expect(sim.secretValue).toEqual(current);

    // the open transaction finishes on its connection (opened with the old password)
    await execute('INSERT INTO rotated VALUES (2)', transactionId);
    await client.send(new CommitTransactionCommand({ ...target, transactionId }));
    // the next statement runs on a new connection, as the same user, so with the new password
    const after = await session();
    expect(after.user).toBe(secret.username);
    expect(after.pid).not.toBe(before.pid);
    const { rows } = await db.pool.query<{ id: number }>('SELECT id FROM rotated ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual([1, 2]);

    expect(await refusal(previous)).toBe('28P01'); // invalid_password
    expect(await refusal(current)).toBeNull();
  });

  it('refuses to rotate without a secret of its own, or when the database refuses the new password', async () => {
    const plain = new RdsDataSim({ url: db.url, schema: db.schema });
    await expect(plain.rotateSecret()).rejects.toMatchObject({ name: 'SecretRotationError' });
    await plain.close();

    const ghost = new RdsDataSim({
      url: db.url,
      schema: db.schema,
      secret: { username: 'no_such_role', password: 'x' },
    });
    await expect(ghost.rotateSecret()).rejects.toMatchObject({
      name: 'SecretRotationError',
      message: expect.stringMatching(/no_such_role/),
    });
    expect(ghost.secretValue).toEqual({ username: 'no_such_role', password: 'x' }); // unchanged
    await ghost.close();
  });
});
