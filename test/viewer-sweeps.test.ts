// The viewer's sweep pages in headless Chromium, against a real local sweep: the list shows its progress, the
// factor grid has a row per cell whose done and success counts are the database's, the report's plots draw, and
// the paired comparison shows the McNemar p that reports/compare.ts computes. Against a sweep with an unpriced
// model, a missing one and two observation formats: unknown cost shows as unknown (never $0), errors apart with
// their reasons, a row per format, and a cell's interval the same text as its statistics row, saying what it counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { compareAgents } from '../reports/compare.ts';
import type { RunningViewer } from '../viewer/server.ts';
import { openPage, screenshotPath } from './support/browser.ts';
import { viewerSession } from './support/viewer-session.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { providerSims } from './support/provider-sims.ts';
import { runModelSweep } from './support/model-sweep.ts';
import { sweepStatistics } from '../reports/sweep-statistics.ts';
import { formatInterval } from '../reports/stat-format.ts';

const sims = providerSims();

const SWEEP = `sweep: viewer-test
description: random vs frontier, small mazes
agents:
  - { agent: random }
  - { agent: frontier }
mazes:
  generators: [medium, perfect]
  sizes: [11]
  seeds: [1]
config:
  max_moves: 120
repeats: 3
max_concurrency: 4
`;

let db: TestDatabase;
let browser: Browser;
let viewer: RunningViewer;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  db = await testDatabase();
  await runLocalSweep(loadSweep(SWEEP, 'test'), { db });
  await runModelSweep(db, 'viewer-models', sims.ollamaUrl);
  ({ browser, viewer, close } = await viewerSession(db));
});

afterAll(() => close?.());

