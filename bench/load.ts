// Many experiments at once against one Postgres through one pool: baseline
// agents (random, 2,000 actions each on a 51x51 perfect maze), 1, 8 and 32 at
// a time in one process, as a local sweep would run them. Prints actions per
// second, the speed-up over one, turn latency (the agent Task, database round
// trips included) at p50/p95/p99, and peak RSS. Targets: 32 concurrent at
// least 4x the throughput of one; RSS under 500 MB.
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../lambdas/store/database.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { experimentDefinition } from '../state-machine/definition.ts';
import { STATES } from '../state-machine/states.ts';
import { benchPostgres, fmt } from './support.ts';

const ACTIONS = 2_000;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

export async function loadBench(levels = [1, 8, 32]): Promise<void> {
  const pgServer = await benchPostgres();
  const db = await openDatabase({ url: pgServer.url, schema: 'bench_load', poolSize: 20 });
  experimentDefinition();
  try {
    console.log(`load: N experiments at once (random agent, ${fmt(ACTIONS)} actions each, perfect 51x51), one process, one pool of 20 connections`);
    let single = 0;
    // one run first, not counted: JIT warm-up and the first connections
    await runLocalExperiment({ agent: 'random', agentSeed: 99, maze: { generator: 'perfect', size: 51, seed: 99 }, config: { max_moves: ACTIONS } }, { db });
    for (const n of levels) {
      const latencies: number[] = [];
      const wrap = (state: string, handler: (e: unknown) => Promise<unknown>) => (state === STATES.InvokeBaselineAgent
        ? async (e: unknown) => { const t = performance.now(); try { return await handler(e); } finally { latencies.push(performance.now() - t); } }
        : handler);
      const started = performance.now();
      const results = await Promise.all(Array.from({ length: n }, (_, i) => runLocalExperiment({
        agent: 'random', agentSeed: i, maze: { generator: 'perfect', size: 51, seed: i + 1 }, config: { max_moves: ACTIONS, success_rule: 'reached' },
      }, { db, wrap: wrap as never })));
      const seconds = (performance.now() - started) / 1000;
      const actions = results.reduce((s, r) => s + (r.summary?.actions ?? 0), 0);
      const rate = actions / seconds;
      if (n === 1) single = rate;
      latencies.sort((a, b) => a - b);
      const rss = process.resourceUsage().maxRSS / 1024;
      console.log(`  ${String(n).padStart(2)} at once: ${fmt(actions)} actions in ${fmt(seconds, 2)} s -> ${fmt(rate)} actions/s (${fmt(rate / single, 2)}x one; target at 32: >= 4x), `
        + `turn latency p50 ${fmt(percentile(latencies, 0.5), 1)} ms, p95 ${fmt(percentile(latencies, 0.95), 1)} ms, p99 ${fmt(percentile(latencies, 0.99), 1)} ms; peak RSS ${fmt(rss)} MB (target < 500)`);
    }
  } finally {
    await db.close();
    await pgServer.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await loadBench();
