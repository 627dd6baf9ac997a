// A sweep cut short says so everywhere its numbers are shown: `ariadne stats` (text, --json, the paper tables), the
// report and the viewer's sweep page give "N of M planned runs" and name the cells that miss runs, counted by one
// read model (results/sweep-plan.ts) against what the sweep's order (sweep-order.ts) started.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { sweepRunOrder } from '../core/sweeps/sweep-order.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { sweepPlan } from '../results/sweep-plan.ts';
import { loadReport } from '../reports/report-data.ts';
import { reportHtml } from '../reports/report-page.ts';
import type { RunningViewer } from '../viewer/server.ts';
import { openPage } from './support/browser.ts';
import { viewerSession } from './support/viewer-session.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { cli } from './support/cli.ts';

const SWEEP = `sweep: cut-short
agents:
  - { agent: random }
  - { agent: frontier }
mazes: { generators: [medium], sizes: [11, 15], seeds: [1, 2] }
settings: { max_actions_per_turn: [4, 8] }
config: { max_moves: 120 }
repeats: 2
`;
const loaded = loadSweep(SWEEP, 'test');
const DONE = 5;

let db: TestDatabase;
let browser: Browser;
let viewer: RunningViewer;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  db = await testDatabase();
  // interrupted once DONE runs ended, one at a time: the rest never start
  const stop = new AbortController();
  const result = await runLocalSweep(loaded, {
    db,
    concurrency: 1,
    signal: stop.signal,
    onProgress: (p) => {
      if (p.done >= DONE) stop.abort('enough');
    },
  });
  expect(result).toMatchObject({ done: DONE, notStarted: loaded.runs.length - DONE });
  ({ browser, viewer, close } = await viewerSession(db));
});
afterAll(() => close?.());

/** The cells missing runs, computed here from the order the sweep starts its runs in: the runs after the first DONE. */
function expectedMissing(): Array<{ cell: number; repeats: number[] }> {
  const missing = new Map<number, number[]>();
  for (const r of sweepRunOrder('cut-short', loaded.runs).slice(DONE))
    missing.set(r.cell.index, [...(missing.get(r.cell.index) ?? []), r.repeat].sort());
  return [...missing.entries()].sort(([a], [b]) => a - b).map(([cell, repeats]) => ({ cell, repeats }));
}

describe('a sweep cut short', () => {
  it('the read model counts it against its plan and names every cell missing runs', async () => {
    const plan = (await sweepPlan(db.pool, 'cut-short'))!;
    expect(plan).toMatchObject({ planned: 32, started: DONE, ended: DONE, running: 0, not_started: 32 - DONE });
    expect(plan.missing_cells.map((c) => ({ cell: c.cell_index, repeats: c.missing_repeats }))).toEqual(
      expectedMissing(),
    );
    expect(plan.missing_cell_count).toBe(expectedMissing().length);
    const c = loaded.cells[plan.missing_cells[0].cell_index];
    expect(plan.missing_cells[0]).toMatchObject({
      label: c.label,
      maze: `medium ${c.size} seed ${c.seed}`,
      settings: `max_actions_per_turn=${String(c.settings.max_actions_per_turn)}`,
    });
    expect(plan.missing_by_label.reduce((n, l) => n + l.missing, 0)).toBe(32 - DONE);
    expect(await sweepPlan(db.pool, 'no-such-sweep')).toBeNull();
  });

  it('ariadne stats says "N of M planned runs" above its table, names the cells; --json carries the plan', async () => {
    const { ariadne } = cli(() => db);
    const text = await ariadne(['stats', 'cut-short', '--wide']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`Incomplete: ${DONE} of 32 planned runs ended (${32 - DONE} not started)`);
    const first = expectedMissing()[0];
    expect(text.stdout).toMatch(new RegExp(`missing: cell ${first.cell} .*: repeats? ${first.repeats.join(', ')}`));
    expect(text.stdout).toMatch(/and \d+ more cells; runs not ended by agent: frontier \d+ .*random \d+/);
    const json = await ariadne(['stats', 'cut-short', '--json']);
    const plan = JSON.parse(json.stdout).plan;
    expect(plan).toMatchObject({ planned: 32, started: DONE, not_started: 32 - DONE });
    expect(plan.missing_cells).toHaveLength(expectedMissing().length);
    const md = await ariadne(['stats', 'cut-short', '--format', 'markdown']);
    expect(md.stdout).toContain(`(incomplete: ${DONE} of 32 planned runs).`);
    expect(md.stdout).toContain(`Incomplete: ${DONE} of 32 planned runs ended`);
  });

  it('the report says so at its top, and its paper table too', async () => {
    const data = await loadReport(db.pool, 'cut-short', { paper: true });
    expect(data.plan.ended).toBe(DONE);
    const html = reportHtml(data, () => null);
    expect(html).toMatch(new RegExp(`<ul class="note" id="plan"><li>Incomplete: ${DONE} of 32 planned runs ended`));
    expect(data.paper!.caption).toContain(`(incomplete: ${DONE} of 32 planned runs)`);
    expect(data.paper!.notes.some((n) => n.startsWith(`Incomplete: ${DONE} of 32 planned runs ended`))).toBe(true);
  });

  it("the viewer's sweep page says so above the statistics, naming the missing cells", async () => {
    const { page, errors } = await openPage(browser, `${viewer.url}sweeps/cut-short`);
    await page.waitForFunction(() => (window as any).__viewer?.ready);
    await page.waitForFunction(() => (window as any).__report?.charts?.length > 0);
    expect(await page.textContent('#plan-sentence')).toContain(`Incomplete: ${DONE} of 32 planned runs ended`);
    const items = await page.$$eval('#plan-missing li', (lis) => lis.map((li) => li.textContent));
    expect(items[0]).toContain(`missing: cell ${expectedMissing()[0].cell} `);
    // the agents ranked per setting: both in every group, each with its tie group
    await page.waitForSelector('#ranking-table');
    const ranked = await page.$$eval('#ranking-table tbody tr', (trs) =>
      trs.map((tr) => [tr.querySelector('.agent')?.textContent, tr.querySelector('.tie')?.textContent]),
    );
    expect(ranked.map(([agent]) => agent).sort()).toEqual(['frontier', 'frontier', 'random', 'random']);
    for (const [agent, tie] of ranked) expect(tie).toContain(agent);
    expect(errors).toEqual([]);
  });

  it('a finished sweep says every planned run ended', async () => {
    await runLocalSweep(loaded, { db, concurrency: 4 });
    const plan = (await sweepPlan(db.pool, 'cut-short'))!;
    expect(plan).toMatchObject({ planned: 32, ended: 32, missing_cell_count: 0, missing_cells: [] });
    const { ariadne } = cli(() => db);
    expect((await ariadne(['stats', 'cut-short'])).stdout).toContain('32 of 32 planned runs ended.');
  });
});
