/// <reference lib="dom" />
// The sweep report and the replay viewer in a real headless Chromium: no console errors, charts and maze drawn with
// labelled axes and shared paths drawn once, the scrubber and failure links work; a sweep with an unpriced model, a
// missing one and a varied format shows unknown cost as unknown, errors apart and a row per format. Screenshots go
// to test-output/screenshots/.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { writeReport } from '../reports/write-report.ts';
import { loadReplay } from '../reports/replay-data.ts';
import { replayHtml } from '../reports/replay-page.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';
import { launchBrowser, openPage, screenshotPath } from './support/browser.ts';
import { providerSims } from './support/provider-sims.ts';
import { runModelSweep } from './support/model-sweep.ts';
import { compareSettings } from '../reports/compare.ts';

const sims = providerSims();

let db: TestDatabase;
let browser: Browser;
const dir = tempDir('reports');
beforeAll(async () => {
  db = await testDatabase();
  browser = await launchBrowser();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await db.drop();
});

/** Pixels of a canvas that are not blank (white or transparent). */
const inkOf = (selector: string) => `(() => {
  const c = document.querySelector(${JSON.stringify(selector)});
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240)) n++;
  return n;
})()`;

describe('the sweep report in Chromium', () => {
  it('draws every chart and table, and links each failure to a replay that opens', async () => {
    const sweep = loadSweep(
      `sweep: report-test
agents: [{ agent: random }, { agent: frontier }]
mazes: { generators: [medium], sizes: [11, 15], seeds: [4] }
config: { max_moves: 300 }
repeats: 3
`,
      'test',
    );
    await runLocalSweep(sweep, { db, concurrency: 3 });
    const out = join(dir, 'report.html');
    const written = await writeReport(db, 'report-test', out, 50);
    const stats = (await db.pool.query("SELECT * FROM sweep_stats WHERE sweep_id = 'report-test'")).rows;
    const failures = (
      await db.pool.query("SELECT experiment_id FROM sweep_runs WHERE sweep_id = 'report-test' AND NOT goal_found")
    ).rows;
    const successes = (
      await db.pool.query(
        `SELECT label, maze_size, trajectory_hash FROM sweep_runs
         WHERE sweep_id = 'report-test' AND goal_found ORDER BY label, maze_size`,
      )
    ).rows;
    expect(failures.length).toBeGreaterThan(0); // random fails some within 300 actions
    expect(written.replays).toBe(failures.length);

    const { page, errors } = await openPage(browser, pathToFileURL(out).href);
    await page.waitForFunction(() => (window as any).__report);
    const report = await page.evaluate(() => (window as any).__report);
    expect(report.charts.map((c: { id: string }) => c.id)).toEqual([
      'success-medium',
      'efficiency-medium',
      'tokens-chart',
    ]);
    const success = report.charts[0];
    expect(success.datasets.map((d: { label: string }) => d.label).sort()).toEqual(['frontier', 'random']);
    // every chart labels both axes; the scatter's size axis has a label at each size
    for (const c of report.charts) {
      expect(c.axes.x, c.id).toBeTruthy();
      expect(c.axes.y, c.id).toBeTruthy();
    }
    expect(report.charts[1].xTicks).toEqual(['11', '15']);
    expect(report.charts[2].xTicks).toEqual(['frontier', 'random']);
    // a path walked by several runs is one dot carrying its count: frontier's 3 repeats of a size are one dot of 3
    for (const label of ['frontier', 'random']) {
      const runs = successes.filter((r) => r.label === label);
      const paths = new Set(runs.map((r) => `${r.maze_size}|${r.trajectory_hash}`));
      const ds = report.charts[1].datasets.find((d: { label: string }) => d.label === label);
      expect(ds.points, label).toBe(paths.size);
      expect(
        ds.counts.reduce((a: number, b: number) => a + b, 0),
        label,
      ).toBe(runs.length);
    }
    const frontier = report.charts[1].datasets.find((d: { label: string }) => d.label === 'frontier');
    expect(frontier.counts).toEqual(frontier.counts.map(() => 3));
    for (const id of ['success-medium', 'efficiency-medium'])
      expect(await page.evaluate(inkOf(`#${id}`))).toBeGreaterThan(2_000);
    expect(await page.locator('#stats tbody tr').count()).toBe(stats.length);
    expect(await page.locator('#pairs tbody tr').count()).toBe(1);
    // how the runs moved: a row per statistics row, with what each figure counts
    expect(await page.locator('#behaviour tbody tr').count()).toBe(stats.length);
    expect(await page.locator('#behaviour-notes li').count()).toBe(7);
    // the same groups for a paper: a Markdown row and a LaTeX row per row of the stats table, n as there
    const markdown = (await page.locator('#paper-markdown pre').textContent())!;
    const latex = (await page.locator('#paper-latex pre').textContent())!;
    const mdRows = markdown
      .split('\n')
      .filter((l) => l.startsWith('|'))
      .slice(2);
    expect(mdRows).toHaveLength(stats.length);
    expect(markdown.split('\n')[0]).toBe('**Sweep report-test: success by label x maze_generator x maze_size.**');
    for (const row of stats) {
      const cells = mdRows
        .map((l) => l.split('|').map((c) => c.trim()))
        .find((c) => c[1] === row.label && c[3] === String(row.maze_size))!;
      expect(cells[4]).toBe(String(row.n));
    }
    // ... and its behaviour: looped % and its interval, revisit ratio, wall bumps, tiles vs frontier
    expect(latex).toContain('\\begin{tabular}{lllrrrrrrrrrrrrrrr}');
    expect(latex).toContain("MazeEval's loop");
    // each row is one maze: no maze-level interval can be had, and the table says so
    expect(latex).toContain('too few mazes');
    expect(latex.split('\n').filter((l) => /^ {4}(frontier|random) & /.test(l))).toHaveLength(stats.length);
    const links = page.locator('#failures a');
    expect(await links.count()).toBe(failures.length);
    for (const href of await links.evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href)))
      expect(existsSync(new URL(href))).toBe(true);
    await page.screenshot({ path: screenshotPath('report.png'), fullPage: true });
    expect(errors).toEqual([]);

    await links.first().click();
    await page.waitForFunction(() => (window as any).__replay);
    expect(await page.evaluate(inkOf('#maze'))).toBeGreaterThan(1_000);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});

