// npm run suite-reference -- suites/<name>-v<version>.json: completes a maze suite file from its hand-written part:
// every maze's hash and optima, and the baselines' reference scores, made from scratch by the suite's reference sweep
// (runLocalSweep on a fresh embedded Postgres, counted by reports/sweep-statistics.ts). Mazes already in the file
// must regenerate identically (a changed generator makes a new version); test/maze-suites.test.ts remakes the scores.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  parseSuite,
  parseSuiteDraft,
  REFERENCE_AGENTS,
  referenceSweepName,
  referenceSweepText,
  suiteMazeEntries,
  suiteNumber,
  suiteRef,
  verifySuite,
  type AgentReference,
  type MazeSuite,
  type ReferenceStats,
  noiseRunSeed,
  type SuiteDefinition,
  type SuiteMaze,
} from '../core/maze/suites.ts';
import { noiseFloor } from '../reports/noise-floor.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { openDatabase, type Database } from '../core/store/database.ts';
import { startEmbeddedPostgres } from '../core/store/embedded.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { sweepStatistics, type GroupStatistics } from '../reports/sweep-statistics.ts';
import { packageVersion } from './cli/invocation.ts';
import { writeSuiteFile } from './cli/suite-file.ts';
import { userDirectory } from './cli/output-dir.ts';
import { suiteCodeCommit, suiteCodeHash } from './suite-code.ts';

const ROOT = resolve(import.meta.dirname, '..');

/** Runs at once (the baselines' runs are independent; how many at a time changes no run). */
const CONCURRENCY = 8;

/** A group's scores; refused unless every run ended by the game's rules and counts as an observation of its own. */
function stats(what: string, g: GroupStatistics | undefined): ReferenceStats {
  if (!g) throw new Error(`${what}: no runs`);
  if (g.errors > 0 || g.running > 0 || g.independent !== g.n)
    throw new Error(
      `${what}: ${g.errors} runs ended by an error, ${g.running} still running, ${g.n - g.independent} copies: ` +
        'a reference counts every maze once, each run ended by the rules of the game',
    );
  return {
    n: g.n,
    successes: g.successes,
    success_rate: suiteNumber(g.success.rate),
    wilson95_low: suiteNumber(g.success.wilson.low),
    wilson95_high: suiteNumber(g.success.wilson.high),
    mean_efficiency: suiteNumber(g.efficiency.mean),
    mean_actions: suiteNumber(g.meanActions),
  };
}

/**
 * The reference scores of a suite, made from scratch in `db`: its reference sweep run with runLocalSweep (every
 * baseline once on every maze, under the suite's config), then per baseline overall and per generator and size.
 * `db` must not hold the reference sweep already (a fresh schema): a finished run would not be run again.
 */
export async function suiteReference(suite: SuiteDefinition, db: Database): Promise<MazeSuite['reference']> {
  const sweep = loadSweep(referenceSweepText(suite), `the reference sweep of ${suiteRef(suite)}`);
  const result = await runLocalSweep(sweep, { db, concurrency: CONCURRENCY });
  if (result.ran.start !== sweep.runs.length || result.done !== sweep.runs.length || result.failed > 0)
    throw new Error(
      `the reference sweep of ${suiteRef(suite)} ran ${result.ran.start} of its ${sweep.runs.length} runs ` +
        `afresh and ${result.failed} ended by an error: make it on a fresh database`,
    );
  const name = referenceSweepName(suite);
  const groups = (await sweepStatistics(db, name, { by: ['label', 'maze_generator', 'maze_size'] })).groups;
  const overall = (await sweepStatistics(db, name, { by: ['label'] })).groups;
  const of = (agent: string): AgentReference => ({
    overall: stats(
      agent,
      overall.find((g) => g.factors.label === agent),
    ),
    groups: suite.generators.flatMap((generator) =>
      suite.sizes.map((size) => ({
        generator,
        size,
        ...stats(
          `${agent} ${generator} ${size}`,
          groups.find(
            (g) =>
              g.factors.label === agent &&
              g.factors.maze_generator === generator &&
              Number(g.factors.maze_size) === size,
          ),
        ),
      })),
    ),
  });
  const [random, frontier] = REFERENCE_AGENTS.map(of);
  return { random, frontier };
}

/** Runs of the random baseline on every maze that the noise floor is made from. */
const NOISE_REPEATS = 5;
const NOISE_RESAMPLES = 2_000;

/**
 * Each maze's NOISE_REPEATS runs of the random baseline under the suite's config, each seeded by the suite, the maze
 * and the repeat alone (not a sweep's cell order), so one group's can be made again alone; success by maze.
 */
