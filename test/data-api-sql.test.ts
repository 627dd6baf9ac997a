// The Data API transport (core/store/data-api-sql.ts) against RdsDataSim, which speaks the Data API's protocol
// in front of real Postgres with AWS's limits: the SQL port's contract (sql.ts) must hold here as it does for pg,
// and the Data API's own failures (auto-pause, service errors, oversized results) must come out as the port says.
import { readdir, readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import { ExecuteStatementCommand, RDSDataClient } from '@aws-sdk/client-rds-data';
import { RdsDataSim } from '../simulators/rds-data-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import {
  DataApiDatabase,
  SqlError,
  TransactionNotFoundError,
  type DataApiOptions,
} from '../core/store/data-api-sql.ts';
import { DatabaseUnavailableError, ResultTooLargeError, type SqlDatabase } from '../core/store/sql.ts';
import { splitStatements, toNamedParameters } from '../core/store/sql-text.ts';

const MIGRATIONS = new URL('../migrations/', import.meta.url);
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };

let db: TestDatabase;
let sim: RdsDataSim;
let endpoint: string;
const clients: RDSDataClient[] = [];
const opened: SqlDatabase[] = [];
const sims: RdsDataSim[] = [];

function sdkClient(at = endpoint): RDSDataClient {
  const client = new RDSDataClient({ endpoint: at, region: 'eu-west-1', credentials, maxAttempts: 1 });
  clients.push(client);
  return client;
}

/** A DataApiDatabase on `target` (the shared sim unless given), through a client of the test's. */
function dataApi(opts: Partial<DataApiOptions> = {}, target: RdsDataSim = sim, at = endpoint): DataApiDatabase {
  const d = new DataApiDatabase({
    resourceArn: target.clusterArn,
    secretArn: target.secretArn,
    database: target.database,
    client: sdkClient(at),
    ...opts,
  });
  opened.push(d);
  return d;
}

/** A real client with failures injected before chosen calls: what a dropped connection or a 5xx looks like. */
function flakyClient(failWith: (command: object, call: number) => Error | undefined): RDSDataClient {
  const real = sdkClient();
  let calls = 0;
  const fake = {
    send: (command: object) => {
      calls += 1;
      const err = failWith(command, calls);
      return err ? Promise.reject(err) : real.send(command as ExecuteStatementCommand);
    },
    destroy: () => undefined,
  };
  return fake as unknown as RDSDataClient;
}

function sdkError(name: string, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { name, $metadata: {}, ...extra });
}

async function failure(p: Promise<unknown>): Promise<any> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the call should have failed').not.toBeNull();
  return err;
}

const pathsSince = (n: number) => sim.requests.slice(n).map((r) => r.path);

beforeAll(async () => {
  db = await testDatabase(2);
  sim = new RdsDataSim({ url: db.url, schema: db.schema, resumeAfterMs: 300, transactionIdleMs: 300 });
  sims.push(sim);
  endpoint = await sim.listen();
  await db.pool.query(`CREATE TABLE dapi_items (id int PRIMARY KEY, note text)`);
});

afterAll(async () => {
  for (const d of opened) await d.close();
  for (const c of clients) c.destroy();
  for (const s of sims) await s.close();
  await db?.drop();
});

