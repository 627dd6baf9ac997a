// The results commands over both transports of the SQL port: the same sweep read through pg and through the
// RDS Data API (the local server speaking its protocol, with its 1 MiB response limit) gives the same export
// files, replay, report, comparison and summary; and a sweep whose action log passes 1 MiB is read whole over
// the Data API, in pages.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { agentStoryOf } from '../results/agent-story.ts';
import { summaryOf } from '../results/summary-row.ts';
import { exportSweep } from '../reports/export.ts';
import { loadReplay, loadReplayAfter } from '../reports/replay-data.ts';
import { loadReport } from '../reports/report-data.ts';
import { compareAgents } from '../reports/compare.ts';
import { showSummary } from '../bin/cli/summary.ts';
import { pagesOf, readAhead } from '../core/store/pages.ts';
import { ResultTooLargeError, type SqlDatabase } from '../core/store/sql.ts';
import { overDataApi, type RdsDataSim } from '../simulators/rds-data-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';

let db: TestDatabase;
let sim: RdsDataSim;
/** The same schema through the Data API, and nothing else: no pool to fall back on. */
let api: SqlDatabase;
const dir = tempDir('results-transports');
const BIG_ACTIONS = 6_000;

beforeAll(async () => {
  db = await testDatabase();
  const over = await overDataApi(db, { url: db.url });
  sim = over.sim;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- overDataApi binds them to its DataApiDatabase
  api = { query: over.query, transaction: over.transaction, transport: over.transport, close: async () => {} };
  const sweep = loadSweep(
    `sweep: small
agents: [{ agent: random }, { agent: frontier }]
mazes: { generators: [medium], sizes: [11], seeds: [4, 5] }
config: { max_moves: 200 }
repeats: 2
`,
    'test',
  );
  await runLocalSweep(sweep, { db, concurrency: 4 });
  await bigSweep();
}, 120_000);
afterAll(async () => {
  await sim?.close();
  await db?.drop();
});

/**
 * Sweep "big": one run copied from "small" with an action log of BIG_ACTIONS rows written by generate_series,
 * each with a 40-cell vision cone and some reasoning, so its log is several MiB as the Data API sends it.
 */
async function bigSweep(): Promise<void> {
  const q = (text: string) => db.pool.query(text);
  const turns = BIG_ACTIONS / 10;
  const cone = JSON.stringify(Array.from({ length: 40 }, (_, i) => [1 + (i % 8), 1 + Math.floor(i / 8), 0]));
  const source = (
    await db.pool.query<{ id: string; sweep_cell: number }>(
      "SELECT id, sweep_cell FROM experiments WHERE sweep_id = 'small' ORDER BY sweep_cell, sweep_repeat LIMIT 1",
    )
  ).rows[0];
  await q(
    `INSERT INTO sweeps (id, spec, spec_hash, spec_text, cells, repeats) VALUES ('big', '{}', 'big', 'big', 1, 1)`,
  );
  await q(`INSERT INTO sweep_cells
           SELECT 'big', 0, cell_key, label, agent, model, maze_generator, maze_size, maze_seed, settings
           FROM sweep_cells WHERE sweep_id = 'small' AND cell_index = ${source.sweep_cell}`);
  await q(`INSERT INTO experiments (id, agent, provider, model, prompt_version, agent_seed, maze_id, config,
             optimal_moves, status, goal_found, stop_reason, started_at, completed_at, position_x, position_y,
             turns_completed, actions_taken, tiles_seen, sweep_id, sweep_cell, sweep_repeat, sweep_attempt)
           SELECT 'big-1', agent, provider, model, prompt_version, agent_seed, maze_id, config, optimal_moves,
             'completed', false, 'max_moves', started_at, completed_at, 1, 1, ${turns}, ${BIG_ACTIONS}, 40,
             'big', 0, 0, 1
           FROM experiments WHERE id = '${source.id}'`);
  await q(`INSERT INTO turns (experiment_id, turn_number, started_at, ended_at, stop_reason, actions_executed,
             calls_refused, goal_found, actions_taken_after, tiles_seen_after, position_x_after, position_y_after,
             agent_phase)
           SELECT 'big-1', t, now(), now(), 'action_limit', 10, 0, false, t * 10, 40, 1, 1, 'exploring'
           FROM generate_series(1, ${turns}) t`);
  await q(`INSERT INTO actions (experiment_id, turn_number, call_index, step_number, tool, arguments, executed, success,
             outcome, message, from_x, from_y, to_x, to_y, vision, new_tiles_seen, goal_found)
           SELECT 'big-1', (s - 1) / 10 + 1, (s - 1) % 10, s, 'move',
             jsonb_build_object('direction', 'north', 'reasoning', 'step ' || s || ' ' || repeat('why ', 20)),
             true, true, 'moved', 'moved north', 1, 1, 1 + s % 2, 1, '${cone}', 0, false
           FROM generate_series(1, ${BIG_ACTIONS}) s`);
}

