// The sweep page's heatmap in headless Chromium against a real local sweep: for a maze and a group picked on the
// page, the cells it draws and lists are the database's (moves into each cell over the cell's finished runs, counted
// in SQL here), and the cells where failed runs stopped making progress are those SQL finds (the last step that saw
// a new tile or first entered a cell). The canvas is read pixel by pixel: every entered cell is coloured, hotter
// darker, and every open cell no move entered is left as the maze draws it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import type { RunningViewer } from '../viewer/server.ts';
import { openPage, screenshotPath } from './support/browser.ts';
import { viewerSession } from './support/viewer-session.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

const SWEEP = `sweep: heatmap-test
agents: [{ agent: random }, { agent: frontier }]
mazes: { generators: [medium, perfect], sizes: [11], seeds: [1] }
config: { max_moves: 90 }
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

type Cells = Array<[number, number, number]>;
const byCell = (cells: Cells) => [...cells].sort((a, b) => a[1] - b[1] || a[0] - b[0]);

/** Moves into each cell over the cell's runs that ended as a success or a failure, counted in SQL. */
async function visitsInSql(cell: number): Promise<Cells> {
  const { rows } = await db.pool.query<{ x: number; y: number; n: number }>(
    `SELECT a.to_x AS x, a.to_y AS y, count(*)::int AS n
     FROM actions a JOIN sweep_runs r ON r.experiment_id = a.experiment_id
     WHERE r.sweep_id = 'heatmap-test' AND r.cell_index = $1 AND r.outcome_class IN ('success', 'failure')
       AND a.outcome = 'moved'
     GROUP BY a.to_x, a.to_y ORDER BY a.to_y, a.to_x`,
    [cell],
  );
  return rows.map((r) => [r.x, r.y, r.n]);
}

/**
 * For each failed run of the cell, where its progress stopped: the cell after its last step that saw a new tile or
 * first ended in a cell other than the start (every cell it stood in is the start or some action's `to`), else the
 * start; counted by cell.
 */
async function stuckInSql(cell: number): Promise<Cells> {
  const { rows } = await db.pool.query<{ x: number; y: number; n: number }>(
    `WITH runs AS (
       SELECT r.experiment_id, m.start_x, m.start_y FROM sweep_runs r
       JOIN experiments e ON e.id = r.experiment_id JOIN mazes m ON m.id = e.maze_id
       WHERE r.sweep_id = 'heatmap-test' AND r.cell_index = $1 AND r.outcome_class = 'failure'),
     steps AS (
       SELECT a.experiment_id, a.step_number, a.to_x, a.to_y, a.new_tiles_seen,
         row_number() OVER (PARTITION BY a.experiment_id, a.to_x, a.to_y ORDER BY a.step_number) = 1
           AND (a.to_x, a.to_y) <> (runs.start_x, runs.start_y) AS first_time
       FROM actions a JOIN runs USING (experiment_id) WHERE a.step_number IS NOT NULL),
     last AS (
       SELECT runs.experiment_id, runs.start_x, runs.start_y,
         (SELECT max(s.step_number) FROM steps s WHERE s.experiment_id = runs.experiment_id
            AND (s.new_tiles_seen > 0 OR s.first_time)) AS step
       FROM runs)
     SELECT coalesce(s.to_x, l.start_x) AS x, coalesce(s.to_y, l.start_y) AS y, count(*)::int AS n
     FROM last l LEFT JOIN steps s ON s.experiment_id = l.experiment_id AND s.step_number = l.step
     GROUP BY 1, 2 ORDER BY 2, 1`,
    [cell],
  );
  return rows.map((r) => [r.x, r.y, r.n]);
}

async function cellOf(label: string, generator: string): Promise<number> {
  const { rows } = await db.pool.query<{ cell_index: number }>(
    "SELECT cell_index FROM sweep_cells WHERE sweep_id = 'heatmap-test' AND label = $1 AND maze_generator = $2",
    [label, generator],
  );
  return rows[0].cell_index;
}

/** Picks a maze and a group on the page and waits for the heatmap of `cell`. */
async function pick(page: Page, maze: string, group: string, cell: number) {
  await page.selectOption('#heatmap-pick select[name=maze]', maze);
  await page.selectOption('#heatmap-pick select[name=group]', group);
  await page.waitForFunction((c) => (window as any).__viewer?.heatmap?.cell === c, cell);
  return page.evaluate(() => (window as any).__viewer.heatmap);
}

/** Each open cell's centre pixel on the canvas, [x, y, r, g, b], for the open cells of the maze. */
function centrePixels(page: Page) {
  return page.evaluate(() => {
    const canvas = document.getElementById('heatmap') as HTMLCanvasElement;
    const { maze } = (window as any).__viewer.heatmap;
    const scale = (window as any).__viewer.heatmapScale as number;
    const grid = Uint8Array.from(atob(maze.grid), (c) => c.charCodeAt(0));
    const ctx = canvas.getContext('2d')!;
    const out: number[][] = [];
    for (let y = 0; y < maze.height; y++)
      for (let x = 0; x < maze.width; x++) {
        if (grid[y * maze.width + x] === 1) continue;
        const [r, g, b] = ctx.getImageData(Math.floor((x + 0.5) * scale), Math.floor((y + 0.5) * scale), 1, 1).data;
        out.push([x, y, r, g, b]);
      }
    return out;
  });
}

describe('the heatmap on the sweep page', () => {
  it("draws and lists a failing group's visits and where its runs stalled, as SQL counts them", async () => {
    const { page, errors } = await openPage(browser, `${viewer.url}sweeps/heatmap-test`);
    await page.waitForFunction(() => (window as any).__viewer?.heatmap);
    const cell = await cellOf('random', 'perfect');
    const data = await pick(page, 'perfect 11 seed 1', 'random', cell);
    expect(data.runs).toHaveLength(3);
    expect(data.runs.some((r: { goalFound: boolean }) => !r.goalFound)).toBe(true);
    expect(byCell(data.visits)).toEqual(await visitsInSql(cell));
    expect(byCell(data.stuck)).toEqual(await stuckInSql(cell));
    // the tables: the 10 most entered cells, then every cell where progress stopped
    const visitRows = await page.$$eval('#heat-visits tbody tr', (trs) =>
      trs.map((tr) => [tr.children[0].textContent, Number(tr.children[1].textContent)]),
    );
    expect(visitRows).toEqual(data.visits.slice(0, 10).map(([x, y, n]: number[]) => [`(${x},${y})`, n]));
    const stuckRows = await page.$$eval('#heat-stuck tbody tr', (trs) => trs.map((tr) => tr.dataset.cell));
    expect(stuckRows.sort()).toEqual(data.stuck.map(([x, y]: number[]) => `${x},${y}`).sort());
    await page.screenshot({ path: screenshotPath('viewer-heatmap.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('colours every entered cell, hotter darker, and leaves the others as the maze draws them', async () => {
    const { page, errors } = await openPage(browser, `${viewer.url}sweeps/heatmap-test`);
    await page.waitForFunction(() => (window as any).__viewer?.heatmap);
    const cell = await cellOf('random', 'medium');
    const data = await pick(page, 'medium 11 seed 1', 'random', cell);
    const visits = new Map((await visitsInSql(cell)).map(([x, y, n]) => [`${x},${y}`, n]));
    const [[sx, sy], [gx, gy]] = [data.maze.start, data.maze.goal];
    const pixels = await centrePixels(page);
    const luminance = ([r, g, b]: number[]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const entered = pixels.filter(([x, y]) => visits.has(`${x},${y}`));
    expect(entered.length).toBe(visits.size);
    // an open cell no move entered: the maze's own colour for a known open cell, or the goal's (the start is
    // outlined, not filled)
    for (const [x, y, ...rgb] of pixels.filter(([x, y]) => !visits.has(`${x},${y}`) && (x !== sx || y !== sy)))
      expect(rgb, `(${x},${y})`).toEqual(x === gx && y === gy ? [46, 160, 67] : [245, 242, 232]);
    for (const [x, y, ...rgb] of entered) expect(rgb, `(${x},${y})`).not.toEqual([245, 242, 232]);
    // more entries, a darker cell
    const ranked = entered
      .map(([x, y, ...rgb]) => ({ n: visits.get(`${x},${y}`)!, l: luminance(rgb) }))
      .sort((a, b) => a.n - b.n);
    for (let k = 1; k < ranked.length; k++) expect(ranked[k].l).toBeLessThanOrEqual(ranked[k - 1].l + 1e-9);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows a frontier cell, and answers 400 for a bad cell and an empty heatmap for one with no runs', async () => {
    const { page, errors } = await openPage(browser, `${viewer.url}sweeps/heatmap-test`);
    await page.waitForFunction(() => (window as any).__viewer?.heatmap);
    const cell = await cellOf('frontier', 'medium');
    const data = await pick(page, 'medium 11 seed 1', 'frontier', cell);
    // three repeats of one deterministic walk: every entered cell's count is a multiple of 3; no run failed
    expect(byCell(data.visits)).toEqual(await visitsInSql(cell));
    expect(data.visits.every(([, , n]: number[]) => n % 3 === 0)).toBe(true);
    expect(data.stuck).toEqual([]);
    expect(await page.textContent('#heatmap-summary')).toMatch(/^3 runs \(3 found the goal, 0 did not\)/);
    expect(errors).toEqual([]);
    await page.close();
    const bad = await fetch(`${viewer.url}api/sweeps/heatmap-test/heatmap?cell=-1`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.field).toBe('cell');
    const none = await (await fetch(`${viewer.url}api/sweeps/heatmap-test/heatmap?cell=99`)).json();
    expect(none).toEqual({ cell: 99, maze: null, runs: [], visits: [], stuck: [] });
  });
});