describe('a report of a sweep with an unpriced model, a missing one and two observation formats', () => {
  it('says unknown cost is unknown, lists errors apart with reasons, and splits rows by format', async () => {
    await runModelSweep(db, 'report-models', sims.ollamaUrl);
    const out = join(dir, 'report-models.html');
    await writeReport(db, 'report-models', out, 50);
    const { page, errors } = await openPage(browser, pathToFileURL(out).href);
    await page.waitForFunction(() => (window as any).__report);
    const { rows: runs } = await db.pool.query(
      "SELECT label, outcome_class, failure_reason, factor_settings FROM sweep_runs WHERE sweep_id = 'report-models'",
    );
    const errorRuns = runs.filter((r) => r.outcome_class === 'error');
    expect(errorRuns.map((r) => r.label)).toEqual(['missing', 'missing', 'missing', 'missing']);
    // the qwen runs called a model without a price: the total is not $0, and says which runs it covers
    const intro = await page.textContent('#intro');
    expect(intro).toMatch(/cost partly unknown: \$0\.0000 for the 8 runs priced/);
    // errors are not failures: apart, each with its reason, and out of the failures' table
    expect(await page.locator('#errors tbody tr').count()).toBe(4);
    for (const reason of await page.$$eval('#errors tbody tr', (trs) => trs.map((tr) => tr.children[6].textContent)))
      expect(reason).toMatch(/^ProviderPermanentError: ollama model "no-such-model:1b": 404/);
    const failed = runs.filter((r) => r.outcome_class === 'failure').length;
    expect(await page.locator('#failures tbody tr').count()).toBe(failed);
    // one row per label and format for the models; frontier, which never reads the format, one row
    const rows = await page.$$eval('#stats tbody tr', (trs) =>
      trs.map((tr) => Array.from(tr.children).map((td) => td.textContent)),
    );
    const heads = await page.$$eval('#stats thead th', (ths) => ths.map((th) => th.textContent));
    const col = (h: string) => heads.indexOf(h);
    expect(rows.map((r) => `${r[0]} ${r[1]}`).sort()).toEqual([
      'frontier ',
      'missing observation=local_grid',
      'missing observation=rays',
      'qwen observation=local_grid',
      'qwen observation=rays',
    ]);
    const missing = rows.find((r) => r[0] === 'missing' && r[1] === 'observation=rays')!;
    expect(missing[col('errors')]).toBe('2');
    expect(missing[col('counts')]).toBe('over 0 independent runs; 2 errors and 0 running left out');
    // had both errors been failures: 0 of 2, on one maze: no maze-level interval, and it says why
    expect(missing[col('success if errors and wall-clock stops had failed')]).toBe('0.0% (too few mazes (1))');
    expect(missing[col('how runs ended')]).toBe('error 2');
    const qwen = rows.find((r) => r[0] === 'qwen' && r[1] === 'observation=rays')!;
    expect(qwen[col('cost (every attempt)')]).toBe('unknown');
    const frontierRow = rows.find((r) => r[0] === 'frontier')!;
    expect(frontierRow[col('cost (every attempt)')]).toBe('$0.0000');
    // frontier's 4 runs (2 formats x 2 repeats) walked one path: one independent run
    expect(frontierRow[col('n (successes + failures)')]).toBe('4');
    expect(frontierRow[col('independent')]).toBe('1');
    // qwen under its two formats, paired on maze and repeat, as reports/compare.ts computes it
    const pairRows = await page.$$eval('#setting-pairs tbody tr', (trs) =>
      trs.map((tr) => Array.from(tr.children).map((td) => td.textContent)),
    );
    const qwenPair = pairRows.find((r) => r[0] === 'qwen')!;
    const expected = await compareSettings(db, 'report-models', 'qwen', 'observation', qwenPair[2], qwenPair[3]);
    expect(qwenPair[1]).toBe('observation');
    expect(qwenPair[5]).toBe(String(expected.groups[0].pairs));
    expect(qwenPair[11]).toBe(expected.groups[0].test.p.toFixed(4));
    expect(errors).toEqual([]);
    await page.screenshot({ path: screenshotPath('report-models.png'), fullPage: true });
    await page.close();
  }, 120_000);
});

