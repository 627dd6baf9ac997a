// Maze suites: the committed suite file is valid, its mazes are what this code generates (by content hash, computed
// here from the grid), a tampered copy is caught naming the maze, the reference scores come out the same when made
// again from scratch, and `ariadne suite` lists, shows and verifies it through the real CLI.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMaze } from '../core/maze/generators/index.ts';
import {
  findSuite,
  listSuites,
  parseSuite,
  recordedSweepText,
  referenceSweepText,
  suiteMazes,
  verifySuite,
  type MazeSuite,
} from '../core/maze/suites.ts';
import { InvalidInputError } from '../core/errors.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { suiteNoiseRuns, suiteReference } from '../bin/make-suite-reference.ts';
import { noiseFloor } from '../reports/noise-floor.ts';
import { suiteCodeFiles, suiteCodeHash } from '../bin/suite-code.ts';
import { ROOT } from './support/cli.ts';
import { ariadneInProcess } from './support/cli-in-process.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';

const FILE = 'suites/ariadne-mazes-v1.json';
const REF = 'ariadne-mazes/v1';
const raw = () => JSON.parse(readFileSync(join(ROOT, FILE), 'utf8')) as MazeSuite;
const suite = raw();

/** The error parseSuite throws for `input`, as text (none: the test fails). */
function refusal(input: unknown): string {
  try {
    parseSuite(input, 'a copy');
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidInputError);
    return (e as Error).message;
  }
  throw new Error('parseSuite accepted it');
}

describe('the committed suite file', () => {
  it('is valid, and is the suite the registry knows by its name and version', () => {
    const parsed = parseSuite(raw(), FILE);
    expect(parsed).toEqual(suite);
    expect(listSuites().map((s) => s.ref)).toContain(REF);
    const found = findSuite(REF);
    expect(found).toMatchObject({ ref: REF, file: FILE });
    expect(found.suite).toEqual(suite);
    expect(suite.mazes).toHaveLength(suite.generators.length * suite.sizes.length * suite.seeds.length);
  });

  it('holds the content hash of each maze: SHA-256 of its tiles and start, as computed here', () => {
    for (const m of suite.mazes) {
      const maze = generateMaze({ generator: m.generator, width: m.size, height: m.size, seed: m.seed });
      const rows = maze.grid.toRows().map((r) => r.join(''));
      const text = `ariadne-maze-v1\n${m.size}x${m.size}\nstart ${maze.start.x},${maze.start.y}\n${rows.join('\n')}\n`;
      expect(m.hash, `${m.generator} ${m.size} seed ${m.seed}`).toBe(createHash('sha256').update(text).digest('hex'));
    }
  });

  it('verifySuite finds no mismatch', () => {
    expect(verifySuite(suite)).toEqual([]);
  });

  it('verifySuite names each maze of a tampered copy, with what the file says and what is generated here', () => {
    const copy = structuredClone(suite);
    const i = copy.mazes.findIndex((m) => m.generator === 'rooms_and_corridors' && m.size === 21 && m.seed === 4);
    const trueHash = copy.mazes[i].hash;
    copy.mazes[i].hash = `${trueHash.slice(0, -1)}${trueHash.endsWith('0') ? '1' : '0'}`;
    copy.mazes[0].shortest_path_to_sight += 1;
    const mismatches = verifySuite(copy);
    expect(mismatches).toEqual([
      expect.objectContaining({
        maze: 'perfect 11 seed 1',
        field: 'shortest_path_to_sight',
        suite: suite.mazes[0].shortest_path_to_sight + 1,
        here: suite.mazes[0].shortest_path_to_sight,
      }),
      expect.objectContaining({
        maze: 'rooms_and_corridors 21 seed 4',
        field: 'hash',
        suite: copy.mazes[i].hash,
        here: trueHash,
      }),
    ]);
    expect(mismatches[1].message).toMatch(/^rooms_and_corridors 21 seed 4: hash is [0-9a-f]{64} here, the suite has/);
  });

  it('verifySuite names a maze this installation cannot generate at all', () => {
    const maze = { ...suite.mazes[0], size: 12 }; // perfect mazes have odd sides only
    expect(verifySuite({ mazes: [maze] })).toEqual([
      expect.objectContaining({ maze: 'perfect 12 seed 1', field: 'maze', suite: maze.hash, here: null }),
    ]);
    expect(verifySuite({ mazes: [maze] })[0].message).toMatch(/^perfect 12 seed 1: not generated here: .*odd/);
  });

  it('refuses a copy with broken fields, naming each', () => {
    const copy: any = structuredClone(suite);
    copy.mazes[3].hash = 'abc';
    delete copy.config.max_moves;
    copy.config.vision_range = 0;
    copy.reference.random.groups[0].n = 9;
    copy.sizes = [11, 21, 31, 12]; // perfect and multiple_paths need odd sizes
    const message = refusal(copy);
    expect(message).toMatch(/^a copy is not a valid maze suite:/);
    expect(message).toContain('mazes.3.hash: ');
    expect(message).toContain('(got "abc")');
    expect(message).toContain('config.max_moves: a suite fixes max_moves');
    expect(message).toContain('config.vision_range: ');
    expect(message).toContain('reference.random.groups.0.n: one run per seed: n is 10');
    expect(message).toContain('sizes.3: perfect 12: ');
  });

  it('refuses a copy that fixes a wall-clock limit: the suite caps moves and turns, not minutes', () => {
    expect(suite.config).not.toHaveProperty('max_duration_minutes');
    const copy: any = structuredClone(suite);
    copy.config.max_duration_minutes = 120;
    expect(refusal(copy)).toContain(
      'config.max_duration_minutes: a suite does not fix max_duration_minutes: a wall-clock stop depends on the ' +
        'serving stack',
    );
  });

  it('refuses a copy whose mazes are not each maze of generators x sizes x seeds once', () => {
    const missing = structuredClone(suite);
    missing.mazes.splice(5, 1);
    expect(refusal(missing)).toContain('1 mazes of generators x sizes x seeds are missing: perfect 11 seed 6');
    const twice = structuredClone(suite);
    twice.mazes[1] = { ...twice.mazes[0] };
    const message = refusal(twice);
    expect(message).toContain('mazes.1: perfect 11 seed 1 is listed twice (mazes.0)');
    expect(message).toContain('mazes.1.hash: perfect 11 seed 1 is the same maze as mazes.0');
  });
});

