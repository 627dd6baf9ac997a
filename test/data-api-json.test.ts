// The Data API transport's JSON reads (formatRecordsAs JSON, core/store/data-api-sql.ts): a SELECT seen before is
// read as formattedRecords, decoded by the column types learnt from its first `records` read. The port's values must
// not change: every column type the migrated schema uses, with edge values, and every table and view of a schema
// holding a real experiment, read both ways through RdsDataSim, must be deeply equal; paging and a stale shape too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { RdsDataSim } from '../simulators/rds-data-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { DataApiDatabase } from '../core/store/data-api-sql.ts';
import { readPaged } from '../core/store/pages.ts';
import type { SqlValue } from '../core/store/sql.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';

let db: TestDatabase;
let sim: RdsDataSim;
let json: DataApiDatabase;
let records: DataApiDatabase;
const clients: RDSDataClient[] = [];

function transport(jsonRecords: boolean, endpoint: string): DataApiDatabase {
  const client = new RDSDataClient({
    endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    maxAttempts: 1,
  });
  clients.push(client);
  return new DataApiDatabase({
    resourceArn: sim.clusterArn,
    secretArn: sim.secretArn,
    database: sim.database,
    client,
    jsonRecords,
  });
}

beforeAll(async () => {
  db = await testDatabase(2);
  sim = new RdsDataSim({ url: db.url, schema: db.schema });
  const endpoint = await sim.listen();
  json = transport(true, endpoint);
  records = transport(false, endpoint);
});

afterAll(async () => {
  await json?.close();
  await records?.close();
  for (const c of clients) c.destroy();
  await sim?.close();
  await db?.drop();
});

/** How the statements since `n` asked for their records: 'JSON' or 'records'. */
const formatsSince = (n: number) =>
  sim.requests.slice(n).map((r) => (r.body?.formatRecordsAs === 'JSON' ? 'JSON' : 'records'));

/** One read through `records`, and the same one twice through the JSON transport (learnt, then JSON). */
async function bothWays(text: string, values: SqlValue[] = []) {
  const expected = await records.query(text, values);
  await json.query(text, values);
  const before = sim.requests.length;
  const got = await json.query(text, values);
  expect(formatsSince(before), text).toEqual(['JSON']);
  return { expected, got };
}

// Values as Postgres reads them (cast from text), edge cases included, for every type the schema's columns use and
// the other types the port decodes (sql.ts).
const SAMPLES: Record<string, string[]> = {
  int2: ['-32768', '0', '32767'],
  int4: ['-2147483648', '0', '7', '2147483647'],
  int8: ['-9007199254740991', '0', '9007199254740991'],
  float4: ['0.5', '-1.25e-10', '3.4e38'],
  float8: ['0', '-0.125', '1e300', '3.141592653589793', '5e-324'],
  numeric: ['0', '12.50', '-0.0001', '123456789.123456789', '1e20'],
  bool: ['t', 'f'],
  text: ['', 'plain', 'quo"te \\ back', '{"looks": "like json"}', '2026-01-02 03:04:05', 'ünïcode ☃', 'NULL'],
  varchar: ['short', ''],
  uuid: ['9d2626e7-45e5-5ef0-a9f9-7a8972426715'],
  json: ['{"b": 1, "a": [1, "x", null]}', '"s"', '3', 'null'],
  jsonb: ['{"walls": [3, 4], "nested": {"ok": true, "none": null}, "text": "a \\"q\\" \\\\ b"}', '[]', '1.5'],
  timestamptz: ['2026-11-23 14:05:06.789+00', '2026-01-02 03:04:05.123456+02', '1999-12-31 23:59:59+00', 'infinity'],
  timestamp: ['2026-11-23 14:05:06.7', '2026-01-02 03:04:05'],
  date: ['2026-01-02'],
  time: ['03:04:05.5'],
  interval: ['1 day 02:00:00'],
  bytea: ['\\x', '\\x00ff10', '\\x68656c6c6f'],
  _text: ['{}', '{plain,"a,b","quo\\"te",NULL,"",NULL}', '{"{brace}"," spaced "}'],
  _int4: ['{1,-2,3}', '{}', '{NULL,4}'],
  _int8: ['{9007199254740991}'],
  _float8: ['{0.5,-1}'],
  _bool: ['{t,f}'],
  _numeric: ['{1.5,2}'],
  _timestamptz: ['{"2026-01-02 03:04:05+00"}'],
};

