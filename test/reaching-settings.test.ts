// Migration 020 rewrote reaching_settings as one expression Postgres inlines (it ran per row of sweep_runs as a call
// it could not): the answers must be migration 011's. 011's two functions, as that file wrote them, are created in a
// schema of this test's own and asked the same questions as the migrated schema's, for every provider and for every
// setting the lists name, one at a time and all together, with settings that no list names, and none at all.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { LISTED_SETTINGS } from '../reports/setting-reach.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
let reference: pg.Client;
const REFERENCE = `ref_${process.pid}`;

/** Migration 011's CREATE FUNCTION statement for `name`, as written. */
function migration011(name: string): string {
  const text = readFileSync(new URL('../migrations/011_valid_statistics.sql', import.meta.url), 'utf8');
  const start = text.indexOf(`CREATE FUNCTION ${name}(`);
  return text.slice(start, text.indexOf('$$;', start) + 3);
}

beforeAll(async () => {
  db = await testDatabase();
  reference = new pg.Client({ connectionString: db.url });
  await reference.connect();
  await reference.query(`CREATE SCHEMA ${REFERENCE}`);
  // names in a SQL function's body resolve on the search_path when it runs: this client reaches 011's only
  await reference.query(`SET search_path TO ${REFERENCE}`);
  await reference.query(migration011('setting_reaches'));
  await reference.query(migration011('reaching_settings'));
});

afterAll(async () => {
  await reference?.query(`DROP SCHEMA IF EXISTS ${REFERENCE} CASCADE`);
  await reference?.end();
  await db?.drop();
});

const PROVIDERS = ['baseline', 'ollama', 'bedrock'];
// settings added after 020, which 011 could not know (022 lists provider_outage_wait_minutes as reaching no agent,
// 023 the openai section as reaching openai agents only, 033 belief_probe_every as reaching no baseline)
const ADDED_SINCE = ['provider_outage_wait_minutes', 'openai', 'max_cost_usd', 'max_tokens', 'belief_probe_every'];
const KEYS = [
  ...LISTED_SETTINGS.filter((k) => !ADDED_SINCE.includes(k)),
  'prices',
  'history_event_budget',
  'a_setting_added_later',
];
const SETTINGS: Array<Record<string, unknown> | null> = [
  null,
  {},
  ...KEYS.map((k) => ({ [k]: 1 })),
  Object.fromEntries(KEYS.map((k, i) => [k, i % 3 === 0 ? null : { nested: [i, 'x'] }])),
];

describe("migration 020's reaching_settings and setting_reaches", () => {
  it("answer as migration 011's for every provider, setting and set of settings", async () => {
    const ask = async (client: { query: pg.Client['query'] }) => {
      const out: unknown[] = [];
      for (const provider of PROVIDERS) {
        for (const settings of SETTINGS) {
          const { rows } = await client.query('SELECT reaching_settings($1, $2::jsonb) AS r', [
            provider,
            settings === null ? null : JSON.stringify(settings),
          ]);
          out.push(rows[0].r);
        }
        const { rows } = await client.query('SELECT k, setting_reaches($1, k) AS r FROM unnest($2::text[]) AS k', [
          provider,
          KEYS,
        ]);
        out.push(rows);
      }
      return out;
    };
    const migrated = await ask(db.pool);
    expect(migrated).toEqual(await ask(reference));
    // and they are not all alike: a baseline is split by none of a model's settings, a model by them
    expect(migrated).toContainEqual({});
    expect(migrated).toContainEqual({ observation: 1 });
  });

  it('is inlined: a query that calls it runs one expression per row, no function call', async () => {
    const { rows } = await db.pool.query(
      "EXPLAIN (VERBOSE, COSTS off) SELECT reaching_settings(provider, config) FROM experiments WHERE agent = 'x'",
    );
    const plan = rows.map((r) => r['QUERY PLAN'] as string).join('\n');
    expect(plan).not.toMatch(/reaching_settings|unreached_settings/);
    expect(plan).toMatch(/COALESCE\(config, '\{\}'::jsonb\) - /);
  });
});