const runIds = async (sweep: string) =>
  (
    await db.pool.query<{ experiment_id: string }>(
      'SELECT experiment_id FROM sweep_runs WHERE sweep_id = $1 ORDER BY cell_index, repeat',
      [sweep],
    )
  ).rows.map((r) => r.experiment_id);

/** Statements the Data API server answered since `from` that read `table`. */
const requestsFor = (from: number, table: string) =>
  sim.requests.slice(from).filter((r) => new RegExp(`FROM ${table}\\b`).test(r.body.sql ?? '')).length;

describe('the results over pg and over the Data API', () => {
  it.each(['csv', 'jsonl'] as const)('export --format %s writes the same files', async (format) => {
    const overPg = await exportSweep(db, 'small', format, join(dir, `pg-${format}`));
    const before = sim.requests.length;
    const overApi = await exportSweep(api, 'small', format, join(dir, `api-${format}`));
    expect(sim.requests.length).toBeGreaterThan(before);
    expect(overApi.map((f) => f.rows)).toEqual(overPg.map((f) => f.rows));
    expect(overPg[0].rows).toBe(8);
    for (const [i, f] of overPg.entries())
      expect(readFileSync(overApi[i].file, 'utf8')).toBe(readFileSync(f.file, 'utf8'));
  });

  it('replay data, summary and agent story are the same for every run', async () => {
    for (const id of await runIds('small')) {
      expect(await loadReplay(api, id)).toEqual(await loadReplay(db, id));
      const summary = await summaryOf(db, id);
      expect(await summaryOf(api, id)).toEqual(summary);
      expect(await agentStoryOf(api, id, summary!.actions)).toEqual(await agentStoryOf(db, id, summary!.actions));
    }
  });

  it('the printed summary is the same, as text and as JSON', async () => {
    const id = (await runIds('small'))[0];
    const printed = async (on: SqlDatabase, json: boolean) => {
      const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      try {
        await showSummary(on, (await summaryOf(on, id))!, json);
        return write.mock.calls.map((c) => String(c[0])).join('');
      } finally {
        write.mockRestore();
      }
    };
    for (const json of [false, true]) {
      const overPg = await printed(db, json);
      expect(overPg).toContain(id);
      expect(await printed(api, json)).toBe(overPg);
    }
  });

  it('report data and the comparison of two agents are the same', async () => {
    const report = await loadReport(db, 'small');
    expect(report.runs).toHaveLength(8);
    expect(await loadReport(api, 'small')).toEqual(report);
    const c = await compareAgents(db, 'small', 'random', 'frontier');
    expect(await compareAgents(api, 'small', 'random', 'frontier')).toEqual(c);
  });
});

