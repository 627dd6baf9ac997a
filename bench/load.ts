// Many experiments at once (1, 8 and 32) against one Postgres through one pool, as a local sweep runs them: baseline
// agents (pure engine and database work) and model-bound ones (the ollama client against a simulator answering after
// MODEL_MS). Prints throughput, speed-up, turn latency percentiles, CPU per action and peak RSS; a baseline run keeps
// about one core busy, so the speed-up's ceiling on C cores is printed beside it. Targets: 32 at once at least 4x the
// throughput of one; peak RSS under 400 MB. BENCH_LOAD_ACTIONS sets the baseline experiments' size.
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database } from '../core/store/database.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { experimentDefinition } from '../state-machine/definition.ts';
import { STATES } from '../core/machine/states.ts';
import type { StartExecutionInput } from '../core/machine/contracts.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { ledgerProblems } from '../test/support/db.ts';
import { envInteger } from '../core/config/environment.ts';
import { recordFigure } from './figures.ts';
import { benchPostgres, fmt } from './support.ts';

const BASELINE_ACTIONS = envInteger('BENCH_LOAD_ACTIONS', process.env, 100) ?? 2_000;
const RSS_TARGET_MB = 400;
const MODEL_ACTIONS = 200;
const MODEL_MS = 100;

interface Level {
  n: number;
  actions: number;
  seconds: number;
  latencies: number[];
  nodeCpu: number;
  pgCpu: number | null;
  problems: string[];
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/** Runs n experiments at once and measures them; `input(i)` is the i-th experiment. */
async function runLevel(
  db: Database,
  pgCpu: () => number | null,
  n: number,
  agentState: string,
  input: (i: number) => StartExecutionInput,
): Promise<Level> {
  const latencies: number[] = [];
  const wrap = (state: string, handler: (e: unknown) => Promise<unknown>) =>
    state === agentState
      ? async (e: unknown) => {
          const t = performance.now();
          try {
            return await handler(e);
          } finally {
            latencies.push(performance.now() - t);
          }
        }
      : handler;
  const cpu0 = process.cpuUsage();
  const pg0 = pgCpu();
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: n }, (_, i) => runLocalExperiment(input(i), { db, wrap })));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const pg1 = pgCpu();
  latencies.sort((a, b) => a - b);
  return {
    n,
    seconds,
    latencies,
    problems: await ledgerProblems(
      db,
      results.map((r) => r.experimentId!),
    ),
    actions: results.reduce((s, r) => s + (r.summary?.actions ?? 0), 0),
    nodeCpu: (cpu.user + cpu.system) / 1e6,
    pgCpu: pg0 === null || pg1 === null ? null : pg1 - pg0,
  };
}

