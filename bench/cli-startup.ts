// How long the installed `ariadne` takes to answer, whole process (start-up, loading, the work, exit), medians of
// 5 runs paired with `node -e 0`, the CLI compiled first as npm install does, the sources under tsx beside it.
// Targets: --version under 0.3 s, --help under 0.5 s, `list` on a running (embedded) Postgres under 0.8 s.
import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { compileCli } from '../bin/compile-cli.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { benchPostgres, fmt } from './support.ts';
import { freshBenchDatabase } from './seed-sweep.ts';

const RUNS = 5;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCHEMA = 'bench_cli_startup';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Wall seconds of one whole process; its exit code must be 0 (a figure of a failing command means nothing). */
function wall(args: string[], env: NodeJS.ProcessEnv): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return seconds;
}

/** Medians of `args` and of the baseline, run in turn, with the median of the pairs' ratios. */
function paired(args: string[], env: NodeJS.ProcessEnv) {
  wall(args, env); // warm-up, not counted: the file cache, tsx's transform cache
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    a.push(wall(args, env));
    b.push(wall(['-e', '0'], env));
  }
  return { seconds: median(a), baseline: median(b), ratio: median(a.map((x, i) => x / b[i])) };
}

export async function cliStartupBench(): Promise<void> {
  const cli = await compileCli(); // as npm install does: the commands run the compiled CLI
  const pgServer = await benchPostgres();
  const db = await freshBenchDatabase(pgServer.url, SCHEMA, 2);
  try {
    // a few stored runs, so `list` has rows to read and print
    for (const seed of [1, 2, 3])
      await runLocalExperiment(
        { agent: 'random', agentSeed: seed, maze: { generator: 'perfect', size: 9, seed }, config: { max_moves: 50 } },
        { db },
      );
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: pgServer.url,
      DATABASE_SCHEMA: SCHEMA,
      ARIADNE_NO_NODE_WARNING: '1',
    };
    const commands: { label: string; args: string[]; target: number }[] = [
      { label: 'ariadne --version', args: ['--version'], target: 0.3 },
      { label: 'ariadne --help', args: ['--help'], target: 0.5 },
      { label: 'ariadne list', args: ['list'], target: 0.8 },
    ];
    console.log(
      `CLI start-up: whole process, medians of ${RUNS} runs paired with node -e 0 (${availableParallelism()} cores, ` +
        `load ${fmt(loadavg()[0], 2)}); the CLI compiled from ${cli.sources.length} sources into an entry and ` +
        `its chunks, ${cli.packagesAtStart.length} packages evaluated at every start; list on an embedded Postgres ` +
        'with 3 runs',
    );
    const rows = commands.map((c) => ({
      ...c,
      installed: paired(['bin/ariadne.js', ...c.args], env),
      tsx: paired(['--import', 'tsx', 'bin/ariadne.ts', ...c.args], env),
    }));
    console.log(`  node -e 0               ${fmt(median(rows.map((r) => r.installed.baseline)), 3)} s`);
    for (const r of rows)
      console.log(
        `  ${r.label.padEnd(22)}  ${fmt(r.installed.seconds, 3)} s (target < ${r.target} s; ` +
          `${fmt(r.installed.seconds / r.target, 2)}x the target, ${fmt(r.installed.ratio, 1)}x node -e 0); ` +
          `from the sources under tsx ${fmt(r.tsx.seconds, 3)} s (${fmt(r.tsx.ratio, 1)}x node -e 0)`,
      );
  } finally {
    await db.close();
    await pgServer.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await cliStartupBench();
