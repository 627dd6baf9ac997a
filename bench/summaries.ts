// The sweep page's statistics and plot data (loadReport, GET /api/sweeps/:id/report) on 1,000 runs and
// BENCH_SUMMARY_ACTIONS actions, from the kept per-experiment totals (migration 017) and, on the same data, recomputed
// from every action (the old aggregation), over pg and the Data API simulator. Medians of 9 after three warm-ups (one
// warm-up moved a median of 5 by half). Target: under 100 ms.
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { envInteger } from '../core/config/environment.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { loadReport } from '../reports/report-data.ts';
import { overDataApi } from '../simulators/rds-data-sim.ts';
import type { Sql } from '../core/store/sql.ts';
import { benchPostgres, fmt } from './support.ts';
import { recordFigure } from './figures.ts';
import { freshBenchDatabase, seedSweep } from './seed-sweep.ts';

const LOADS = 9;
const RUNS = 1_000;
const TARGET_MS = 100;
const SWEEP = 'bench-summaries';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Migration 017's experiment_summary, reading the totals recomputed at read time instead of the kept ones. */
function recomputingView(): string {
  const migration = readFileSync(new URL('../migrations/017_experiment_totals.sql', import.meta.url), 'utf8');
  const view = migration.slice(migration.indexOf('CREATE OR REPLACE VIEW experiment_summary'));
  return view.replace('LEFT JOIN experiment_totals k', 'LEFT JOIN experiment_totals_recomputed k');
}

export async function summariesBench(): Promise<void> {
  const actions = envInteger('BENCH_SUMMARY_ACTIONS', process.env, RUNS * 10) ?? 1_000_000;
  const perRun = Math.max(10, Math.round(actions / RUNS / 10) * 10);
  const pgServer = await benchPostgres();
  const db = await freshBenchDatabase(pgServer.url, 'bench_summaries', 4);
  const overApi = await overDataApi(db, { url: pgServer.url });
  try {
    const seedStarted = performance.now();
    const { experimentId: source } = await runLocalExperiment(
      { agent: 'random', agentSeed: 1, maze: { generator: 'perfect', size: 15, seed: 1 }, config: { max_moves: 50 } },
      { db },
    );
    await seedSweep(db, SWEEP, RUNS * perRun, perRun, source!);
    await db.pool.query('VACUUM ANALYZE');
    const { rows } = await db.pool.query<{ actions: number }>('SELECT count(*)::int AS actions FROM actions');
    console.log(
      `sweep statistics: ${fmt(RUNS)} runs, ${fmt(rows[0].actions)} actions; seeded in ` +
        `${fmt((performance.now() - seedStarted) / 1000, 1)} s; medians of ${LOADS}; load average ` +
        `${fmt(loadavg()[0], 1)} on ${availableParallelism()} cores`,
    );
    const timed = async (sql: Sql) => {
      const first = await loadReport(sql, SWEEP, { cells: true }); // warm-ups
      for (let i = 0; i < 2; i++) await loadReport(sql, SWEEP, { cells: true });
      const times: number[] = [];
      for (let i = 0; i < LOADS; i++) {
        const t = performance.now();
        await loadReport(sql, SWEEP, { cells: true });
        times.push(performance.now() - t);
      }
      return { ms: median(times), report: JSON.stringify(first) };
    };
    const kept = { pg: await timed(db), dataApi: await timed(overApi) };
    await db.pool.query(recomputingView());
    const recomputed = { pg: await timed(db), dataApi: await timed(overApi) };
    await db.pool.query(recomputingView().replace('experiment_totals_recomputed k', 'experiment_totals k'));
    for (const [name, key] of [
      ['pg', 'pg'],
      ['Data API', 'dataApi'],
    ] as const) {
      const k = kept[key];
      const r = recomputed[key];
      recordFigure({
        what: `sweep statistics and plots over ${name}, ${fmt(rows[0].actions)} actions`,
        measured: k.ms,
        target: TARGET_MS,
        unit: 'ms',
      });
      console.log(
        `  the sweep page's statistics and plots' data over ${name}: ${fmt(k.ms, 1)} ms from the kept summaries ` +
          `(target < ${TARGET_MS} ms; ${fmt(k.ms / TARGET_MS, 2)}x); recomputed from every action ${fmt(r.ms, 1)} ms ` +
          `(${fmt(r.ms / k.ms, 1)}x the kept time); the same report: ${k.report === r.report ? 'yes' : 'NO'}`,
      );
    }
  } finally {
    await overApi.sim.close();
    await db.close();
    await pgServer.stop();
  }
}
