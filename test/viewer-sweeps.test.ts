// The viewer's sweep pages in headless Chromium, against a real local sweep: the list shows its progress, the
// factor grid has a row per cell whose done and success counts are the database's, the report's plots draw, and
// the paired comparison shows the McNemar p that reports/compare.ts computes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { loadSweep } from '../state-machine/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { compareAgents } from '../reports/compare.ts';
import type { RunningViewer } from '../viewer/server.ts';
import { openPage, screenshotPath } from './support/browser.ts';
import { viewerSession } from './support/viewer-session.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

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
      expect(await page.$$eval(`${row} a.rep`, (as) => as.length)).toBe(r.n);
    }
    // the statistics (sweep_stats) and the report's charts, drawn by its own script from the report's data
    await page.waitForFunction(() => (window as any).__report?.charts?.length > 0);
    const stats = await page.$$eval('#stats tbody tr', (trs) => trs.map((tr) => tr.children[7].textContent));
    const { rows: expectedStats } = await db.pool.query(
      `SELECT success_low95::float8 AS lo, success_high95::float8 AS hi FROM sweep_stats
       WHERE sweep_id = 'viewer-test' ORDER BY label, maze_generator, maze_size`,
    );
    const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
    expect(stats).toEqual(expectedStats.map((r) => `${pct(r.lo)} - ${pct(r.hi)}`));
    // the paired comparison, as reports/compare.ts computes it
    await page.selectOption('select[name=a]', 'frontier');
    await page.selectOption('select[name=b]', 'random');
    await page.click('#pair button');
    await page.waitForSelector('#mcnemar-p');
    const expected = await compareAgents(db, 'viewer-test', 'frontier', 'random');
    expect(await page.textContent('#mcnemar-p')).toBe(expected.mcnemarP.toFixed(4));
    expect(await page.textContent('#pair-summary')).toContain(`${expected.pairs} pairs`);
    await page.screenshot({ path: screenshotPath('viewer-sweep.png'), fullPage: true });
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