describe('the replay viewer in Chromium', () => {
  it('draws the maze, and the scrubber moves the agent to the chosen step', async () => {
    const { experimentId } = await runLocalExperiment(
      { agent: 'frontier', maze: { generator: 'rooms_and_corridors', size: 31, seed: 5 } },
      { db },
    );
    const data = await loadReplay(db, experimentId!);
    const file = join(dir, 'replay.html');
    writeFileSync(file, replayHtml(data));
    const { page, errors } = await openPage(browser, pathToFileURL(file).href);
    await page.waitForFunction(() => (window as any).__replay);
    expect(await page.evaluate(() => (window as any).__replay.steps)).toBe(data.steps);
    expect(await page.locator('#step').textContent()).toBe(`0 / ${data.steps}`);

    // the goal is drawn in green where the database says it is
    const maze = (
      await db.pool.query(
        'SELECT m.goal_x, m.goal_y, m.width FROM experiments e JOIN mazes m ON m.id = e.maze_id WHERE e.id = $1',
        [experimentId],
      )
    ).rows[0];
    const scale =
      (await page.evaluate(() => (document.getElementById('maze') as HTMLCanvasElement).width)) / maze.width;
    const pixel = (x: number, y: number) =>
      page.evaluate(
        ([px, py]) =>
          Array.from(
            (document.getElementById('maze') as HTMLCanvasElement).getContext('2d')!.getImageData(px, py, 1, 1).data,
          ),
        [x, y],
      );
    expect(await pixel(Math.floor((maze.goal_x + 0.5) * scale), Math.floor((maze.goal_y + 0.5) * scale))).toEqual([
      120, 190, 130, 255,
    ]);

    const target = Math.floor(data.steps / 2);
    const expected = (
      await db.pool.query('SELECT to_x, to_y FROM actions WHERE experiment_id = $1 AND step_number = $2', [
        experimentId,
        target,
      ])
    ).rows[0];
    await page.locator('#scrub').fill(String(target));
    await page.waitForFunction(
      (t) => document.getElementById('step')!.textContent === `${t} / ${(window as any).__replay.steps}`,
      target,
    );
    expect(await page.locator('#position').textContent()).toBe(`(${expected.to_x},${expected.to_y})`);
    const at = await page.evaluate(() => (window as any).__replay.agentPixel());
    expect(await pixel(Math.floor(at.x), Math.floor(at.y))).toEqual([220, 38, 38, 255]);
    // stepping and playing move it on
    await page.locator('#forward').click();
    await page.waitForFunction((t) => document.getElementById('step')!.textContent.startsWith(`${t + 1} /`), target);
    await page.locator('#play').click();
    await page.waitForFunction(
      (t) => Number(document.getElementById('step')!.textContent.split(' ')[0]) > t + 1,
      target,
    );
    await page.locator('#play').click();
    await page.screenshot({ path: screenshotPath('replay.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