describe('sweeps', () => {
  it('lists the sweep with its runs done out of planned', async () => {
    const { page, errors } = await openPage(browser, `${viewer.url}sweeps`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    const cells = await page.$$eval('#sweeps tr[data-id="viewer-test"] td', (tds) => tds.map((td) => td.textContent));
    expect(cells[0]).toBe('viewer-test');
    expect(cells).toContain('12 / 12'); // 2 agents x 2 mazes x 3 repeats, all done
    expect(cells[8]).toBe('$0.0000'); // baselines call no model: they cost nothing, and that is known
    // the qwen runs called a model the price table does not have: their cost is unknown, not $0
    const priced = (
      await db.pool.query(
        `SELECT count(*)::int AS n FROM experiments e WHERE e.sweep_id = 'viewer-models' AND NOT EXISTS
           (SELECT 1 FROM turns t WHERE t.experiment_id = e.id AND t.llm_calls > 0 AND t.cost_usd IS NULL)`,
      )
    ).rows[0].n;
    expect(priced).toBe(8); // frontier's 4 and the missing model's 4, which never got a priced call
    expect(await page.textContent('#sweeps tr[data-id="viewer-models"] td.cost')).toBe(
      `partly unknown: $0.0000 for the ${priced} runs priced`,
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows the factor grid as the database has it, with the plots and a paired comparison', async () => {
    const { page, errors } = await openPage(browser, `${viewer.url}sweeps/viewer-test`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    const { rows } = await db.pool.query(
      `SELECT cell_index, count(*) FILTER (WHERE goal_found)::int AS ok, count(*)::int AS n
       FROM sweep_runs WHERE sweep_id = 'viewer-test' GROUP BY cell_index ORDER BY cell_index`,
    );
    expect(rows).toHaveLength(4);
    for (const r of rows) {
      const row = `#cells tr[data-cell="${r.cell_index}"]`;
      expect(await page.textContent(`${row} td.done`)).toBe(`${r.n} / 3`);
      expect(await page.textContent(`${row} td.successes`)).toBe(`${r.ok} / ${r.n}`);
      expect(await page.textContent(`${row} td.cost`)).toBe('$0.0000');
      expect(await page.$$eval(`${row} a.rep`, (as) => as.length)).toBe(r.n);
    }
    // the statistics (sweep_stats) and the report's charts, drawn by its own script from the report's data
    await page.waitForFunction(() => (window as any).__report?.charts?.length > 0);
    const stats = await page.$$eval('#stats tbody tr', (trs) => trs.map((tr) => tr.children[7].textContent));
    // the counts from the view; each row is one maze (a size, one seed), too few for a maze-level interval
    const { rows: expectedStats } = await db.pool.query(
      `SELECT s.successes_independent::int AS k, s.n_independent::int AS n,
              (SELECT count(DISTINCT r.maze_seed)::int FROM sweep_runs r WHERE r.sweep_id = s.sweep_id
                 AND r.label = s.label AND r.maze_size = s.maze_size) AS mazes
       FROM sweep_stats s WHERE s.sweep_id = 'viewer-test' ORDER BY s.label, s.maze_generator, s.maze_size`,
    );
    const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
    expect(stats).toEqual(expectedStats.map(({ k, n, mazes }) => `${pct(k / n)} (too few mazes (${mazes}))`));
    // the paired comparison, as reports/compare.ts computes it
    await page.selectOption('select[name=a]', 'frontier');
    await page.selectOption('select[name=b]', 'random');
    await page.click('#pair button');
    await page.waitForSelector('.maze-p');
    const expected = await compareAgents(db, 'viewer-test', 'frontier', 'random');
    expect(await page.$$eval('.maze-p', (bs) => bs.map((b) => b.textContent))).toEqual(
      expected.groups.map((g) => g.test.p.toFixed(4)),
    );
    expect(await page.textContent('.pair-summary')).toContain(`${expected.groups[0].pairs} pairs`);
    await page.screenshot({ path: screenshotPath('viewer-sweep.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows unknown cost, errors apart, a row per format, and a cell interval that says what it counts', async () => {
    const { page, errors } = await openPage(browser, `${viewer.url}sweeps/viewer-models`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    expect(await page.textContent('#summary')).toContain('cost so far partly unknown: $0.0000 for the 8 runs priced');
    expect(await page.textContent('#summary')).toContain('4 ended by an error');
    await page.waitForFunction(() => (window as any).__report?.charts?.length > 0);
    await page.waitForFunction(() => !document.querySelector('#cells td.interval')?.textContent?.includes('...'));
    // errors apart, with their reasons
    const reasons = await page.$$eval('#error-runs td.reason', (tds) => tds.map((td) => td.textContent));
    expect(reasons).toHaveLength(4);
    for (const r of reasons) expect(r).toMatch(/^ProviderPermanentError: ollama model "no-such-model:1b": 404/);
    // the statistics: as reports/sweep-statistics.ts has them, a row per label and format (frontier: one row)
    const stats = await page.$$eval('#stats tbody tr', (trs) =>
      trs.map((tr) => Array.from(tr.children).map((td) => td.textContent)),
    );
    const heads = await page.$$eval('#stats thead th', (ths) => ths.map((th) => th.textContent));
    const expected = await sweepStatistics(db, 'viewer-models', {
      by: ['label', 'maze_generator', 'maze_size', 'observation'],
    });
    expect(stats.map((r) => `${r[0]} ${r[1]}`)).toEqual(
      expected.groups.map(
        (g) =>
          `${String(g.factors.label)} ` +
          (g.factors.observation === 'n/a' ? '' : `observation=${String(g.factors.observation)}`),
      ),
    );
    for (const [k, g] of expected.groups.entries()) {
      expect(stats[k][heads.indexOf('errors')]).toBe(String(g.errors));
      expect(stats[k][heads.indexOf('cost')]).toBe(g.costUsd === null ? 'unknown' : `$${g.costUsd.toFixed(4)}`);
      expect(stats[k][heads.indexOf('identical repeats')]).toBe(
        g.identicalRepeats > 0 ? `${g.identicalRepeats} of ${g.modelRuns} repeats identical` : 'none',
      );
    }
    // a frontier cell's interval is its statistics row's, the same text, and says which runs it counts
    const frontier = expected.groups.find((g) => g.factors.label === 'frontier')!;
    const { rows: cells } = await db.pool.query(
      "SELECT cell_index FROM sweep_cells WHERE sweep_id = 'viewer-models' AND label = 'frontier' ORDER BY cell_index",
    );
    const first = `#cells tr[data-cell="${cells[0].cell_index}"]`;
    expect(await page.textContent(`${first} td.interval`)).toBe(
      formatInterval(frontier.success.wilson.low, frontier.success.wilson.high),
    );
    expect(await page.textContent(`${first} td.counted`)).toBe(
      'over 1 independent run; 0 errors and 0 running left out; 1 copy counted once',
    );
    // the second format's frontier cell walked the same path: its runs are copies of the first cell's
    const second = `#cells tr[data-cell="${cells[1].cell_index}"]`;
    expect(await page.textContent(`${second} td.interval`)).toBe('-');
    expect(await page.textContent(`${second} td.counted`)).toBe(
      `over 0 independent runs; 0 errors and 0 running left out; 2 copies of cell ${cells[0].cell_index} counted once`,
    );
    // the paired comparison is split by the format, as reports/compare.ts splits it: one table per format
    await page.selectOption('select[name=a]', 'frontier');
    await page.selectOption('select[name=b]', 'qwen');
    await page.click('#pair button');
    await page.waitForSelector('.pair-group');
    const pair = await compareAgents(db, 'viewer-models', 'frontier', 'qwen');
    expect(pair.groups).toHaveLength(2);
    expect(await page.$$eval('.pair-group', (ds) => ds.map((d) => d.getAttribute('data-settings')))).toEqual(
      pair.groups.map((g) => `observation=${String(g.settings.observation)}`),
    );
    await page.screenshot({ path: screenshotPath('viewer-sweep-models.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('answers 404 for an unknown sweep, 400 for a bad name or an unknown label', async () => {
    const missing = await fetch(`${viewer.url}api/sweeps/no-such-sweep`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toContain('ariadne list --sweeps');
    const bad = await fetch(`${viewer.url}api/sweeps/Bad%20Name`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.field).toBe('id');
    const label = await fetch(`${viewer.url}api/sweeps/viewer-test/pair?a=frontier&b=%00`);
    expect(label.status).toBe(400);
    expect((await label.json()).error.field).toBe('b');
  });
});
