// Every results command prints the same bytes locally (pg) and with --aws (the Data API simulator in front of the same
// schema) on a laptop far from UTC: each runs with TZ=Pacific/Auckland and its stdout and written files are compared
// byte for byte. Below that, a query over every type the schema uses returns equal rows through both transports,
// and a SQLState is read from pg's field and from the Data API's message.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { startExperiment } from '../core/engine/experiment.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { DataApiDatabase } from '../core/store/data-api-sql.ts';
import { openDatabase, type Database } from '../core/store/database.ts';
import { withRetry } from '../core/store/retry-query.ts';
import { sqlStateOf } from '../core/store/sql-state.ts';
import { DatabaseUnavailableError } from '../core/store/sql.ts';
import { RdsDataSim } from '../simulators/rds-data-sim.ts';
import { CloudFormationSim } from '../simulators/cloudformation-sim.ts';
import { SfnSim } from '../simulators/sfn-sim.ts';
import { type CliResult } from './support/cli.ts';
import { ariadneInProcess } from './support/cli-in-process.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';

/** 13 hours ahead of UTC in its summer (12 in winter): a date or a wall-clock time moved by it shows. */
const TZ = 'Pacific/Auckland';
const SWEEP = 'bytes';

let db: TestDatabase;
/** The same schema through pg, on sessions whose server default is Auckland time: the pool must set UTC. */
let local: Database;
let data: RdsDataSim;
let api: DataApiDatabase;
const cfn = new CloudFormationSim();
const sfn = new SfnSim();
let localEnv: Record<string, string | undefined>;
let awsEnv: Record<string, string | undefined>;
let runId: string;
const previousTz = process.env.TZ;

