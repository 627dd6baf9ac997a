/// <reference lib="dom" />
// The sweep report and the replay viewer, opened in a real headless Chromium:
// no console errors, charts and maze drawn (pixels and DOM), the scrubber
// moves the agent to the chosen step, links to failure replays work.
// Screenshots go to test-output/screenshots/.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { loadSweep } from '../state-machine/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { writeReport } from '../reports/write-report.ts';
import { loadReplay } from '../reports/replay-data.ts';
import { replayHtml } from '../reports/replay-page.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';
import { launchBrowser, openPage, screenshotPath } from './support/browser.ts';

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
    for (const id of ['success-medium', 'efficiency-medium'])
      expect(await page.evaluate(inkOf(`#${id}`))).toBeGreaterThan(2_000);
    expect(await page.locator('#stats tbody tr').count()).toBe(stats.length);
    expect(await page.locator('#pairs tbody tr').count()).toBe(1);
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
