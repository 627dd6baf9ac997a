// A sweep's paired statistics at the scale the tool exists for: 10,000 runs of two baselines (BENCH_PAIRED_RUNS,
// 1.2 million actions). Times `ariadne compare`, `ariadne report` (with and without its behaviour figures, which read
// every move) and the viewer's report and pair over pg (medians of 5 after a warm-up), the old read of sweep_run_pairs
// beside the one that replaced it (the same pairs?), and compare and the report over the Data API simulator. Target:
// under a second each.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { envInteger } from '../core/config/environment.ts';
import { readPaged } from '../core/store/pages.ts';
import type { Sql } from '../core/store/sql.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { compareAgents } from '../reports/compare.ts';
import { writeReport } from '../reports/write-report.ts';
import { agentPairRows } from '../results/sweep-pairs.ts';
import { statisticsRunRows } from '../results/statistics-runs.ts';
import { overDataApi } from '../simulators/rds-data-sim.ts';
import { startViewer } from '../viewer/server.ts';
import { recordFigure } from './figures.ts';
import { benchPostgres, fmt } from './support.ts';
import { freshBenchDatabase, seedPairedSweep } from './seed-sweep.ts';

const SWEEP = 'bench-pairs';
const LOADS = 5;
const REPEATS = 50;
const TARGET_MS = 1000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function medianMs(fn: () => Promise<unknown>, loads = LOADS): Promise<number> {
  await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < loads; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

type ViewPair = Record<string, unknown> & { experiment_a: string; experiment_b: string };

/** The pairs and the pairs left out as compare read them before: the view in keyset pages, and its self-join. */
async function viewPairs(db: Sql, first: string, second: string) {
  const rows = await readPaged<ViewPair>(
    async (last, limit) =>
      (
        await db.query<ViewPair>(
          `SELECT experiment_a, experiment_b, maze_generator || ' ' || maze_size || ' ' || maze_seed AS maze, settings,
                  ok_a, ok_b, eff_a::float8 AS eff_a, eff_b::float8 AS eff_b, run_pairs::int AS run_pairs,
                  identical_a, identical_b, model_a, model_b
           FROM sweep_run_pairs
           WHERE sweep_id = $1 AND label_a = $2 AND label_b = $3 AND (experiment_a, experiment_b) > ($4::text, $5::text)
           ORDER BY experiment_a, experiment_b LIMIT $6`,
          [SWEEP, first, second, last?.experiment_a ?? '', last?.experiment_b ?? '', limit],
        )
      ).rows,
    1000,
  );
  const { rows: left } = await db.query<{ errors: number; running: number }>(
    `SELECT (count(*) FILTER (WHERE 'error' IN (x.outcome_class, y.outcome_class)))::int AS errors,
            (count(*) FILTER (WHERE 'running' IN (x.outcome_class, y.outcome_class)
                                AND 'error' NOT IN (x.outcome_class, y.outcome_class)))::int AS running
     FROM sweep_runs x JOIN sweep_runs y ON y.sweep_id = x.sweep_id AND y.label = $3
       AND y.maze_generator = x.maze_generator AND y.maze_size = x.maze_size AND y.maze_seed = x.maze_seed
       AND y.settings::text = x.settings::text AND y.repeat = x.repeat
     WHERE x.sweep_id = $1 AND x.label = $2`,
    [SWEEP, first, second],
  );
  return { rows, left: left[0] };
}

const ms = (n: number) => (n >= 10_000 ? `${fmt(n / 1000, 1)} s` : `${fmt(n, 0)} ms`);
const against = (n: number) => `(target < ${fmt(TARGET_MS)} ms: ${fmt(n / TARGET_MS, 2)}x)`;

export async function sweepPairsBench(): Promise<void> {
  const runs = envInteger('BENCH_PAIRED_RUNS', process.env, 200) ?? 10_000;
  const mazes = Math.max(1, Math.round(runs / 2 / REPEATS));
  const pgServer = await benchPostgres();
  const db = await freshBenchDatabase(pgServer.url, 'bench_sweep_pairs', 4);
  const overApi = await overDataApi(db, { url: pgServer.url });
  const out = mkdtempSync(join(tmpdir(), 'ariadne-bench-pairs-'));
  try {
    const seedStarted = performance.now();
    const sources: string[] = [];
    for (const agent of ['random', 'frontier']) {
      const { experimentId } = await runLocalExperiment(
        { agent, agentSeed: 1, maze: { generator: 'perfect', size: 15, seed: 1 }, config: { max_moves: 50 } },
        { db },
      );
      sources.push(experimentId!);
    }
    const seeded = await seedPairedSweep(db, SWEEP, {
      sources: [sources[0], sources[1]],
      mazes,
      repeats: REPEATS,
      perRun: 120,
    });
    await db.pool.query('VACUUM ANALYZE');
    const { rows } = await db.pool.query<{ actions: number }>('SELECT count(*)::int AS actions FROM actions');
    console.log(
      `sweep pairs: ${fmt(seeded)} runs of two baselines (random, frontier; ${fmt(mazes)} mazes x ${REPEATS} ` +
        `repeats), ${fmt(rows[0].actions)} actions; seeded in ${fmt((performance.now() - seedStarted) / 1000, 1)} s; ` +
        `medians of ${LOADS}; load average ${fmt(loadavg()[0], 1)} on ${availableParallelism()} cores`,
    );

    // before and after: the pairs compare reads, the same either way
    const oldStarted = performance.now();
    const before = await viewPairs(db, 'frontier', 'random');
    const oldMs = performance.now() - oldStarted;
    const after = await agentPairRows(db, SWEEP, 'frontier', 'random');
    // the pairs, and the pairs left out as the old read counted them (wall-clock stops are counted apart since)
    const same =
      JSON.stringify(before.rows) === JSON.stringify(after.rows) &&
      before.left.errors === after.left.errors &&
      before.left.running === after.left.running;
    const pairsMs = await medianMs(() => agentPairRows(db, SWEEP, 'frontier', 'random'));
    console.log(
      `  the two agents' ${fmt(after.rows.length)} pairs as compare read them before (sweep_run_pairs in pages of ` +
        `1,000, and its self-join for the pairs left out), once: ${ms(oldMs)}; from the sweep's runs read once: ` +
        `${ms(pairsMs)} (${fmt(oldMs / pairsMs, 0)}x faster); the same pairs: ${same ? 'yes' : 'NO'}`,
    );

    // a sweep-wide read of sweep_runs: keyset pages each evaluate the whole view; pg reads it in one statement
    const paged: Sql = { query: (text, values, options) => db.query(text, values, options) };
    const pagedMs = await medianMs(() => statisticsRunRows(paged, SWEEP, ['label']), 3);
    const wholeMs = await medianMs(() => statisticsRunRows(db, SWEEP, ['label']), 3);
    console.log(
      `  the statistics' ${fmt(seeded)} runs from sweep_runs in keyset pages of 2,000: ${ms(pagedMs)}; ` +
        `in one statement over pg: ${ms(wholeMs)} (${fmt(pagedMs / wholeMs, 1)}x faster)`,
    );

    const viewer = await startViewer({ db, source: 'bench', pollMs: 60_000 });
    try {
      const get = async (path: string) => {
        const res = await fetch(new URL(path, viewer.url));
        if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
        return res.json();
      };
      const report = (behaviour: boolean) => () => writeReport(db, SWEEP, join(out, 'report.html'), 0, { behaviour });
      const timings: Array<[string, () => Promise<unknown>, number | null]> = [
        ['ariadne compare', () => compareAgents(db, SWEEP, 'random', 'frontier'), 24_800],
        ['ariadne report (no replays, --no-behaviour)', report(false), 25_600],
        // the behaviour figures read every move of the sweep's observations (reports/behaviour-statistics.ts)
        ['ariadne report (no replays) with its behaviour figures', report(true), null],
        ["the viewer's sweep report", () => get(`/api/sweeps/${SWEEP}/report`), 25_400],
        ["the viewer's pair", () => get(`/api/sweeps/${SWEEP}/pair?a=random&b=frontier`), 24_800],
      ];
      for (const [what, fn, issueMs] of timings) {
        const t = await medianMs(fn);
        recordFigure({ what: `${what}, ${fmt(seeded)}-run sweep over pg`, measured: t, target: TARGET_MS, unit: 'ms' });
        // the issue measured these on a sweep of 10,000 runs, before this read
        const issue =
          seeded === 10_000 && issueMs !== null
            ? `; the issue's before on its machine: ${ms(issueMs)} (${fmt(issueMs / t, 0)}x)`
            : '';
        console.log(`  ${what} over pg: ${ms(t)} ${against(t)}${issue}`);
      }
    } finally {
      await viewer.close();
    }
    // the Data API keeps its 1 MiB pages: each page of sweep_runs evaluates the view again
    const apiCompare = await medianMs(() => compareAgents(overApi, SWEEP, 'random', 'frontier'), 3);
    const apiReport = await medianMs(
      () => writeReport(overApi, SWEEP, join(out, 'report-api.html'), 0, { behaviour: false }),
      3,
    );
    console.log(
      `  over the Data API (simulator, pages of at most 1 MiB): ariadne compare ${ms(apiCompare)} ` +
        `${against(apiCompare)}; ariadne report --no-behaviour ${ms(apiReport)} ${against(apiReport)}`,
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
    await overApi.sim.close();
    await db.close();
    await pgServer.stop();
  }
}