beforeAll(async () => {
  process.env.TZ = TZ; // this process too, for the rows compared in it
  db = await testDatabase();
  const sweep = loadSweep(
    `sweep: ${SWEEP}
agents: [{ agent: random }, { agent: frontier }]
mazes: { generators: [medium], sizes: [9], seeds: [1] }
config: { max_moves: 60 }
repeats: 2
`,
    'test',
  );
  await runLocalSweep(sweep, { db, concurrency: 2 });
  runId = (
    await db.pool.query<{ experiment_id: string }>(
      'SELECT experiment_id FROM sweep_runs WHERE sweep_id = $1 ORDER BY cell_index, repeat LIMIT 1',
      [SWEEP],
    )
  ).rows[0].experiment_id;
  // one experiment in flight, outside the sweep, for `status`
  await startExperiment(
    {
      experimentId: 'bytes-running',
      agent: 'random',
      provider: 'baseline',
      agentSeed: 1,
      maze: { kind: 'generated', spec: { generator: 'medium', width: 9, height: 9, seed: 2 } },
      config: { max_moves: 40 },
    },
    new PgStore(db),
  );

  // as a server initialised on an Auckland laptop would start every session
  const aucklandUrl = `${db.url}${db.url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c TimeZone=${TZ}`)}`;
  local = await openDatabase({ url: aucklandUrl, schema: db.schema, migrate: false, poolSize: 2 });
  data = new RdsDataSim({ url: db.url, schema: db.schema });
  const dataUrl = await data.listen();
  api = new DataApiDatabase({
    resourceArn: data.clusterArn,
    secretArn: data.secretArn,
    database: data.database,
    client: new RDSDataClient({
      endpoint: dataUrl,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'sim', secretAccessKey: 'sim' },
    }),
  });
  cfn.addStack({
    name: 'Ariadne',
    status: 'UPDATE_COMPLETE',
    outputs: {
      StateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:AriadneExperiments',
      SweepStateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:AriadneSweeps',
      SweepBucketName: 'ariadne-sweeps',
      DatabaseClusterArn: data.clusterArn,
      DatabaseSecretArn: data.secretArn,
      // the read-only role is not what this test is about: reads connect as the sim's one user
      DatabaseReaderSecretArn: data.secretArn,
      BedrockModels: 'none',
      DatabaseName: data.database,
    },
  });
  localEnv = { TZ, DATABASE_URL: aucklandUrl, DATABASE_SCHEMA: db.schema };
  awsEnv = {
    TZ,
    DATABASE_URL: undefined,
    DATABASE_SCHEMA: undefined,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'sim',
    AWS_SECRET_ACCESS_KEY: 'sim',
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    AWS_ENDPOINT_URL_CLOUDFORMATION: await cfn.listen(),
    AWS_ENDPOINT_URL_RDS_DATA: dataUrl,
    AWS_ENDPOINT_URL_SFN: await sfn.listen(),
  };
}, 120_000);

afterAll(async () => {
  if (previousTz === undefined) delete process.env.TZ;
  else process.env.TZ = previousTz;
  await api?.close();
  await local?.close();
  await data?.close();
  await cfn.close();
  await sfn.close();
  await db?.drop();
});

// Every type the schema and views use, with values a time zone or a parser would change: a timestamptz near
// midnight UTC (its date differs in Auckland), a timestamp and a date without a zone, an interval.
const EVERY_TYPE = `SELECT
  '2026-01-02'::date AS a_date,
  '2026-01-02 03:04:05.5'::timestamp AS a_timestamp,
  '2026-01-02 03:04:05.123456+00'::timestamptz AS a_timestamptz,
  '2026-01-01 20:00:00+00'::timestamptz::date AS its_date,
  '2026-01-01 20:00:00+00'::timestamptz::text AS its_text,
  now()::date = (now() AT TIME ZONE 'UTC')::date AS session_in_utc,
  interval '1 day 2 hours 3.5 seconds' AS an_interval,
  '04:05:06.25'::time AS a_time,
  1.50::numeric AS a_numeric,
  round(2::numeric / 3, 4) AS a_rounded,
  9007199254740991::int8 AS a_bigint,
  count(*) AS a_count,
  42::int4 AS an_int,
  7::int2 AS a_smallint,
  0.1::float8 AS a_float,
  2.5::float4 AS a_real,
  true AS a_bool,
  '{"a": [1, "x"], "b": null}'::jsonb AS a_jsonb,
  '[1, 2.5]'::json AS a_json,
  ARRAY['a', 'b c', NULL] AS a_text_array,
  ARRAY[1, 2]::int8[] AS a_bigint_array,
  ARRAY[1.5, 2]::numeric[] AS a_numeric_array,
  ARRAY[true, false] AS a_bool_array,
  ARRAY['2026-01-02'::date] AS a_date_array,
  ARRAY['2026-01-02 03:04:05+00'::timestamptz] AS a_timestamptz_array,
  '\\x0102ff'::bytea AS a_bytea,
  'plain text'::text AS a_text,
  NULL::text AS a_null