describe('sql-text', () => {
  it('turns $n into :pn outside strings, identifiers, comments, dollar quotes and casts', () => {
    expect(toNamedParameters('SELECT $1::int, $2, $10 FROM t WHERE a = $3')).toBe(
      'SELECT :p1::int, :p2, :p10 FROM t WHERE a = :p3',
    );
    const kept = [
      `'$1 it''s $2'`,
      `E'\\' $1'`,
      `"col$1"`,
      `-- $1 ;\n`,
      `/* $1 /* nested $2 */ $3 */`,
      `$$ $1; $$`,
      `$fn$ $1 $$ $2 $fn$`,
      `price$1`,
    ];
    for (const text of kept) expect(toNamedParameters(`${text} $4`), text).toBe(`${text} :p4`);
  });

  it('splits at top-level semicolons only, dropping comment-only pieces', () => {
    const script = `
      -- leading comment; with a semicolon
      CREATE TABLE a (x text DEFAULT 'a;b', "we;ird" int);
      /* block; /* nested; */ still; */
      CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $body$
      BEGIN PERFORM 1; RETURN $$;$$::text = ';'; END
      $body$;
      SELECT E'\\';' AS s;;
      -- trailing comment;
    `;
    const parts = splitStatements(script);
    expect(parts).toHaveLength(3);
    expect(parts[0]).toMatch(/^-- leading comment; with a semicolon\n\s*CREATE TABLE a .*"we;ird" int\)$/);
    expect(parts[1]).toMatch(/^\/\* block; \/\* nested; \*\/ still; \*\/\s*CREATE FUNCTION f\(\)[\s\S]*\$body\$$/);
    expect(parts[2]).toBe(`SELECT E'\\';' AS s`);
  });

  it('splits every migration into statements Postgres runs one at a time (005 counted by hand)', async () => {
    const sweeps = splitStatements(await readFile(new URL('005_sweeps.sql', MIGRATIONS), 'utf8'));
    // 2 CREATE TABLE, 4 ADD COLUMN, 1 ADD CONSTRAINT, 1 CREATE UNIQUE INDEX, 1 view, 5 functions, 3 views.
    const heads = sweeps.map((s) => /^(?:--[^\n]*\n)*\s*(\w+ \w+ \w+)/.exec(s)?.[1]);
    expect(heads).toEqual([
      'CREATE TABLE sweeps',
      'CREATE TABLE sweep_cells',
      ...Array<string>(5).fill('ALTER TABLE experiments'),
      'CREATE UNIQUE INDEX',
      'CREATE VIEW sweep_runs',
      'CREATE FUNCTION wilson_low',
      'CREATE FUNCTION wilson_high',
      'CREATE FUNCTION all_k_succeed',
      'CREATE FUNCTION ln_choose',
      'CREATE FUNCTION mcnemar_exact_p',
      'CREATE VIEW sweep_stats',
      'CREATE VIEW sweep_pass_k',
      'CREATE VIEW sweep_pairs',
    ]);
    expect(sweeps[9]).toMatch(/\$\$\s*SELECT CASE[\s\S]*END\n\$\$$/);
  });
});