describe('DataApiDatabase with formatRecordsAs JSON', () => {
  it('reads every column type the schema uses as `records` does: the same values, NULL included', async () => {
    const { rows } = await db.pool.query<{ type: string }>(
      `SELECT DISTINCT udt_name AS type FROM information_schema.columns WHERE table_schema = $1 ORDER BY 1`,
      [db.schema],
    );
    const used = rows.map((r) => r.type);
    expect(used.filter((t) => !(t in SAMPLES))).toEqual([]); // a type the schema gained needs samples here
    for (const [type, samples] of Object.entries(SAMPLES)) {
      const { expected, got } = await bothWays(
        `SELECT n, CAST(x AS "${type}") AS v, 'k' AS label FROM unnest($1::text[]) WITH ORDINALITY AS t(x, n)
         ORDER BY n`,
        [samples],
      );
      expect(got, type).toStrictEqual(expected);
      expect(got.rows.length, type).toBe(samples.length);
    }
    const nulls = await bothWays(
      `SELECT ${Object.keys(SAMPLES)
        .map((t) => `NULL::"${t}" AS "${t}"`)
        .join(', ')}`,
    );
    expect(nulls.got).toStrictEqual(nulls.expected);
    expect(Object.values(nulls.got.rows[0]).every((v) => v === null)).toBe(true);
  });

  it('reads every table and view of a schema holding a real experiment as `records` does', async () => {
    await runLocalExperiment(
      { agent: 'random', agentSeed: 3, maze: { generator: 'perfect', size: 7, seed: 2 }, config: { max_moves: 15 } },
      { db },
    );
    const { rows } = await db.pool.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
      [db.schema],
    );
    expect(rows.length).toBeGreaterThan(5);
    let compared = 0;
    for (const { name } of rows) {
      const { expected, got } = await bothWays(`SELECT * FROM "${name}" ORDER BY 1`);
      expect(got, name).toStrictEqual(expected);
      compared += got.rows.length;
    }
    expect(compared).toBeGreaterThan(15); // the experiment's actions at least
  });

  it('pages a read past 1 MiB as before: the JSON page over the limit is read again halved', async () => {
    const read = (last: { n: number } | undefined, limit: number) =>
      json
        .query<{ n: number; s: string }>(
          `SELECT n, repeat('x', 2000) AS s FROM generate_series(1, 1500) n WHERE n > $1 ORDER BY n LIMIT $2`,
          [last?.n ?? 0, limit],
        )
        .then((r) => r.rows);
    const before = sim.requests.length;
    const all = await readPaged(read, 1000); // 1,000 rows of 2 KB are over 1 MiB in either form
    expect(all.map((r) => r.n)).toEqual(Array.from({ length: 1500 }, (_, i) => i + 1));
    const formats = formatsSince(before);
    expect(formats[0]).toBe('records'); // over the limit: nothing learnt
    expect(formats).toContain('JSON');
  });

  it('reads again as `records` when the columns are no longer the learnt ones (a changed table)', async () => {
    await db.pool.query(`CREATE TABLE json_shape (id int PRIMARY KEY, note text)`);
    await db.pool.query(`INSERT INTO json_shape VALUES (1, 'a')`);
    await json.query('SELECT * FROM json_shape');
    expect((await json.query('SELECT * FROM json_shape')).rows).toEqual([{ id: 1, note: 'a' }]);
    await db.pool.query(`ALTER TABLE json_shape ADD COLUMN doc jsonb DEFAULT '{"k": [1]}'`);
    const before = sim.requests.length;
    const { rows, columns } = await json.query('SELECT * FROM json_shape');
    expect(rows).toEqual([{ id: 1, note: 'a', doc: { k: [1] } }]);
    expect(columns).toEqual(['id', 'note', 'doc']);
    expect(formatsSince(before)).toEqual(['JSON', 'records']);
    await json.query('SELECT * FROM json_shape');
    expect(formatsSince(before)).toEqual(['JSON', 'records', 'JSON']); // the new shape learnt
  });

  it('keeps writes and statements that are not a SELECT as `records`', async () => {
    const before = sim.requests.length;
    for (let i = 0; i < 2; i++)
      await json.query(`INSERT INTO json_shape (id, note) VALUES ($1, 'w') RETURNING id, doc`, [10 + i]);
    expect(formatsSince(before)).toEqual(['records', 'records']);
  });
});