FROM generate_series(1, 3)`;

describe('a row over every type, through both transports (this process in Pacific/Auckland)', () => {
  it('decodes to the same values, each in its canonical form', async () => {
    expect((await local.pool.query("SELECT current_setting('TimeZone') AS tz")).rows).toEqual([{ tz: 'UTC' }]);
    const overPg = (await local.query(EVERY_TYPE)).rows;
    expect((await api.query(EVERY_TYPE)).rows).toEqual(overPg);
    expect(overPg[0]).toEqual({
      a_date: '2026-01-02',
      a_timestamp: '2026-01-02 03:04:05.5',
      a_timestamptz: new Date('2026-01-02T03:04:05.123Z'),
      its_date: '2026-01-01',
      its_text: '2026-01-01 20:00:00+00',
      session_in_utc: true,
      an_interval: '1 day 02:00:03.5',
      a_time: '04:05:06.25',
      a_numeric: 1.5,
      a_rounded: 0.6667,
      a_bigint: 9_007_199_254_740_991,
      a_count: 3,
      an_int: 42,
      a_smallint: 7,
      a_float: 0.1,
      a_real: 2.5,
      a_bool: true,
      a_jsonb: { a: [1, 'x'], b: null },
      a_json: [1, 2.5],
      a_text_array: ['a', 'b c', null],
      a_bigint_array: [1, 2],
      a_numeric_array: [1.5, 2],
      a_bool_array: [true, false],
      a_date_array: ['2026-01-02'],
      a_timestamptz_array: [new Date('2026-01-02T03:04:05Z')],
      a_bytea: Buffer.from([1, 2, 255]),
      a_text: 'plain text',
      a_null: null,
    });
  });

  it('a Date parameter is the same instant, and the same wall-clock text in a column without a zone', async () => {
    const at = new Date('2026-11-23T14:05:06.789Z');
    // two parameters: the second is read as a timestamp straight from the text the transport sent
    const sql = 'SELECT $1::timestamptz AS instant, $2::timestamp AS wall_clock';
    const overPg = (await local.query(sql, [at, at])).rows;
    expect(overPg).toEqual([{ instant: at, wall_clock: '2026-11-23 14:05:06.789' }]);
    expect((await api.query(sql, [at, at])).rows).toEqual(overPg);
  });
});

describe('SQLState: a field where there is one, the message where there is none', () => {
  const divide = `DO $$ BEGIN RAISE EXCEPTION 'terminating connection, or so it says' USING ERRCODE = '22012'; END $$`;

  it("pg: the error's code field, and the retry decided by it, not by words that look transient", async () => {
    let attempts = 0;
    const err = await withRetry(() => {
      attempts += 1;
      return local.pool.query(divide);
    }).catch((e: unknown) => e);
    expect(sqlStateOf(err)).toEqual({ code: '22012', from: 'field' });
    expect(attempts).toBe(1);
    // a transient SQLState is retried, then reported as unavailable
    attempts = 0;
    const serialization = `DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$`;
    const retried = await withRetry(
      () => {
        attempts += 1;
        return local.pool.query(serialization);
      },
      { attempts: 3, baseDelayMs: 1 },
    ).catch((e: unknown) => e);
    expect(retried).toBeInstanceOf(DatabaseUnavailableError);
    expect(attempts).toBe(3);
  });

  it('the Data API: the same SQLState, read from the message, and marked so', async () => {
    const err = await api.query(divide).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'SqlError', code: '22012', message: 'terminating connection, or so it says' });
    expect(sqlStateOf(err)).toEqual({ code: '22012', from: 'message' });
  });
});

/** The command locally and with --aws, at once when it writes no files. */
async function bothWays(args: string[], sequential = false): Promise<{ local: CliResult; aws: CliResult }> {
  const run = (env: Record<string, string | undefined>, extra: string[]) => ariadneInProcess([...args, ...extra], env);
  const [local, aws] = sequential
    ? [await run(localEnv, []), await run(awsEnv, ['--aws'])]
    : await Promise.all([run(localEnv, []), run(awsEnv, ['--aws'])]);
  expect(local.stderr).not.toMatch(/ariadne:/);
  expect(aws.stderr).not.toMatch(/ariadne:/);
  expect([local.code, aws.code], aws.stderr).toEqual([0, 0]);
  expect(aws.stderr).toContain('through the RDS Data API');
  expect(local.stdout.length).toBeGreaterThan(0);
  return { local, aws };
}

describe(`results commands print the same bytes locally and with --aws (TZ=${TZ})`, () => {
  const READS: Array<[string, () => string[]]> = [
    ['list', () => ['list']],
    ['list --sweeps', () => ['list', '--sweeps']],
    ['summary', () => ['summary', runId]],
    ['stats', () => ['stats', SWEEP, '--resamples', '200']],
    ['compare', () => ['compare', SWEEP, 'random', 'frontier']],
    ['sql over every type', () => ['sql', EVERY_TYPE]],
    [
      'sql over the summary view',
      () => [
        'sql',
        'SELECT experiment_id, status, started_at, completed_at, wall_seconds, efficiency, cost_usd, ' +
          `started_at::date AS started_on FROM experiment_summary WHERE experiment_id LIKE '${SWEEP}-c%' ` +
          'ORDER BY experiment_id',
      ],
    ],
  ];

  it.each(READS.flatMap(([label, args]) => [[label, args, false] as const, [`${label} --json`, args, true] as const]))(
    '%s',
    async (_label, args, json) => {
      const { local, aws } = await bothWays([...args(), ...(json ? ['--json'] : [])]);
      expect(aws.stdout).toBe(local.stdout);
    },
  );

  it('sql --json over every type prints each type in its canonical form', async () => {
    const { local, aws } = await bothWays(['sql', EVERY_TYPE, '--json']);
    expect(aws.stdout).toBe(local.stdout);
    expect(JSON.parse(local.stdout)[0]).toMatchObject({
      a_date: '2026-01-02',
      a_timestamp: '2026-01-02 03:04:05.5',
      a_timestamptz: '2026-01-02T03:04:05.123Z',
      its_date: '2026-01-01',
      an_interval: '1 day 02:00:03.5',
      a_numeric: 1.5,
    });
  });

  it("list shows when each run started on the researcher's clock, the same on both", async () => {
    const { local } = await bothWays(['list', '--sweep', SWEEP]);
    const started = (await db.query<{ started_at: Date }>('SELECT started_at FROM experiments WHERE id = $1', [runId]))
      .rows[0].started_at;
    const pad = (n: number) => String(n).padStart(2, '0');
    // the wall clock of Auckland (this process runs in it too), not UTC's
    const auckland =
      `${started.getFullYear()}-${pad(started.getMonth() + 1)}-${pad(started.getDate())} ` +
      `${pad(started.getHours())}:${pad(started.getMinutes())}`;
    expect(started.getTimezoneOffset()).toBeLessThanOrEqual(-12 * 60);
    expect(local.stdout).toContain(auckland);
  });

  // --aws also counts the executions Step Functions lists as running: a line of its own, or a key added last.
  it.each([
    ['sweep status', () => ['sweep', 'status', SWEEP]],
    ['status', () => ['status']],
  ])('%s --json: the same, plus the executions', async (_label, args) => {
    const { local, aws } = await bothWays([...args(), '--json']);
    const parsed = JSON.parse(local.stdout) as Record<string, unknown>;
    expect(`${JSON.stringify(parsed, null, 2)}\n`).toBe(local.stdout);
    const expected = `${JSON.stringify({ ...parsed, executions: { experiments: 0, sweeps: 0 } }, null, 2)}\n`;
    expect(aws.stdout).toBe(expected);
    if (args()[0] === 'status') expect(parsed).toMatchObject({ running: [{ experiment_id: 'bytes-running' }] });
  });

  it('sweep status: the same lines, after the one counting executions', async () => {
    const { local, aws } = await bothWays(['sweep', 'status', SWEEP]);
    expect(aws.stdout).toBe(`on AWS: 0 experiment execution(s) and 0 sweep execution(s) running\n${local.stdout}`);
  });

  // Both write to the same directory, one after the other, so the paths they print are the same too.
  it.each([
    ['export --format csv', (dir: string) => ['export', SWEEP, '--format', 'csv', '--out-dir', dir]],
    ['replay', (dir: string) => ['replay', runId, '--out-dir', dir]],
    ['report', (dir: string) => ['report', SWEEP, '--out-dir', dir, '--max-replays', '2']],
  ])('%s: the same output and files', async (_label, args) => {
    const dir = tempDir('same-bytes');
    for (const json of [false, true]) {
      const outputs: Array<{ stdout: string; files: Buffer[] }> = [];
      for (const [env, extra] of [
        [localEnv, []],
        [awsEnv, ['--aws']],
      ] as const) {
        const r = await ariadneInProcess([...args(dir), ...(json ? ['--json'] : []), ...extra], env);
        expect(r.code, r.stderr).toBe(0);
        // what each says it wrote: every file as JSON, the first file of each line as text
        const paths = json
          ? (JSON.parse(r.stdout) as { files: Array<{ path: string }> }).files.map((f) => f.path)
          : [...r.stdout.matchAll(/^(\/\S+?\.(?:csv|jsonl|html))\b/gm)].map((m) => m[1]);
        expect(paths.length).toBeGreaterThan(0);
        outputs.push({ stdout: r.stdout, files: paths.map((p) => readFileSync(p)) });
      }
      const [local, aws] = outputs;
      expect(aws.stdout).toBe(local.stdout);
      expect(aws.files).toHaveLength(local.files.length);
      for (const [i, f] of local.files.entries()) expect(aws.files[i].equals(f), `file ${i}`).toBe(true);
    }
  });
});