function report(levels: Level[], cores: number, nodeLabel: string): void {
  const single = levels[0];
  const rateOf = (l: Level) => l.actions / l.seconds;
  const us = (seconds: number, l: Level) => fmt((seconds * 1e6) / l.actions);
  for (const l of levels) {
    const rss = process.resourceUsage().maxRSS / 1024;
    const busy = `${fmt(l.nodeCpu / l.seconds, 2)}${l.pgCpu === null ? '' : ` + ${fmt(l.pgCpu / l.seconds, 2)}`}`;
    console.log(
      `  ${String(l.n).padStart(2)} at once: ${fmt(l.actions)} actions in ${fmt(l.seconds, 2)} s -> ` +
        `${fmt(rateOf(l))} actions/s (${fmt(rateOf(l) / rateOf(single), 2)}x one; target at 32: >= 4x); ` +
        `turn p50 ${fmt(percentile(l.latencies, 0.5), 1)} ms, p95 ` +
        `${fmt(percentile(l.latencies, 0.95), 1)} ms, p99 ${fmt(percentile(l.latencies, 0.99), 1)} ms; ` +
        `CPU per action: ${nodeLabel} ${us(l.nodeCpu, l)} µs, Postgres ` +
        `${l.pgCpu === null ? 'n/a' : `${us(l.pgCpu, l)} µs`}; cores busy ${busy} of ${cores}; peak RSS ` +
        `${fmt(rss)} MB (target < ${RSS_TARGET_MB}: ${fmt(rss / RSS_TARGET_MB, 2)}x)`,
    );
    console.log(
      l.problems.length === 0
        ? `     checked: all ${l.n} finalized; every step and turn logged once; counters equal the rows`
        : `     INTEGRITY PROBLEMS: ${l.problems.join('; ')}`,
    );
  }
  const last = levels.at(-1)!;
  recordFigure({
    what: `peak RSS after ${last.n} runs at once (${nodeLabel === 'Node' ? 'baseline' : 'model-bound, simulator in'})`,
    measured: process.resourceUsage().maxRSS / 1024,
    target: RSS_TARGET_MB,
    unit: 'MB',
  });
  if (last.pgCpu === null || levels.length < 2) return;
  // No schedule can beat all cores busy at the CPU cost per action measured at this level.
  const bound = (cores * last.actions) / (last.nodeCpu + last.pgCpu);
  console.log(
    `  at ${last.n} at once the CPU per action (${us(last.nodeCpu + last.pgCpu, last)} µs) allows at ` +
      `most ${fmt(bound)} actions/s on ${cores} cores, ` +
      `${fmt(bound / rateOf(single), 2)}x one; reached ${fmt((100 * rateOf(last)) / bound)}% of that`,
  );
}

export async function loadBench(levels = [1, 8, 32]): Promise<void> {
  const pgServer = await benchPostgres();
  const db = await openDatabase({ url: pgServer.url, schema: 'bench_load', poolSize: 20 });
  // one model name per concurrent experiment: the simulated model keeps its map of the maze per model name
  const models = Array.from({ length: Math.max(...levels) }, (_, i) => `qwen2.5:7b-${i}`);
  const ollama = new OllamaSim({ models, always: { kind: 'slow', ms: MODEL_MS } });
  const ollamaHost = await ollama.listen();
  experimentDefinition();
  const cores = availableParallelism();
  const baseline = (seed: number): StartExecutionInput => ({
    agent: 'random',
    agentSeed: seed,
    maze: { generator: 'perfect', size: 51, seed: seed + 1 },
    config: { max_moves: BASELINE_ACTIONS, success_rule: 'reached' },
  });
  const modelBound = (seed: number): StartExecutionInput => ({
    agent: 'ollama',
    model: models[seed],
    maze: { generator: 'perfect', size: 21, seed: seed + 1 },
    config: { max_moves: MODEL_ACTIONS, success_rule: 'reached', ollama: { host: ollamaHost } },
  });
  try {
    console.log(
      `load: N experiments at once in one process, one pool of 20 connections, ${cores} cores; load average ` +
        loadavg()
          .map((l) => fmt(l, 2))
          .join(' '),
    );
    // not counted: JIT warm-up on every path, and the pool's connections opened
    await Promise.all(Array.from({ length: 8 }, (_, i) => runLocalExperiment(baseline(1000 + i), { db })));
    await runLocalExperiment(baseline(999), { db });

    console.log(` baseline agents (random, ${fmt(BASELINE_ACTIONS)} actions each, perfect 51x51):`);
    const measured: Level[] = [];
    for (const n of levels)
      measured.push(await runLevel(db, pgServer.cpuSeconds, n, STATES.InvokeBaselineAgent, baseline));
    report(measured, cores, 'Node');

    console.log(
      ` model-bound agents (ollama client, simulated model answering after ${MODEL_MS} ms, ` +
        `${MODEL_ACTIONS} actions each, perfect 21x21):`,
    );
    const model: Level[] = [];
    for (const n of levels)
      model.push(await runLevel(db, pgServer.cpuSeconds, n, STATES.InvokeOllamaAgent, modelBound));
    report(model, cores, 'Node (simulator included)');
  } finally {
    await ollama.close();
    await db.close();
    await pgServer.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await loadBench();
