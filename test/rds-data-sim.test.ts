// The RDS Data API simulator through the real @aws-sdk/client-rds-data client: what the store's Data API transport
// will rely on (types, transactions, limits, auto-pause) must hold here first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BatchExecuteStatementCommand,
  BeginTransactionCommand,
  CommitTransactionCommand,
  ExecuteStatementCommand,
  RDSDataClient,
  RollbackTransactionCommand,
  type SqlParameter,
} from '@aws-sdk/client-rds-data';
import { RdsDataSim } from '../simulators/rds-data-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
let sim: RdsDataSim;
let client: RDSDataClient;
let target: { resourceArn: string; secretArn: string; database: string };

beforeAll(async () => {
  db = await testDatabase(2);
  await db.pool.query('CREATE TABLE sim_items (id int PRIMARY KEY, doc jsonb, note text)');
  sim = new RdsDataSim({ url: db.url, schema: db.schema, transactionIdleMs: 200, resumeAfterMs: 300 });
  const endpoint = await sim.listen();
  client = new RDSDataClient({
    endpoint,
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
});

const execute = (sql: string, parameters: SqlParameter[] = [], extra: Record<string, unknown> = {}) =>
  client.send(new ExecuteStatementCommand({ ...target, sql, parameters, ...extra }));

async function failure(p: Promise<unknown>): Promise<{ name: string; message: string; status?: number }> {
  const err: any = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the call should have failed').not.toBeNull();
  return { name: err.name, message: err.message, status: err.$metadata?.httpStatusCode };
}

describe('RdsDataSim', () => {
  it('round-trips typed parameters into Data API field shapes', async () => {
    const out = await execute(
      `SELECT :i::int4 AS i, :l AS l, :d AS d, :n AS n, :t AS t, :b AS b, :z AS z, :j AS j, :u AS u,
              :ts::timestamptz AS ts, :dt AS dt, :tm AS tm, 'a :notparam $1' AS lit /* :c */, ARRAY[1,2]::int8[] AS arr,
              ARRAY['x', NULL, 'y z'] AS sarr, :blob AS blob, :nu AS nu`,
      [
        { name: 'i', value: { longValue: 7 } },
        { name: 'l', value: { longValue: 9_007_199_254_740_991 } },
        { name: 'd', value: { doubleValue: 2.5 } },
        { name: 'n', value: { stringValue: '12345678901234567890.123' }, typeHint: 'DECIMAL' },
        { name: 't', value: { stringValue: "it's" } },
        { name: 'b', value: { booleanValue: true } },
        { name: 'z', value: { isNull: true } },
        { name: 'j', value: { stringValue: '{"a": [1, 2]}' }, typeHint: 'JSON' },
        { name: 'u', value: { stringValue: '6f1c2f2e-3c1d-4f6b-9a51-0c2b8f1e7d11' }, typeHint: 'UUID' },
        { name: 'ts', value: { stringValue: '2026-11-23 14:05:06.123456' }, typeHint: 'TIMESTAMP' },
        { name: 'dt', value: { stringValue: '2026-11-23' }, typeHint: 'DATE' },
        { name: 'tm', value: { stringValue: '14:05:06' }, typeHint: 'TIME' },
        { name: 'blob', value: { blobValue: new Uint8Array([1, 2, 255]) } },
        { name: 'nu', value: { isNull: true }, typeHint: 'UUID' },
      ],
      { includeResultMetadata: true },
    );
    const row = out.records![0];
    expect(row).toEqual([
      { longValue: 7 },
      { longValue: 9_007_199_254_740_991 },
      { doubleValue: 2.5 },
      { stringValue: '12345678901234567890.123' },
      { stringValue: "it's" },
      { booleanValue: true },
      { isNull: true },
      { stringValue: '{"a": [1, 2]}' },
      { stringValue: '6f1c2f2e-3c1d-4f6b-9a51-0c2b8f1e7d11' },
      { stringValue: '2026-11-23 14:05:06.123456' },
      { stringValue: '2026-11-23' },
      { stringValue: '14:05:06' },
      { stringValue: 'a :notparam $1' },
      { arrayValue: { longValues: [1, 2] } },
      { arrayValue: { stringValues: ['x', null, 'y z'] } },
      { blobValue: new Uint8Array([1, 2, 255]) },
      { isNull: true },
    ]);
    expect(out.columnMetadata!.map((c) => c.typeName)).toEqual([
      'int4',
      'int8',
      'float8',
      'numeric',
      'text',
      'bool',
      'text',
      'json',
      'uuid',
      'timestamptz',
      'date',
      'time',
      'text',
      '_int8',
      '_text',
      'bytea',
      'uuid',
    ]);
    expect(out.numberOfRecordsUpdated).toBe(0);
    expect(out.generatedFields).toEqual([]);
  });

  it('stores a JSON typeHint parameter in a jsonb column, counts updates and formats records as JSON', async () => {
    const put = await execute('INSERT INTO sim_items (id, doc) VALUES (:id, :doc)', [
      { name: 'id', value: { longValue: 1 } },
      { name: 'doc', value: { stringValue: '{"walls": [3, 4], "ok": true}' }, typeHint: 'JSON' },
    ]);
    expect(put.numberOfRecordsUpdated).toBe(1);
    const got = await execute("SELECT id, doc, doc->'walls'->>1 AS second FROM sim_items WHERE id = :id", [
      { name: 'id', value: { longValue: 1 } },
    ]);
    expect(got.records).toEqual([
      [{ longValue: 1 }, { stringValue: '{"ok": true, "walls": [3, 4]}' }, { stringValue: '4' }],
    ]);
    const json = await execute('SELECT id, note FROM sim_items', [], {
      formatRecordsAs: 'JSON',
      includeResultMetadata: true,
    });
    expect(json.records).toBeUndefined();
    expect(json.columnMetadata).toBeUndefined();
    expect(JSON.parse(json.formattedRecords!)).toEqual([{ id: 1, note: null }]);
  });

  it('formats records as JSON as documented: each type, no metadata, its 10 MB limit, NONE or JSON only', async () => {
    const sql = `SELECT 7::int4 AS i, 9007199254740991::int8 AS l, 0.5::float8 AS d, 12.50::numeric AS n, true AS b,
      '\\x00ff'::bytea AS raw, '{"a": [1]}'::jsonb AS doc, ARRAY[1, 2]::int4[] AS nums, ARRAY['x', NULL] AS tags,
      '2026-01-02 03:04:05.5+00'::timestamptz AS at, 'text' AS t, NULL::text AS nothing, 1 AS dup, 2 AS dup`;
    const out = await execute(sql, [], { formatRecordsAs: 'JSON', includeResultMetadata: true });
    expect(out.records).toBeUndefined();
    expect(out.columnMetadata).toBeUndefined(); // "blank if the formatRecordsAs parameter is set to JSON"
    expect(JSON.parse(out.formattedRecords!)).toEqual([
      {
        i: 7,
        l: 9007199254740991,
        d: 0.5,
        n: '12.50', // decimalReturnType STRING, the default
        b: true,
        raw: 'AP8=', // base64, as blobValue
        doc: '{"a": [1]}',
        nums: [1, 2],
        tags: ['x', null],
        at: '2026-01-02 03:04:05.5',
        t: 'text',
        nothing: null,
        dup: 2, // a repeated label keeps its last value
      },
    ]);
    const none = await execute('SELECT 1 AS one', [], { formatRecordsAs: 'NONE' });
    expect(none.records).toEqual([[{ longValue: 1 }]]);
    expect(none.formattedRecords).toBeUndefined();
    const bad = await failure(execute('SELECT 1', [], { formatRecordsAs: 'CSV' }));
    expect(bad).toMatchObject({ name: 'BadRequestException', status: 400 });
    // 200 rows of 60,000 bytes: each row under 64 KB, the JSON string over 10 MB
    const huge = await failure(
      execute(`SELECT repeat('x', 60000) AS s FROM generate_series(1, 200)`, [], { formatRecordsAs: 'JSON' }),
    );
    expect(huge.name).toBe('BadRequestException');
    expect(huge.message).toMatch(/response size limit.*over 10 MB/);
    // over 1 MiB but under 10 MB: the 1 MiB a response of the limitations page, as for records
    const big = await failure(
      execute(`SELECT repeat('x', 60000) AS s FROM generate_series(1, 20)`, [], { formatRecordsAs: 'JSON' }),
    );
    expect(big).toMatchObject({ name: 'BadRequestException' });
    expect(big.message).toBe('Database returned more than the allowed response size limit');
  });

  it('makes a committed transaction visible and a rolled-back one not', async () => {
    const { transactionId: kept } = await client.send(new BeginTransactionCommand(target));
    await execute("INSERT INTO sim_items (id, note) VALUES (10, 'kept')", [], { transactionId: kept });
    const outside = await execute('SELECT count(*) FROM sim_items WHERE id = 10');
    expect(outside.records).toEqual([[{ longValue: 0 }]]);
    const done = await client.send(new CommitTransactionCommand({ ...target, transactionId: kept! }));
    expect(done.transactionStatus).toBe('Transaction Committed');

    const { transactionId: dropped } = await client.send(new BeginTransactionCommand(target));
    await client.send(
      new BatchExecuteStatementCommand({
        ...target,
        transactionId: dropped,
        sql: 'INSERT INTO sim_items (id, note) VALUES (:id, :note)',
        parameterSets: [
          [
            { name: 'id', value: { longValue: 11 } },
            { name: 'note', value: { stringValue: 'gone' } },
          ],
          [
            { name: 'id', value: { longValue: 12 } },
            { name: 'note', value: { stringValue: 'gone' } },
          ],
        ],
      }),
    );
    const undone = await client.send(new RollbackTransactionCommand({ ...target, transactionId: dropped! }));
    expect(undone.transactionStatus).toBe('Rollback Complete');
    const after = await execute('SELECT id, note FROM sim_items WHERE id >= 10 ORDER BY id');
    expect(after.records).toEqual([[{ longValue: 10 }, { stringValue: 'kept' }]]);
    const again = await failure(client.send(new CommitTransactionCommand({ ...target, transactionId: dropped! })));
    expect(again.name).toBe('TransactionNotFoundException');

    // Outside a transaction a batch whose second set fails (id 10 exists) leaves its first set out too.
    const clash = await failure(
      client.send(
        new BatchExecuteStatementCommand({
          ...target,
          sql: 'INSERT INTO sim_items (id) VALUES (:id)',
          parameterSets: [[{ name: 'id', value: { longValue: 13 } }], [{ name: 'id', value: { longValue: 10 } }]],
        }),
      ),
    );
    expect(clash.message).toContain('SQLState: 23505');
    const ids = await execute('SELECT array_agg(id ORDER BY id) FROM sim_items WHERE id >= 10');
    expect(ids.records).toEqual([[{ arrayValue: { longValues: [10] } }]]);
  });

  it('rolls back a transaction idle past its expiry, and later calls with its id fail', async () => {
    const { transactionId } = await client.send(new BeginTransactionCommand(target));
    await execute("INSERT INTO sim_items (id, note) VALUES (20, 'lost')", [], { transactionId });
    await execute('SELECT 1', [], { transactionId }); // a call restarts the idle clock
    await new Promise((r) => setTimeout(r, 400));
    const late = await failure(execute('SELECT 1', [], { transactionId }));
    expect(late).toMatchObject({ name: 'TransactionNotFoundException', status: 404 });
    // counted as the caller's quota problem (the rehearsal's table shows it)
    expect(sim.limitHits).toContainEqual(expect.objectContaining({ limit: 'Data API transaction idle expiry' }));
    expect(late.message).toMatch(/timed out/);
    const unknown = await failure(execute('SELECT 1', [], { transactionId: 'no-such-transaction' }));
    expect(unknown.name).toBe('TransactionNotFoundException');
    const rows = await execute('SELECT count(*) FROM sim_items WHERE id = 20');
    expect(rows.records).toEqual([[{ longValue: 0 }]]);
  });

  it('answers DatabaseResumingException while paused, until the instance has resumed', async () => {
    await sim.pause();
    const first = await failure(execute('SELECT 1'));
    expect(first).toMatchObject({ name: 'DatabaseResumingException', status: 400 });
    expect((await failure(execute('SELECT 1'))).name).toBe('DatabaseResumingException');
    await new Promise((r) => setTimeout(r, 350));
    expect((await execute('SELECT 1 AS one')).records).toEqual([[{ longValue: 1 }]]);
    expect(sim.isPaused).toBe(false);
  });

  it('refuses a response over 1 MiB and a row over 64 KB', async () => {
    const big = await failure(execute("SELECT repeat('x', 60000) FROM generate_series(1, 20)"));
    expect(big).toMatchObject({ name: 'BadRequestException', status: 400 });
    expect(big.message).toMatch(/response size limit/);
    const fits = await execute("SELECT repeat('x', 60000) FROM generate_series(1, 10)");
    expect(fits.records).toHaveLength(10);
    const wide = await failure(execute("SELECT repeat('x', 70000)"));
    expect(wide.message).toMatch(/64 KB/);
  });

  it('refuses a request over 4 MiB', async () => {
    const huge = 'x'.repeat(4 * 1024 * 1024);
    const refused = await failure(execute('SELECT length(:s)', [{ name: 's', value: { stringValue: huge } }]));
    expect(refused).toMatchObject({ name: 'BadRequestException', status: 400 });
    expect(refused.message).toMatch(/4 MiB/);
    expect(sim.limitHits).toContainEqual(
      expect.objectContaining({ limit: 'Data API request (4 MiB)', allowed: 4 * 1024 * 1024 }),
    );
    const fine = await execute('SELECT length(:s)', [{ name: 's', value: { stringValue: 'x'.repeat(60000) } }]);
    expect(fine.records).toEqual([[{ longValue: 60000 }]]);
  });

  it('refuses a secret or cluster it does not know', async () => {
    const secret = await failure(
      client.send(
        new ExecuteStatementCommand({
          ...target,
          secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:other-XyZ',
          sql: 'SELECT 1',
        }),
      ),
    );
    expect(secret).toMatchObject({ name: 'ForbiddenException', status: 403 });
    const cluster = await failure(
      client.send(
        new BeginTransactionCommand({ ...target, resourceArn: 'arn:aws:rds:eu-west-1:123456789012:cluster:other' }),
      ),
    );
    expect(cluster.name).toBe('BadRequestException');
  });

  it('answers StatementTimeoutException for a statement over the timeout, and cancels it', async () => {
    const quick = new RdsDataSim({ url: db.url, schema: db.schema, statementTimeoutMs: 200 });
    const quickClient = new RDSDataClient({
      endpoint: await quick.listen(),
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      maxAttempts: 1,
    });
    try {
      const slow = failure(
        quickClient.send(new ExecuteStatementCommand({ ...target, sql: "SELECT pg_sleep(5), 'sim-slow-query'" })),
      );
      expect(await slow).toMatchObject({ name: 'StatementTimeoutException', status: 400 });
      // The cancel reaches the backend asynchronously: allow it a second, far less than the 5 s sleep.
      let running = -1;
      for (let i = 0; i < 20 && running !== 0; i++) {
        const { rows } = await db.pool.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%sim-slow-query%' " +
            "AND state = 'active' AND pid <> pg_backend_pid()",
        );
        running = rows[0].n;
        if (running) await new Promise((r) => setTimeout(r, 50));
      }
      expect(running).toBe(0);
    } finally {
      quickClient.destroy();
      await quick.close();
    }
  });

  it('passes a SQL error on with its Postgres message', async () => {
    const err = await failure(execute('SELECT * FROM no_such_table'));
    expect(err.name).toBe('DatabaseErrorException');
    expect(err.message).toContain('relation "no_such_table" does not exist');
    expect(err.message).toContain('SQLState: 42P01');
    // Every statement runs as a prepared statement does: one per call, as AWS recommends.
    const several = await failure(execute('SELECT 1; SELECT 2'));
    expect(several.name).toBe('DatabaseErrorException');
    expect(several.message).toMatch(/cannot insert multiple commands into a prepared statement.*SQLState: 42601/);
    const missing = await failure(execute('SELECT :absent'));
    expect(missing.name).toBe('BadRequestException');
  });
});
