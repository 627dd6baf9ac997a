// Transcript search by trigram index: results/transcript-search.ts must give the same hits in
// the same order as the sequential scan it replaced (test/support/transcript-search-reference.ts), on text with
// LIKE's pattern characters, backslashes, case and non-ASCII letters, over both transports; and each source's
// filter must be one its index answers (the plan names the index).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { SEARCH_KINDS, searchTranscripts } from '../results/transcript-search.ts';
import type { Sql } from '../core/store/sql.ts';
import { TRANSPORTS, testDatabase, type TestDatabase } from './support/db.ts';
import { referenceSearch } from './support/transcript-search-reference.ts';

// Texts with LIKE's pattern characters (% _ \), mixed case, letters whose lower case is not ASCII, an emoji.
const TEXTS = [
  'Wall ahead: 100% sure, going north',
  'snake_case beats snakeXcase',
  'path C:\\maze\\exit (a back\\slash)',
  'École: straße ÜBER alles',
  'ÉCOLE again, über',
  'wall wall WALL',
  '50%_off, 0% chance',
  "it's a dead end",
  'nothing notable',
  'emoji 🧭 compass',
];

// Patterns: pattern characters that must match only themselves, case, non-ASCII, no hit, many hits, two letters.
const QUERIES = [
  'wall',
  'WALL',
  '100%',
  '0%',
  '%',
  '_',
  '%_',
  'e_c',
  'snake_',
  '\\',
  '\\s',
  '\\\\',
  'C:\\maze',
  'école',
  'ÉCOLE',
  'über',
  'STRASSE',
  'straße',
  '🧭',
  "it's",
  'move',
  'fly',
  'quota_used',
  'zz no such text',
  'ab',
];

/** 14 experiments (more than the newest searched first), two sharing a start time, three turns each. */
const RUNS = 14;

async function seeded(transport: (typeof TRANSPORTS)[number]) {
  const db = await testDatabase({ transport });
  const source = (
    await runLocalExperiment(
      { agent: 'random', agentSeed: 1, maze: { generator: 'medium', size: 9, seed: 1 }, config: { max_moves: 20 } },
      { db },
    )
  ).experimentId!;
  const q = (text: string, values: unknown[] = []) => db.pool.query(text, values);
  await q(
    `INSERT INTO experiments (id, agent, provider, model, prompt_version, agent_seed, maze_id, config, optimal_moves,
       status, goal_found, stop_reason, started_at, completed_at, position_x, position_y, turns_completed,
       actions_taken, tiles_seen, failure_reason)
     SELECT 'search-' || lpad(i::text, 2, '0'), agent, provider, model, prompt_version, i, maze_id, config,
       optimal_moves, CASE WHEN i % 4 = 0 THEN 'failed' ELSE 'completed' END, false, 'max_moves',
       -- runs 6 and 7 start at the same moment: their order is their ids'
       started_at + make_interval(mins => CASE WHEN i = 7 THEN 6 ELSE i END), completed_at, 1, 1, 3, 3, 5,
       CASE WHEN i % 4 = 0 THEN 'provider 50% down_time, ÉTAT \\ unknown' END
     FROM generate_series(0, $1 - 1) i, experiments WHERE id = $2`,
    [RUNS, source],
  );
  await q(
    `INSERT INTO turns (experiment_id, turn_number, started_at, ended_at, stop_reason, actions_executed,
       calls_refused, goal_found, actions_taken_after, tiles_seen_after, position_x_after, position_y_after)
     SELECT e.id, j, now(), now(), 'action_limit', 1, (j = 3)::int, false, j, 5, 1, 1
     FROM experiments e, generate_series(1, 3) j WHERE e.id LIKE 'search-%'`,
  );
  // one executed call a turn, its reasoning in the column or (even turns) in the arguments; a refused call in
  // turn 3; one model call a turn, with a retried error in turn 2: no two hits of one kind share a turn and step
  await q(
    `INSERT INTO actions (experiment_id, turn_number, call_index, step_number, tool, arguments, reasoning, executed,
       success, outcome, message, from_x, from_y, to_x, to_y, vision, new_tiles_seen, goal_found)
     SELECT e.id, j, 0, j, CASE WHEN n % 2 = 0 THEN 'look_around' ELSE 'move' END,
       CASE WHEN j % 2 = 0 THEN jsonb_build_object('reasoning', ($1::text[])[(n * 3 + j) % $2 + 1]) END,
       CASE WHEN j % 2 = 1 THEN ($1::text[])[(n * 3 + j) % $2 + 1] END,
       true, true, 'moved', 'moved', 1, 1, 1, 1, '[]'::jsonb, 0, false
     FROM (SELECT id, right(id, 2)::int AS n FROM experiments WHERE id LIKE 'search-%') e, generate_series(1, 3) j
     UNION ALL
     SELECT id, 3, 1, NULL, 'fly_Away', '{}'::jsonb, NULL, false, false, 'unknown_tool', 'No such tool: 100% made_up',
       1, 1, 1, 1, '[]', 0, false
     FROM experiments WHERE id LIKE 'search-%'`,
    [TEXTS, TEXTS.length],
  );
  await q(
    `INSERT INTO llm_calls (experiment_id, turn_number, call_index, first_action_index, latency_ms, assistant_text,
       tool_calls, retries)
     SELECT e.id, j, 0, 0, 10, ($1::text[])[(n + j * 5) % $2 + 1], '[]',
       CASE WHEN j = 2 THEN jsonb_build_array(jsonb_build_object('attempt', 1, 'status', 500,
         'error', 'Throttling: quota_used at 100% \\ Été')) ELSE '[]' END
     FROM (SELECT id, right(id, 2)::int AS n FROM experiments WHERE id LIKE 'search-%') e, generate_series(1, 3) j`,
    [TEXTS, TEXTS.length],
  );
  await q('ANALYZE');
  return db;
}