describe('results over 1 MiB', () => {
  it('one read of the action log is too large for the Data API; the paged reads get every row', async () => {
    await expect(
      api.query("SELECT * FROM actions WHERE experiment_id = 'big-1' ORDER BY step_number"),
    ).rejects.toBeInstanceOf(ResultTooLargeError);

    let before = sim.requests.length;
    const replay = await loadReplay(api, 'big-1');
    expect(requestsFor(before, 'actions')).toBeGreaterThan(2); // a page too large, then smaller pages
    expect(replay.steps).toBe(BIG_ACTIONS);
    expect(replay).toEqual(await loadReplay(db, 'big-1'));

    before = sim.requests.length;
    const overApi = await exportSweep(api, 'big', 'jsonl', join(dir, 'api-big'));
    expect(requestsFor(before, 'actions')).toBeGreaterThan(2);
    const overPg = await exportSweep(db, 'big', 'jsonl', join(dir, 'pg-big'));
    expect(overApi.map((f) => f.rows)).toEqual([1, BIG_ACTIONS]);
    for (const [i, f] of overPg.entries())
      expect(readFileSync(overApi[i].file, 'utf8')).toBe(readFileSync(f.file, 'utf8'));

    expect(await loadReport(api, 'big')).toEqual(await loadReport(db, 'big'));
    const summary = (await summaryOf(api, 'big-1'))!;
    expect(summary.actions).toBe(BIG_ACTIONS);
    expect(await agentStoryOf(api, 'big-1', summary.actions)).toEqual(await agentStoryOf(db, 'big-1', summary.actions));
  }, 60_000);

  it("the viewer's partial reads, a run's head and the turns after one, are the same over the Data API", async () => {
    for (const id of (await runIds('small')).slice(0, 2))
      for (const after of [0, 3, 10_000])
        expect(await loadReplayAfter(api, id, after)).toEqual(await loadReplayAfter(db, id, after));
    const head = await loadReplay(api, 'big-1', { headSteps: 500 });
    expect(head.steps).toBe(500); // turns of 10 actions: step 500 ends turn 50
    expect(head).toEqual(await loadReplay(db, 'big-1', { headSteps: 500 }));
    const before = sim.requests.length;
    const rest = await loadReplayAfter(api, 'big-1', 50);
    expect(requestsFor(before, 'actions')).toBeGreaterThan(2); // the rest passes 1 MiB: read in pages
    expect([rest.afterStep, rest.steps, rest.turns.length]).toEqual([500, BIG_ACTIONS - 500, BIG_ACTIONS / 10 - 50]);
    expect(rest).toEqual(await loadReplayAfter(db, 'big-1', 50));
  }, 60_000);
});

describe('pages', () => {
  it('a page over the response limit is read again with half the rows; later pages keep the smaller size', async () => {
    const rows = Array.from({ length: 23 }, (_, i) => i);
    const asked: number[] = [];
    const pages: number[][] = [];
    for await (const page of pagesOf<number>((last, limit) => {
      asked.push(limit);
      if (limit > 5) return Promise.reject(new ResultTooLargeError('too large'));
      const from = last === undefined ? 0 : last + 1;
      return Promise.resolve(rows.slice(from, from + limit));
    }, 16))
      pages.push(page);
    expect(pages.flat()).toEqual(rows);
    expect(asked).toEqual([16, 8, 4, 4, 4, 4, 4, 4]);
  });

  it('a single row over the limit, or any other error, is thrown', async () => {
    const read = (err: Error) => () => Promise.reject(err);
    await expect(pagesOf(read(new ResultTooLargeError('row too large')), 4).next()).rejects.toThrow('row too large');
    await expect(pagesOf(read(new Error('syntax error')), 4).next()).rejects.toThrow('syntax error');
  });
});

describe('readAhead: the next page is read while this one is used', () => {
  const tick = () => new Promise((r) => setTimeout(r, 2));
  async function* source(log: string[], pages: number, failAt = -1) {
    try {
      for (let k = 0; k < pages; k++) {
        log.push(`read ${k}`);
        await tick();
        if (k === failAt) throw new Error(`page ${k} failed`);
        yield k;
      }
    } finally {
      log.push('source closed');
    }
  }

  it('gives every page in order, each next read started before the consumer is done with the page before', async () => {
    const log: string[] = [];
    for await (const page of readAhead(source(log, 3))) {
      log.push(`use ${page}`);
      await tick();
      log.push(`used ${page}`);
    }
    expect(log).toEqual([
      'read 0',
      'read 1',
      'use 0',
      'used 0',
      'read 2',
      'use 1',
      'used 1',
      'source closed', // the end, too, is read while the last page is used
      'use 2',
      'used 2',
    ]);
  });

  it('a consumer that stops early closes the source after the read in flight, whose error is not thrown', async () => {
    const log: string[] = [];
    const seen: number[] = [];
    for await (const page of readAhead(source(log, 5, 1))) {
      seen.push(page);
      break;
    }
    expect(seen).toEqual([0]);
    expect(log).toEqual(['read 0', 'read 1', 'source closed']);
  });

  it("a read's error reaches the consumer at that page, after the pages before it", async () => {
    const log: string[] = [];
    const seen: number[] = [];
    const reading = (async () => {
      for await (const page of readAhead(source(log, 5, 2))) seen.push(page);
    })();
    await expect(reading).rejects.toThrow('page 2 failed');
    expect(seen).toEqual([0, 1]);
  });
});