describe('DataApiDatabase', () => {
  it('round-trips every type of the contract, NULLs included', async () => {
    const d = dataApi();
    await d.query(`CREATE TABLE dapi_types (id int8 PRIMARY KEY, small int2, whole int4, big int8, amount numeric,
      ratio float8, half float4, flag bool, doc jsonb, raw json, tags text[], nums int4[], at timestamptz,
      local timestamp, note text, name varchar(20))`);
    const at = new Date('2026-11-23T14:05:06.789Z');
    const tags = ['plain', 'a,b', 'quo"te', 'back\\slash', '{brace}', 'NULL', '', ' spaced ', "it's", 'ünï'];
    const doc = { walls: [3, 4], nested: { ok: true, none: null }, text: 'a "q" \\ b' };
    const insert = await d.query(
      `INSERT INTO dapi_types VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::json, $11::text[],
        $12::int4[], $13, $14, $15, $16), ($17, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        $18, NULL, $19, NULL)`,
      [
        ...[1, -7, 123_456, 9_007_199_254_740_991, 12.5, 2.25, 0.5, true, JSON.stringify(doc), '[1,"x"]'],
        ...[tags, ['1', '-2', '3'], at, at, "it's -- not a comment", 'short', 2, null, null],
      ],
    );
    expect(insert.rowCount).toBe(2);
    const { rows } = await d.query('SELECT * FROM dapi_types ORDER BY id');
    expect(rows).toEqual([
      {
        id: 1,
        small: -7,
        whole: 123_456,
        big: 9_007_199_254_740_991,
        amount: 12.5,
        ratio: 2.25,
        half: 0.5,
        flag: true,
        doc,
        raw: [1, 'x'],
        tags,
        nums: [1, -2, 3],
        at,
        // a timestamp without a zone: the text Postgres prints (the Date went as UTC), not a Date
        local: '2026-11-23 14:05:06.789',
        note: "it's -- not a comment",
        name: 'short',
      },
      {
        id: 2,
        ...Object.fromEntries(
          ['small', 'whole', 'big', 'amount', 'ratio', 'half', 'flag', 'doc', 'raw'].map((k) => [k, null]),
        ),
        ...{ tags: null, nums: null, at: null, local: null, note: null, name: null },
      },
    ]);
    expect(rows[0].at).toBeInstanceOf(Date);

    const counts = await d.query(
      `SELECT count(*) AS n, sum(big) AS total, avg(whole)::numeric(10,2) AS mean, bool_and(flag) AS all_set,
              max(at) AS latest, array_agg(id ORDER BY id) AS ids, array_agg(note ORDER BY id) AS notes,
              $1::float8 AS fraction, $2::bool AS no, $3::text AS absent, '{}'::text[] AS empty
       FROM dapi_types`,
      [-0.125, false, null],
    );
    expect(counts.rows).toEqual([
      {
        n: 2,
        total: 9_007_199_254_740_991,
        mean: 123_456,
        all_set: true,
        latest: at,
        ids: [1, 2],
        notes: ["it's -- not a comment", null],
        fraction: -0.125,
        no: false,
        absent: null,
        empty: [],
      },
    ]);
    const timestamps = await d.query(
      `SELECT '2026-01-02 03:04:05.123456+00'::timestamptz AS micro, '2026-01-02 03:04:05+00'::timestamptz AS whole`,
    );
    expect(timestamps.rows[0]).toEqual({
      micro: new Date('2026-01-02T03:04:05.123Z'),
      whole: new Date('2026-01-02T03:04:05Z'),
    });
  });

  it('counts rows: returned by a query or RETURNING, else changed', async () => {
    const d = dataApi();
    await d.query('INSERT INTO dapi_items VALUES ($1, $2), ($3, $4)', [100, 'a', 101, 'b']);
    expect((await d.query(`UPDATE dapi_items SET note = 'c' WHERE id >= 100`)).rowCount).toBe(2);
    const returning = await d.query('DELETE FROM dapi_items WHERE id = $1 RETURNING id, note', [100]);
    expect(returning).toEqual({ rows: [{ id: 100, note: 'c' }], rowCount: 1, columns: ['id', 'note'] });
    expect(await d.query('SELECT id FROM dapi_items WHERE id = -1')).toEqual({
      rows: [],
      rowCount: 0,
      columns: ['id'],
    });
    expect((await d.query('DELETE FROM dapi_items WHERE id >= 100')).rowCount).toBe(1);
  });

  it('commits a transaction, and rolls one back when its function throws', async () => {
    const d = dataApi();
    const before = sim.requests.length;
    const kept = await d.transaction(async (tx) => {
      await tx.query('INSERT INTO dapi_items VALUES ($1, $2)', [200, 'kept']);
      const inside = await tx.query<{ n: number }>('SELECT count(*) AS n FROM dapi_items WHERE id = 200');
      const outside = await d.query<{ n: number }>('SELECT count(*) AS n FROM dapi_items WHERE id = 200');
      return [inside.rows[0].n, outside.rows[0].n];
    });
    expect(kept).toEqual([1, 0]);
    expect(pathsSince(before)).toEqual(['/BeginTransaction', '/Execute', '/Execute', '/Execute', '/CommitTransaction']);
    expect(sim.requests.slice(before + 1, before + 3).every((r) => typeof r.body.transactionId === 'string')).toBe(
      true,
    );
    expect(sim.requests[before + 3].body.transactionId).toBeUndefined();

    const boom = new Error('changed my mind');
    const mid = sim.requests.length;
    const thrown = await failure(
      d.transaction(async (tx) => {
        await tx.query('INSERT INTO dapi_items VALUES ($1, $2)', [201, 'dropped']);
        throw boom;
      }),
    );
    expect(thrown).toBe(boom);
    expect(pathsSince(mid)).toEqual(['/BeginTransaction', '/Execute', '/RollbackTransaction']);
    const { rows } = await d.query('SELECT id FROM dapi_items WHERE id IN (200, 201)');
    expect(rows).toEqual([{ id: 200 }]);
  });

  it('waits out a paused cluster resuming, then runs the statement', async () => {
    const d = dataApi();
    await sim.pause();
    const before = sim.requests.length;
    const { rows } = await d.query('SELECT 1 AS one');
    expect(rows).toEqual([{ one: 1 }]);
    expect(sim.isPaused).toBe(false);
    const attempts = sim.requests.slice(before);
    expect(attempts.length).toBeGreaterThan(1); // at least one DatabaseResumingException came first
    expect(attempts.every((r) => r.path === '/Execute')).toBe(true);
  });

  it('gives DatabaseUnavailableError when the resume outlasts the retry budget', async () => {
    const slow = new RdsDataSim({ url: db.url, schema: db.schema, resumeAfterMs: 5_000 });
    sims.push(slow);
    const at = await slow.listen();
    await slow.pause();
    const d = dataApi({ retryBudgetMs: 600 }, slow, at);
    const started = Date.now();
    const err = await failure(d.query('SELECT 1'));
    const took = Date.now() - started;
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect(err.name).toBe('DatabaseUnavailableError');
    expect(err.message).toMatch(/resuming from auto-pause/);
    expect(err.message).toMatch(/retry budget 600 ms/);
    expect(err.cause.name).toBe('DatabaseResumingException');
    expect(took).toBeGreaterThanOrEqual(600);
    expect(took).toBeLessThan(3_000);
    expect(slow.requests.length).toBeGreaterThan(2);
  });

  it('backs off exponentially with jitter and spends exactly its budget', async () => {
    const delays: number[] = [];
    let calls = 0;
    const d = dataApi({
      client: flakyClient(() => {
        calls += 1;
        return sdkError('ServiceUnavailableError', 'Service unavailable', { $fault: 'server' });
      }),
      retryBudgetMs: 40_000,
      sleep: (ms) => {
        delays.push(ms);
        return Promise.resolve();
      },
    });
    const err = await failure(d.query('SELECT 1'));
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect(err.message).toMatch(/ServiceUnavailableError/);
    expect(calls).toBe(delays.length + 1);
    expect(delays.reduce((a, b) => a + b, 0)).toBe(40_000);
    expect(delays[0]).toBeGreaterThanOrEqual(100);
    expect(delays[0]).toBeLessThanOrEqual(200);
    expect(delays[3]).toBeGreaterThanOrEqual(800);
    expect(delays[3]).toBeLessThanOrEqual(1600);
    expect(Math.max(...delays)).toBeLessThanOrEqual(5_000);
  });

  it('retries network errors and 5xx outside a transaction, but not a refused call', async () => {
    let failed = 0;
    const d = dataApi({
      client: flakyClient((_c, call) => {
        if (call > 2) return undefined;
        failed += 1;
        return call === 1
          ? Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', $metadata: {} })
          : sdkError('InternalServerErrorException', 'Internal error', { $fault: 'server' });
      }),
      sleep: () => Promise.resolve(),
    });
    expect((await d.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
    expect(failed).toBe(2);

    let forbidden = 0;
    const refused = dataApi({
      client: flakyClient(() => {
        forbidden += 1;
        return sdkError('ForbiddenException', 'Not authorized', { $fault: 'client' });
      }),
      sleep: () => Promise.resolve(),
    });
    const err = await failure(refused.query('SELECT 1'));
    expect(err.name).toBe('ForbiddenException');
    expect(forbidden).toBe(1);
  });

  it('reruns a whole transaction whose statement hit a serialization failure (40001)', async () => {
    const d = dataApi({ sleep: () => Promise.resolve() });
    const before = sim.requests.length;
    let runs = 0;
    const result = await d.transaction(async (tx) => {
      runs += 1;
      await tx.query('INSERT INTO dapi_items VALUES ($1, $2)', [300, `run ${runs}`]);
      // A real Postgres error with that SQLState, through the sim as the Data API passes it on.
      if (runs === 1) await tx.query(`DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$`);
      return runs;
    });
    expect(result).toBe(2);
    expect(pathsSince(before)).toEqual([
      '/BeginTransaction',
      '/Execute',
      '/Execute',
      '/RollbackTransaction',
      '/BeginTransaction',
      '/Execute',
      '/CommitTransaction',
    ]);
    expect((await d.query('SELECT note FROM dapi_items WHERE id = 300')).rows).toEqual([{ note: 'run 2' }]);
  });

  it('reruns a whole transaction after a connection failure inside it, and not after a plain SQL error', async () => {
    let dropped = false;
    const d = dataApi({
      client: flakyClient((command) => {
        const sql = (command as ExecuteStatementCommand).input?.sql ?? '';
        if (!dropped && sql.startsWith('UPDATE')) {
          dropped = true;
          return Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', $metadata: {} });
        }
        return undefined;
      }),
      sleep: () => Promise.resolve(),
    });
    await d.query('INSERT INTO dapi_items VALUES (400, $1)', ['start']);
    let runs = 0;
    await d.transaction(async (tx) => {
      runs += 1;
      await tx.query(`UPDATE dapi_items SET note = note || '+' WHERE id = 400`);
      await tx.query(`INSERT INTO dapi_items VALUES (401, 'with it')`);
    });
    expect(runs).toBe(2);
    const { rows } = await d.query('SELECT id, note FROM dapi_items WHERE id >= 400 ORDER BY id');
    expect(rows).toEqual([
      { id: 400, note: 'start+' },
      { id: 401, note: 'with it' },
    ]);

    runs = 0;
    const err = await failure(
      d.transaction(async (tx) => {
        runs += 1;
        await tx.query(`INSERT INTO dapi_items VALUES (401, 'again')`);
      }),
    );
    expect(err).toMatchObject({ name: 'SqlError', code: '23505' });
    expect(runs).toBe(1);
  });

  it('retries a class 08 SQLState outside a transaction, within its budget', async () => {
    const d = dataApi({ retryBudgetMs: 300 });
    const err = await failure(d.query(`DO $$ BEGIN RAISE EXCEPTION 'link lost' USING ERRCODE = '08006'; END $$`));
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect(err.message).toMatch(/SQLState 08006/);
    expect(err.cause).toMatchObject({ name: 'SqlError', code: '08006', message: 'link lost' });
  });

  it('keeps a SQL error its SQLState as code and its Postgres message, without retrying it', async () => {
    const d = dataApi();
    const before = sim.requests.length;
    const err = await failure(d.query('SELECT * FROM no_such_table'));
    expect(err).toBeInstanceOf(SqlError);
    expect(err).toMatchObject({
      name: 'SqlError',
      code: '42P01',
      message: 'relation "no_such_table" does not exist',
      position: 15,
    });
    expect(err.cause.name).toBe('DatabaseErrorException');
    expect(sim.requests.length - before).toBe(1);
  });

  it('is refused a statement string holding several statements, as a prepared statement is', async () => {
    const err = await failure(dataApi().query('SELECT 1; SELECT 2'));
    expect(err).toMatchObject({ name: 'SqlError', code: '42601' });
    expect(err.message).toMatch(/cannot insert multiple commands into a prepared statement/);
  });

  it('gives ResultTooLargeError for a response over 1 MiB or a row over 64 KB', async () => {
    const d = dataApi();
    const before = sim.requests.length;
    const big = await failure(d.query(`SELECT repeat('x', 60000) AS s FROM generate_series(1, 20)`));
    expect(big).toBeInstanceOf(ResultTooLargeError);
    expect(big.name).toBe('ResultTooLargeError');
    expect(big.message).toMatch(/response size limit/);
    const wide = await failure(d.query(`SELECT repeat('x', 70000) AS s`));
    expect(wide).toBeInstanceOf(ResultTooLargeError);
    expect(sim.requests.length - before).toBe(2); // neither was retried
    expect((await d.query(`SELECT repeat('x', 60000) AS s FROM generate_series(1, 10)`)).rowCount).toBe(10);
  });

  it('names an expired transaction', async () => {
    const d = dataApi();
    const err = await failure(
      d.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await new Promise((r) => setTimeout(r, 500)); // the sim's idle expiry is 300 ms
        await tx.query('SELECT 2');
      }),
    );
    expect(err).toBeInstanceOf(TransactionNotFoundError);
    expect(err.name).toBe('TransactionNotFoundError');
    expect(err.message).toMatch(/TransactionNotFoundException/);
    expect(err.message).toMatch(/idle for over three minutes/);
  });

  it('applies every migration statement by statement to the same schema as pg applies the files', async () => {
    const url = inject('databaseUrl');
    const viaDataApi = `t_${randomBytes(6).toString('hex')}`;
    const viaPg = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA ${viaDataApi}; CREATE SCHEMA ${viaPg}`);
      const files = (await readdir(MIGRATIONS)).filter((f) => f.endsWith('.sql')).sort();
      expect(files.length).toBeGreaterThanOrEqual(7);

      const fresh = new RdsDataSim({ url, schema: viaDataApi });
      sims.push(fresh);
      const d = dataApi({}, fresh, await fresh.listen());
      let statements = 0;
      for (const f of files) {
        const sql = await readFile(new URL(f, MIGRATIONS), 'utf8');
        await admin.query(`SET search_path TO ${viaPg}`);
        await admin.query(sql);
        for (const statement of splitStatements(sql)) {
          statements += 1;
          await d.query(statement).catch((err: Error) => {
            throw new Error(`${f}: ${err.message}\n${statement}`);
          });
        }
      }
      await admin.query('RESET search_path');
      // every file, counted by statement
      // 001-016: 8 + 1 + 1 + 12 + 17 + 1 + 6 + 2 + 1 + 3 + 15 + 5 + 1 + 7 + 1 + 3; 017: 6; 018: 2; 019: 1;
      // 020: 3; 021: 1; 022: 2; 023: 2; 024: 1; 025: 3; 026: 1; 027: 4; 028: 4; 029: 5; 030: 1; 031: 8; 032: 5;
      // 033: 4; 034: 4; 035: 3
      expect(statements).toBe(144);

      const catalog = async (schema: string) => {
        const { rows } = await admin.query(
          `SELECT 'column' AS kind, table_name || '.' || column_name AS name,
                  concat_ws(' ', ordinal_position, data_type, udt_name, is_nullable, column_default) AS def
           FROM information_schema.columns WHERE table_schema = $1
           UNION ALL SELECT 'view', table_name, view_definition FROM information_schema.views
           WHERE table_schema = $1
           UNION ALL SELECT 'routine', routine_name, concat_ws(' ', data_type, routine_definition)
           FROM information_schema.routines WHERE routine_schema = $1
           UNION ALL SELECT 'index', indexname, indexdef FROM pg_indexes WHERE schemaname = $1
           UNION ALL SELECT 'constraint', conrelid::regclass::text || '.' || conname, pg_get_constraintdef(oid)
           FROM pg_constraint WHERE connamespace = $1::regnamespace
           UNION ALL SELECT 'options', relname, array_to_string(reloptions, ',') FROM pg_class
           WHERE relnamespace = $1::regnamespace AND reloptions IS NOT NULL
           ORDER BY 1, 2, 3`,
          [schema],
        );
        return rows.map((r: { kind: string; name: string; def: string | null }) =>
          `${r.kind} ${r.name}: ${r.def ?? ''}`.replaceAll(schema, 'S'),
        );
      };
      const [applied, expected] = [await catalog(viaDataApi), await catalog(viaPg)];
      expect(applied).toEqual(expected);
      for (const thing of ['view sweep_runs', 'routine wilson_low', 'routine agent_ignores_seed', 'column turns.'])
        expect(
          expected.some((line) => line.startsWith(thing)),
          thing,
        ).toBe(true);
      expect(expected.some((line) => line.startsWith('options experiments: fillfactor=50'))).toBe(true);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS ${viaDataApi} CASCADE; DROP SCHEMA IF EXISTS ${viaPg} CASCADE`);
      await admin.end();
    }
  });
});