describe('suiteMazes: what a sweep takes from a suite', () => {
  it("gives the suite's mazes with their hashes and its config, as copies", () => {
    const got = suiteMazes(REF);
    expect(got).toEqual({
      generators: suite.generators,
      sizes: suite.sizes,
      seeds: suite.seeds,
      config: suite.config,
      mazes: suite.mazes.map(({ generator, size, seed, hash }) => ({ generator, size, seed, hash })),
    });
    got.config.max_moves = 1;
    got.mazes.pop();
    expect(suiteMazes(REF).config.max_moves).toBe(suite.config.max_moves);
    expect(suiteMazes(REF).mazes).toHaveLength(suite.mazes.length);
  });

  it.each([
    ['ariadne-mazes/v9', /^unknown maze suite "ariadne-mazes\/v9"; known suites: ariadne-mazes\/v1$/],
    ['ariadne-mazes', /^unknown maze suite "ariadne-mazes" \(a suite is named <name>\/v<version>\); known suites: /],
  ])('refuses %s, naming the suites there are', (ref, message) => {
    let error: unknown;
    try {
      suiteMazes(ref);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field: 'suite', value: ref });
    expect((error as Error).message).toMatch(message);
  });
});

describe('the reference scores', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase(10);
  });
  afterAll(async () => {
    await db.drop();
  });

  it('were made by the sweep the file records: this code writes the same text, under the suite config', () => {
    const made = suite.reference_made_with;
    expect(recordedSweepText(suite)).toBe(referenceSweepText(suite));
    expect(made).toMatchObject({
      sweep_name: 'ariadne-mazes-v1-reference',
      command: `npm run suite-reference -- ${FILE}`,
    });
    expect(made.ariadne_version).toMatch(/^\d+\.\d+\.\d+/);
    const sweep = loadSweep(recordedSweepText(suite));
    expect(sweep.spec).toMatchObject({
      sweep: made.sweep_name,
      agents: [{ agent: 'random' }, { agent: 'frontier' }],
      mazes: { generators: suite.generators, sizes: suite.sizes, seeds: suite.seeds },
      config: suite.config,
      settings: {},
      repeats: 1,
    });
    expect(sweep.runs).toHaveLength(2 * suite.mazes.length);
  });

  it("record the code that decides them: its files and their hash are this code's", () => {
    const made = suite.reference_made_with;
    const here = suiteCodeHash(ROOT);
    const again = `the code that decides the reference scores changed: run \`npm run suite-reference -- ${FILE}\``;
    expect(made.code_files, again).toEqual(here.files);
    expect(made.code_hash, again).toBe(here.hash);
    expect(made.commit).toMatch(/^[0-9a-f]{40}$/);
    // the generators, the game's rules, the baselines and the statistics are among them
    for (const f of [
      'core/maze/generators/index.ts',
      'core/engine/game.ts',
      'core/providers/random-agent.ts',
      'reports/sweep-statistics.ts',
    ])
      expect(here.files).toContain(f);
    expect(here.files.some((f) => /^migrations\/\d+_.*\.sql$/.test(f))).toBe(true);
  });

  it('a change to that code changes the hash', () => {
    const copy = tempDir('suite-code');
    for (const f of suiteCodeFiles(ROOT)) {
      mkdirSync(dirname(join(copy, f)), { recursive: true });
      writeFileSync(join(copy, f), readFileSync(join(ROOT, f)));
    }
    expect(suiteCodeHash(copy).hash).toBe(suiteCodeHash(ROOT).hash);
    writeFileSync(join(copy, 'core/engine/game.ts'), `${readFileSync(join(ROOT, 'core/engine/game.ts'), 'utf8')}\n`);
    expect(suiteCodeHash(copy).hash).not.toBe(suiteCodeHash(ROOT).hash);
  });

  it('come out the same when made again from scratch, as bin/make-suite-reference.ts makes them', async () => {
    const started = Date.now();
    const reference = await suiteReference(suite, db);
    console.info(`reference scores of ${REF} made in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(reference).toEqual(suite.reference);
    // what the numbers say: the frontier agent finds every goal, the random walk far fewer
    expect(reference.frontier.overall).toMatchObject({ n: 120, successes: 120 });
    expect(reference.random.overall.successes).toBeLessThan(60);
  }, 180_000);

  it('publish a noise floor that one group made again alone reproduces, each run seeded by its maze', async () => {
    const floor = suite.noise_floor;
    expect(floor).toMatchObject({ agent: 'random', repeats: 5, resamples: 2000 });
    expect(floor.groups).toHaveLength(suite.generators.length * suite.sizes.length);
    // the smallest group of the first generator, whose random walks end soonest
    const [generator, size] = [suite.generators[0], Math.min(...suite.sizes)];
    const mazes = suite.mazes.filter((m) => m.generator === generator && m.size === size);
    const runs = await suiteNoiseRuns(suite, db, mazes);
    const made = noiseFloor(
      mazes.map((m) => runs.get(m)!),
      floor.resamples,
      floor.seed,
    );
    const { repeats: _r, resamples: _n, seed: _s, ...figures } = made;
    expect({ generator, size, ...figures }).toEqual(
      floor.groups.find((g) => g.generator === generator && g.size === size),
    );
    // a set of runs moves: the floor is not zero where the random walk sometimes finds the goal
    expect(figures.success_rate).toBeGreaterThan(0);
    expect(figures.sd).toBeGreaterThan(0);
    expect(floor.overall.gap95).toBeGreaterThan(floor.overall.sd);
  }, 120_000);
});

describe('ariadne suite', () => {
  const user = tempDir('suites');
  const ariadne = (args: string[]) => ariadneInProcess(args, { INIT_CWD: user, ARIADNE_OUTPUT_DIR: undefined });

  it('list: the suite with its mazes, as a table and as JSON', async () => {
    const table = await ariadne(['suite', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ariadne-mazes\/v1 +\| +120 \| perfect, /m);
    const json = await ariadne(['suite', 'list', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ suite: REF, file: FILE, mazes: 120, generators: suite.generators, seeds: suite.seeds }),
    ]);
  });

  it("show --json: the file's numbers, every maze and the reference", async () => {
    const r = await ariadne(['suite', 'show', REF, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ suite: REF, file: FILE, ...suite });
  });

  it('show: the mazes by generator and size, and the reference scores as a table', async () => {
    const r = await ariadne(['suite', 'show', REF]);
    expect(r.code).toBe(0);
    const o = suite.reference.frontier.overall;
    const overall = `frontier | all                 |  all | ${o.n} |  100.0% |`;
    expect(r.stdout).toContain(overall);
    expect(r.stdout).toMatch(/^perfect +\| +31 \| +10 \| \d+-\d+, mean \d+\.\d/m);
    expect(r.stdout).toContain('max_moves=1000');
    const made = suite.reference_made_with;
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(
      `commit ${made.commit.slice(0, 12)}, code sha256 ${made.code_hash.slice(0, 12)}, sweep ${made.sweep_name}`,
    );
    const csv = await ariadne(['suite', 'show', REF, '--format', 'csv']);
    const lines = csv.stdout.trim().split('\n');
    expect(lines).toHaveLength(1 + 2 * (1 + suite.generators.length * suite.sizes.length));
    const random = suite.reference.random.overall;
    expect(lines[1]).toBe(
      `random,all,all,${random.n},${random.successes},${random.success_rate},${random.wilson95_low},` +
        `${random.wilson95_high},${random.mean_efficiency},${random.mean_actions}`,
    );
  });

  it('show --sweep: writes the sweep that made the reference scores', async () => {
    const r = await ariadne(['suite', 'show', REF, '--sweep', 'again.yaml', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ suite: REF, sweep: 'ariadne-mazes-v1-reference' });
    expect(readFileSync(join(user, 'again.yaml'), 'utf8')).toBe(recordedSweepText(suite));
  });

  it('verify: exit 0 when every maze is identical', async () => {
    const r = await ariadne(['suite', 'verify', REF]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'ariadne-mazes/v1: all 120 mazes generated here are identical to the suite' +
        "'s (content hash, shortest path, shortest path to sight)\n",
    );
  });

  it('verify: exit 1 naming each maze of a copy that differs', async () => {
    const copy = structuredClone(suite);
    const i = copy.mazes.findIndex((m) => m.generator === 'multiple_paths' && m.size === 11 && m.seed === 8);
    copy.mazes[i].hash = 'f'.repeat(64);
    writeFileSync(join(user, 'tampered.json'), JSON.stringify(copy));
    const r = await ariadne(['suite', 'verify', 'tampered.json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('ariadne-mazes/v1: 1 of 120 mazes generated here differ');
    expect(r.stdout).toContain(`multiple_paths 11 seed 8: hash is ${suite.mazes[i].hash} here, the suite has fff`);
    const json = await ariadne(['suite', 'verify', 'tampered.json', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      mazes: 120,
      identical: 119,
      mismatches: [{ maze: 'multiple_paths 11 seed 8', field: 'hash' }],
    });
  });

  it('an unknown suite: exit 2, naming the suites there are', async () => {
    const r = await ariadne(['suite', 'verify', 'ariadne-mazes/v2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ariadne: unknown maze suite "ariadne-mazes/v2"; known suites: ariadne-mazes/v1');
    expect(r.stdout).toBe('');
  });
});