describe.each(TRANSPORTS)('transcript search over %s', (transport) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await seeded(transport);
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  it('finds the same hits in the same order as the sequential scan it replaced', async () => {
    let compared = 0;
    let found = 0;
    let cut = 0;
    for (const text of QUERIES)
      for (const kind of [undefined, ...SEARCH_KINDS])
        for (const limit of [2, 200]) {
          const q = { q: text, kind, limit };
          const expected = await referenceSearch(db, q);
          expect(await searchTranscripts(db, q), JSON.stringify(q)).toEqual(expected);
          compared += 1;
          found += expected.hits.length;
          if (expected.more) cut += 1;
        }
    // the seed is not vacuous: many hits, and limits that cut them short
    expect(compared).toBe(QUERIES.length * 5 * 2);
    expect(found).toBeGreaterThan(1000);
    expect(cut).toBeGreaterThan(40);
  });

  it('matches pattern characters and case as the text, not as a pattern', async () => {
    const snippets = async (q: string) => (await searchTranscripts(db, { q, limit: 200 })).hits.map((h) => h.snippet);
    const percentUnderscore = await snippets('%_');
    expect(percentUnderscore.length).toBeGreaterThan(0);
    expect(percentUnderscore.every((s) => s.includes('%_'))).toBe(true);
    expect((await snippets('e_c')).every((s) => s.toLowerCase().includes('e_c'))).toBe(true);
    expect(await snippets('zz no such text')).toEqual([]);
    expect((await snippets('\\s')).every((s) => s.includes('\\s'))).toBe(true);
    expect((await snippets('ÉCOLE')).length).toBeGreaterThan(0);
    expect((await snippets('ÉCOLE')).every((s) => s.toLowerCase().includes('école'))).toBe(true);
  });
});

describe('the search plan', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await seeded('pg');
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  it('answers each source from the trigram index on its text', async () => {
    const seen: Array<{ text: string; values: readonly unknown[] }> = [];
    const recording: Sql = {
      query: (text, values) => {
        seen.push({ text, values: values ?? [] });
        return db.query(text, values);
      },
    };
    await searchTranscripts(recording, { q: 'dead end', limit: 50 });
    const full = seen.at(-1)!;
    expect(full.values).toHaveLength(3); // the newest experiments had too few hits: the whole search ran
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      // a few dozen rows are cheaper read whole: make every other way cost what it would on a million rows
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('SET LOCAL enable_indexscan = off');
      const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${full.text}`, [...full.values])).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      for (const index of [
        'llm_calls_reply_search',
        'actions_reasoning_search',
        'actions_tool_search',
        'experiments_failure_search',
        'llm_calls_retries_search',
        'actions_refusal_search',
      ])
        expect(plan, plan).toContain(`Bitmap Index Scan on ${index}`);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
