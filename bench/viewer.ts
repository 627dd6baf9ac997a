/// <reference lib="dom" />
// ariadne view on a sweep of 1,000 experiments and BENCH_VIEWER_ACTIONS actions in headless Chromium, medians of 5:
// the experiments table's first rows, a 10,000-action draw and a 100,000-action open; beside them the API alone, the
// bytes a live page fetches per new turn, the sweep grid and a transcript search. Targets: table under 1 s, draw under
// 150 ms, open under 1 s, a live update's bytes the same at 10,000 turns as at 1,000 (and under 4 kB).
import { availableParallelism, loadavg } from 'node:os';
import { envInteger } from '../core/config/environment.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { startViewer } from '../viewer/server.ts';
import { launchBrowser } from '../test/support/browser.ts';
import { recordFigure } from './figures.ts';
import { benchPostgres, fmt } from './support.ts';
import { freshBenchDatabase, seedSweep } from './seed-sweep.ts';

const LOADS = 5;
const SWEEP = 'bench-viewer';
const RUNS = 1_000;
const ACTIONS = envInteger('BENCH_VIEWER_ACTIONS', process.env, 20_000) ?? 1_000_000;
const LONG_RUN = 10_000;
/** The big run opened whole, and the runs whose live updates are weighed (turns of 10 actions, as seeded). */
const BIG_RUN = 100_000;
const LIVE_TURNS = [1_000, 10_000];
const LIVE_UPDATE_BYTES = 4_000;
/** The steps of an experiment page's first read (viewer/routes/experiment-routes.ts HEAD_STEPS). */
const HEAD_STEPS = 500;

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
    // a run of a few actions on the same maze: what the experiment page costs whatever the run
    const tinyRun = await runLocalExperiment(
      { agent: 'random', agentSeed: 1, maze: { generator: 'perfect', size: 101, seed: 1 }, config: { max_moves: 10 } },
      { db },
    );
    const tiny = tinyRun.experimentId!;
    const tinyActions = (
      await db.pool.query<{ n: number }>('SELECT actions_taken AS n FROM experiments WHERE id = $1', [tiny])
    ).rows[0].n;
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
    // the 100,000-action run and the 1,000- and 10,000-turn runs: copies of the real run's row, seeded like the sweep
    const big = `${SWEEP}-big-000000`;
    await seedSweep(db, `${SWEEP}-big`, BIG_RUN, BIG_RUN, long!);
    const liveRuns = new Map<number, string>();
    for (const turns of LIVE_TURNS) {
      if (turns * 10 === BIG_RUN) liveRuns.set(turns, big);
      else await seedSweep(db, `${SWEEP}-t${turns}`, turns * 10, turns * 10, long!);
      liveRuns.set(turns, liveRuns.get(turns) ?? `${SWEEP}-t${turns}-000000`);
    }
    // vacuumed too, as a database's older runs are: else the first read of the fresh rows writes their hint bits
    // and autovacuum runs beside the loads measured (the cold first draw is one load)
    await db.pool.query('VACUUM ANALYZE');
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
      /**
       * An experiment page: navigation start to its first draw, and to holding the whole run (a long run's rest);
       * and where the first draw went, from the page's own timeline (experiment.js marks it): the HTML received,
       * its script started (loaded with the style sheets), the first read's JSON in hand, decoded.
       */
      const openTimes = async (path: string, freshViewer = false) => {
        const first: number[] = [];
        const whole: number[] = [];
        const marks: number[][] = [];
        for (let i = 0; i < LOADS; i++) {
          // a viewer of its own: an empty cache of finished runs, so the page's run is read from the database
          const server = freshViewer ? await startViewer({ db, source: 'bench', pollMs: 1000 }) : viewer;
          const page = await browser.newPage({ viewport: { width: 1300, height: 950 } });
          await page.goto(server.url + path);
          await page.waitForFunction(() => (window as any).__viewer?.wholeMs, null, { timeout: 60_000 });
          first.push(await page.evaluate(() => (window as any).__viewer.firstDrawMs as number));
          whole.push(await page.evaluate(() => (window as any).__viewer.wholeMs as number));
          marks.push(
            await page.evaluate(() => [
              (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).responseEnd,
              ...['script', 'data', 'decoded'].map((m) => performance.getEntriesByName(m, 'mark')[0].startTime),
            ]),
          );
          await page.close();
          if (freshViewer) await server.close();
        }
        const at = (k: number) => fmt(median(marks.map((m) => m[k])));
        const timeline =
          `HTML ${at(0)} ms, script running ${at(1)}, its data ${at(2)}, decoded ${at(3)}, ` +
          `drawn ${fmt(median(first))} (medians)`;
        return { first, whole, timeline };
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

      // the first load reads the run from the database, the first experiment this viewer (and process) reads; later
      // ones find it in the viewer's cache of finished runs; then loads each by a viewer that had not read it
      const longOpen = await openTimes(`experiments/${long}`);
      const [processCold, ...warm] = longOpen.first;
      const fromDatabase = await openTimes(`experiments/${long}`, true);
      const cold = median(fromDatabase.first);
      // the page's own cost: a run of 10 actions, and the long run read with the head this page had before (2,000)
      const tinyOpen = await openTimes(`experiments/${tiny}`);
      const oldHead = await openTimes(`experiments/${long}?head=2000`);
      const headApi = await apiMs(`api/experiments/${long}?head=${HEAD_STEPS}`);
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
        `  one experiment of ${fmt(LONG_RUN)} actions, first draw: ${vs(cold, 150)} read from the database ` +
          `(each load by a viewer that had not read it), ${vs(median(warm), 150)} again (the viewer's cache of ` +
          `finished runs), ${fmt(processCold)} ms the first read of a viewer just started (its process not yet ` +
          `warm); its API alone, cached, ` +
          `${fmt(replayApi.ms)} ms, ${fmt(replayApi.bytes / 1e6, 2)} MB; a redraw at its last step ` +
          `${fmt(redraw, 1)} ms; the whole run held ${fmt(longOpen.whole[0])} ms (cold), ` +
          `${fmt(median(longOpen.whole.slice(1)))} ms (again)`,
      );
      console.log(
        `    its timeline read from the database: ${fromDatabase.timeline}; from the cache: ${longOpen.timeline}; ` +
          `its first read (${fmt(HEAD_STEPS)} steps) ` +
          `${fmt(headApi.ms, 1)} ms cached, ${fmt(headApi.bytes / 1e3)} kB\n` +
          `    the same page for a run of ${fmt(tinyActions)} actions (the page's own cost): first draw ` +
          `${fmt(tinyOpen.first[0])} ms cold, ${fmt(median(tinyOpen.first.slice(1)))} ms again; ` +
          `${tinyOpen.timeline}\n` +
          `    the long run with the first read of 2,000 steps it had before (?head=2000): ` +
          `${fmt(median(oldHead.first))} ms (median of ${LOADS}, cached after the first)`,
      );

      recordFigure({
        what: `first draw of a ${fmt(LONG_RUN)}-action run, read from the database (median of ${LOADS})`,
        measured: cold,
        target: 150,
        unit: 'ms',
      });
      const bigOpen = await openTimes(`experiments/${big}`);
      recordFigure({
        what: `a ${fmt(BIG_RUN)}-action run opened (first draw)`,
        measured: bigOpen.first[0],
        target: 1000,
        unit: 'ms',
      });
      const [bigCold, ...bigWarm] = bigOpen.first;
      console.log(
        `  one experiment of ${fmt(BIG_RUN)} actions, opened (first draw): ${vs(bigCold, 1000)} read from the ` +
          `database, ${vs(median(bigWarm), 1000)} again; the whole run held ${fmt(bigOpen.whole[0])} ms (cold), ` +
          `${fmt(median(bigOpen.whole.slice(1)))} ms (again)`,
      );
      // what a live page asks for when one turn is added: the turns after the last one it holds
      const updates = new Map<number, number>();
      for (const [turns, id] of liveRuns) {
        const whole = await apiMs(`api/experiments/${id}`);
        const update = await apiMs(`api/experiments/${id}?after=${turns - 1}`);
        updates.set(turns, update.bytes);
        recordFigure({
          what: `a live update of 1 new turn at ${fmt(turns)} turns`,
          measured: update.bytes,
          target: LIVE_UPDATE_BYTES,
          unit: 'bytes',
        });
        console.log(
          `  a live update of 1 new turn at ${fmt(turns)} turns: ${fmt(update.bytes)} bytes (target < ` +
            `${fmt(LIVE_UPDATE_BYTES)}; ${fmt(update.bytes / LIVE_UPDATE_BYTES, 2)}x), ${fmt(update.ms, 1)} ms; ` +
            `the whole run ${fmt(whole.bytes / 1e3)} kB`,
        );
      }
      const [small, large] = LIVE_TURNS.map((t) => updates.get(t)!);
      console.log(
        `  its growth from ${fmt(LIVE_TURNS[0])} to ${fmt(LIVE_TURNS[1])} turns: ${fmt(large / small, 2)}x ` +
          `(target 1.00x: the bytes follow the new turns, not the run)`,
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
