/// <reference lib="dom" />
// ariadne view on a sweep of 1,000 experiments and 1,000,000 actions: how long the experiments table takes to
// show (navigation start to its first rendered rows) and how long one 10,000-action experiment takes to draw
// (navigation start to the first frame of the maze), in headless Chromium, medians of 5 loads; beside them the
// API alone timed from Node, and the sweep grid and a transcript search on the same data.
// Targets: the table under 1 s, the 10,000-action experiment under 300 ms.
import { availableParallelism, loadavg } from 'node:os';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { startViewer } from '../viewer/server.ts';
import { launchBrowser } from '../test/support/browser.ts';
import { benchPostgres, fmt } from './support.ts';
import { freshBenchDatabase, seedSweep } from './seed-sweep.ts';

const LOADS = 5;
const SWEEP = 'bench-viewer';
const RUNS = 1_000;
const ACTIONS = 1_000_000;
const LONG_RUN = 10_000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const vs = (ms: number, target: number) => `${fmt(ms)} ms (target < ${fmt(target)} ms; ${fmt(ms / target, 2)}x)`;

export async function viewerBench(): Promise<void> {
  const pgServer = await benchPostgres();
  const db = await freshBenchDatabase(pgServer.url, 'bench_viewer', 4);
  const browser = await launchBrowser();
  try {
    const seedStarted = performance.now();
    // the long run is real (its replay must be right); the other 999 share the rest of the million actions
    const { experimentId: long } = await runLocalExperiment(
      {
        agent: 'random',
        agentSeed: 1,
        maze: { generator: 'perfect', size: 101, seed: 1 },
        config: { max_moves: 10_000 },
      },
      { db },
    );
    const perRun = Math.ceil((ACTIONS - LONG_RUN) / (RUNS - 1) / 10) * 10;
    const runs = await seedSweep(db, SWEEP, (RUNS - 1) * perRun, perRun, long!);
    // the real run joins the sweep as one more cell
    await db.pool.query(
      `INSERT INTO sweep_cells SELECT $1, $2::int, 'cell-' || $2::int, 'random', 'random', NULL, m.generator,
         m.width, m.seed, '{}'
       FROM experiments e JOIN mazes m ON m.id = e.maze_id WHERE e.id = $3`,
      [SWEEP, runs, long],
    );
    await db.pool.query('UPDATE sweeps SET cells = cells + 1 WHERE id = $1', [SWEEP]);
    await db.pool.query(
      'UPDATE experiments SET sweep_id = $1, sweep_cell = $2, sweep_repeat = 0, sweep_attempt = 1 WHERE id = $3',
      [SWEEP, runs, long],
    );
    await db.pool.query('ANALYZE');
    const { rows } = await db.pool.query<{ experiments: number; actions: number }>(
      'SELECT (SELECT count(*) FROM experiments)::int AS experiments, (SELECT count(*) FROM actions)::int AS actions',
    );
    const viewer = await startViewer({ db, source: 'bench', pollMs: 1000 });
    try {
      console.log(
        `viewer: ${fmt(rows[0].experiments)} experiments, ${fmt(rows[0].actions)} actions (one real run of ` +
          `${fmt(LONG_RUN)}, random agent, perfect 101x101); seeded in ` +
          `${fmt((performance.now() - seedStarted) / 1000, 1)} s; medians of ${LOADS} loads in headless Chromium; ` +
          `load average ${fmt(loadavg()[0], 1)} on ${availableParallelism()} cores`,
      );
      /** Navigation start to the page's own mark, `mark` of window.__viewer, on LOADS fresh pages in turn. */
      const pageTimes = async (path: string, mark: 'listReadyMs' | 'firstDrawMs') => {
        const times: number[] = [];
        for (let i = 0; i < LOADS; i++) {
          const page = await browser.newPage({ viewport: { width: 1300, height: 950 } });
          await page.goto(viewer.url + path);
          await page.waitForFunction(() => (window as any).__viewer?.ready, null, { timeout: 60_000 });
          times.push(await page.evaluate((m) => (window as any).__viewer[m] as number, mark));
          await page.close();
        }
        return times;
      };
      const pageMs = async (path: string, mark: 'listReadyMs' | 'firstDrawMs') => median(await pageTimes(path, mark));
      /** The API alone from Node: median wall time and the body's size. */
      const apiMs = async (path: string) => {
        const times: number[] = [];
        let bytes = 0;
        for (let i = 0; i < LOADS; i++) {
          const t = performance.now();
          const res = await fetch(viewer.url + path);
          bytes = (await res.arrayBuffer()).byteLength;
          if (!res.ok) throw new Error(`GET /${path}: ${res.status}`);
          times.push(performance.now() - t);
        }
        return { ms: median(times), bytes };
      };

      const list = await pageMs('', 'listReadyMs');
      const listApi = await apiMs('api/experiments');
      console.log(
        `  experiments table, 200 of ${fmt(rows[0].experiments)} rows: ${vs(list, 1000)}; its API alone ` +
          `${fmt(listApi.ms)} ms, ${fmt(listApi.bytes / 1e3)} kB`,
      );
      const sorted = await pageMs(`?sweep=${SWEEP}&sort=cost`, 'listReadyMs');
      const sortedApi = await apiMs(`api/experiments?sweep=${SWEEP}&sort=cost`);
      console.log(`  the same, one sweep sorted by cost: ${vs(sorted, 1000)}; API alone ${fmt(sortedApi.ms)} ms`);

      // the first load reads the run from the database; later ones find it in the viewer's cache of finished runs
      const [cold, ...warm] = await pageTimes(`experiments/${long}`, 'firstDrawMs');
      const replayApi = await apiMs(`api/experiments/${long}`); // cached by now: the server's own time is above
      const page = await browser.newPage({ viewport: { width: 1300, height: 950 } });
      await page.goto(`${viewer.url}experiments/${long}`);
      await page.waitForFunction(() => (window as any).__viewer?.ready);
      const redraw = await page.evaluate(() => {
        const t = performance.now();
        (window as any).__viewer.go(10_000);
        return performance.now() - t;
      });
      await page.close();
      console.log(
        `  one experiment of ${fmt(LONG_RUN)} actions, first draw: ${vs(cold, 300)} read from the database, ` +
          `${vs(median(warm), 300)} again (the viewer's cache of finished runs); its API alone, cached, ` +
          `${fmt(replayApi.ms)} ms, ${fmt(replayApi.bytes / 1e6, 2)} MB; a redraw at its last step ` +
          `${fmt(redraw, 1)} ms`,
      );

      const grid = await apiMs(`api/sweeps/${SWEEP}`);
      const stats = await apiMs(`api/sweeps/${SWEEP}/report`);
      const search = await apiMs('api/search?q=blocked_by&kind=error');
      const tool = await apiMs('api/search?q=move&kind=tool');
      console.log(
        `  (no target) the sweep's grid of ${fmt(runs + 1)} cells: API ${fmt(grid.ms)} ms, ` +
          `${fmt(grid.bytes / 1e3)} kB; its statistics and plots' data ${vs(stats.ms, 100)} (bench/summaries.ts ` +
          `has it beside the recomputing views); ` +
          `transcript search over ${fmt(rows[0].actions)} actions: ` +
          `${fmt(search.ms)} ms (no hit), ${fmt(tool.ms)} ms (50 hits)`,
      );
    } finally {
      await viewer.close();
    }
  } finally {
    await browser.close();
    await db.close();
    await pgServer.stop();
  }
}