export async function suiteNoiseRuns(suite: SuiteDefinition, db: Database, mazes: readonly SuiteMaze[]) {
  const jobs = mazes.flatMap((maze) => Array.from({ length: NOISE_REPEATS }, (_, r) => ({ maze, repeat: r + 1 })));
  const outcomes = new Map(mazes.map((m) => [m, new Array<boolean>(NOISE_REPEATS)]));
  let next = 0;
  const worker = async () => {
    for (let job = jobs[next++]; job; job = jobs[next++]) {
      const { maze, repeat } = job;
      const { summary } = await runLocalExperiment(
        {
          agent: 'random',
          agentSeed: noiseRunSeed(suite, maze, repeat),
          maze: { generator: maze.generator, size: maze.size, seed: maze.seed },
          config: suite.config,
        },
        { db },
      );
      outcomes.get(maze)![repeat - 1] = summary?.goal_found === true;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return outcomes;
}

/** The suite's noise floor, overall and per generator and size, from suiteNoiseRuns on every maze. */
export async function suiteNoiseFloor(suite: SuiteDefinition, db: Database): Promise<MazeSuite['noise_floor']> {
  const outcomes = await suiteNoiseRuns(suite, db, suiteMazeEntries(suite));
  const floor = (mazes: SuiteMaze[]) => {
    const {
      repeats: _r,
      resamples: _n,
      seed: _s,
      ...f
    } = noiseFloor(
      mazes.map((m) => outcomes.get(m)!),
      NOISE_RESAMPLES,
    );
    return f;
  };
  const all = [...outcomes.keys()];
  return {
    agent: 'random',
    successes: all.map((m) => outcomes.get(m)!.filter(Boolean).length),
    repeats: NOISE_REPEATS,
    resamples: NOISE_RESAMPLES,
    seed: 1,
    overall: floor(all),
    groups: suite.generators.flatMap((generator) =>
      suite.sizes.map((size) => ({
        generator,
        size,
        ...floor(all.filter((m) => m.generator === generator && m.size === size)),
      })),
    ),
  };
}

/** A fresh embedded Postgres in a temporary directory, removed afterwards, for `fn`. */
async function withFreshDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const parent = mkdtempSync(join(tmpdir(), 'ariadne-suite-'));
  chmodSync(parent, 0o755); // as root the server runs as "postgres", who must reach the data dir
  try {
    const server = await startEmbeddedPostgres({ dataDir: join(parent, 'pgdata'), persistent: false });
    try {
      const db = await openDatabase({ url: server.url, schema: 'suite_reference', poolSize: CONCURRENCY + 2 });
      try {
        return await fn(db);
      } finally {
        await db.close();
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

/** Completes the suite file at `path` (mazes, reference, how it was made) and writes it back, as Prettier lays out. */
async function makeSuiteFile(path: string): Promise<void> {
  const source = path.startsWith(`${ROOT}/`) ? relative(ROOT, path) : path;
  const draft = parseSuiteDraft(JSON.parse(readFileSync(path, 'utf8')), source);
  const mazes = suiteMazeEntries(draft);
  if (draft.mazes) {
    const changed = verifySuite({ mazes: draft.mazes });
    if (changed.length > 0 || JSON.stringify(draft.mazes) !== JSON.stringify(mazes))
      throw new Error(
        `${source}: its mazes are not what this installation generates (${changed.length} differ` +
          `${changed.length > 0 ? `: ${changed[0].message}` : ', or another list'}); a suite's mazes never change: ` +
          'give the changed suite a new version',
      );
  }
  const started = Date.now();
  const [reference, noise] = await withFreshDatabase(
    async (db) => [await suiteReference(draft, db), await suiteNoiseFloor(draft, db)] as const,
  );
  const seconds = (Date.now() - started) / 1000;
  const { format: f, name, version, description, generators, sizes, seeds, config } = draft;
  const code = suiteCodeHash(ROOT);
  const commit = suiteCodeCommit(ROOT, code.files);
  const suite = parseSuite(
    {
      // the hand-written part in its order, then what is computed from it
      format: f,
      name,
      version,
      description,
      generators,
      sizes,
      seeds,
      config,
      mazes,
      reference,
      noise_floor: noise,
      reference_made_with: {
        ariadne_version: packageVersion(),
        commit: commit.commit,
        code_changed_since_commit: commit.changed_since,
        code_hash: code.hash,
        code_files: code.files,
        sweep_name: referenceSweepName(draft),
        sweep: referenceSweepText(draft).trimEnd().split('\n'),
        command: `npm run suite-reference -- ${source}`,
      },
      // people's scores shipped with the suite (ariadne suite record-humans) stay: its mazes have not changed
      ...(draft.human_reference ? { human_reference: draft.human_reference } : {}),
    },
    source,
  );
  await writeSuiteFile(path, suite);
  process.stdout.write(`${source}: ${suite.mazes.length} mazes, reference made in ${seconds.toFixed(1)} s\n`);
  const floor = suite.noise_floor.overall;
  process.stdout.write(
    `  noise floor (random, ${NOISE_REPEATS} runs a maze): success sd ${floor.sd}, gap95 ${floor.gap95}\n`,
  );
  for (const agent of REFERENCE_AGENTS) {
    const o = suite.reference[agent].overall;
    process.stdout.write(
      `  ${agent}: ${o.successes}/${o.n} succeeded, efficiency ${o.mean_efficiency ?? '-'}, ` +
        `actions ${o.mean_actions ?? '-'}\n`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: npm run suite-reference -- suites/<name>-v<version>.json\n');
    process.exit(2);
  }
  try {
    // npm run moves to the package root; a relative path is the user's
    await makeSuiteFile(resolve(userDirectory(), file));
  } catch (err) {
    process.stderr.write(`suite-reference: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
