// A sweep over a versioned maze suite (suite: ariadne-mazes/v1): its mazes and its fixed config come from the suite,
// the file may add to the config but not change what the suite fixes, and mazes and a suite are not both given.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSweep, SweepDefinitionError } from '../core/sweeps/sweep-spec.ts';
import { generateMaze } from '../core/maze/generators/index.ts';
import { registerSweep } from '../core/sweeps/sweep-registry.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { cli } from './support/cli.ts';
import { pathToGoal, scriptedSeat } from './support/human-seat.ts';
import { playLocally, playRequest } from '../state-machine/local-play.ts';

const SUITE = JSON.parse(readFileSync(new URL('../suites/ariadne-mazes-v1.json', import.meta.url), 'utf8')) as {
  generators: string[];
  sizes: number[];
  seeds: number[];
  config: Record<string, unknown>;
  mazes: Array<{ generator: string; size: number; seed: number; hash: string }>;
};

const sweep = (body: string) =>
  loadSweep(`sweep: on-the-suite\nagents:\n  - { agent: frontier }\n  - { agent: random }\n${body}`, 'test');

const problems = (body: string): string => {
  try {
    sweep(body);
  } catch (err) {
    expect(err).toBeInstanceOf(SweepDefinitionError);
    return String((err as Error).message);
  }
  throw new Error('not refused');
};

describe('a sweep over a maze suite', () => {
  it("runs the suite's mazes under its config, with what the file adds", () => {
    const s = sweep('suite: ariadne-mazes/v1\nconfig: { max_recall_actions: 20 }\n');
    expect(s.spec.suite).toBe('ariadne-mazes/v1');
    expect(s.spec.mazes).toEqual({ generators: SUITE.generators, sizes: SUITE.sizes, seeds: SUITE.seeds });
    expect(s.cells).toHaveLength(2 * SUITE.mazes.length);
    for (const c of s.cells) expect(c.config).toMatchObject({ ...SUITE.config, max_recall_actions: 20 });
    // each cell's maze is one of the suite's, byte for byte (its content hash)
    const hashes = new Map(SUITE.mazes.map((m) => [`${m.generator} ${m.size} ${m.seed}`, m.hash]));
    for (const c of s.cells.slice(0, 12))
      expect(generateMaze({ generator: c.generator, width: c.size, height: c.size, seed: c.seed }).hash).toBe(
        hashes.get(`${c.generator} ${c.size} ${c.seed}`),
      );
  });

  it('leaves the wall clock to the lab: its max_duration_minutes is infrastructure, not a rule of the suite', () => {
    const s = sweep('suite: ariadne-mazes/v1\nconfig: { max_duration_minutes: 600 }\n');
    for (const c of s.cells) expect(c.config).toMatchObject({ ...SUITE.config, max_duration_minutes: 600 });
  });

  it('refuses a change to what the suite fixes, where it is made, and names the fix', () => {
    const fixed = Object.entries(SUITE.config).find(([, v]) => typeof v === 'number')!;
    expect(problems(`suite: ariadne-mazes/v1\nconfig: { ${fixed[0]}: ${Number(fixed[1]) + 1} }\n`)).toMatch(
      new RegExp(`config\\.${fixed[0]} .*suite ariadne-mazes/v1 fixes ${fixed[0]} ${String(fixed[1])}`),
    );
    expect(problems(`suite: ariadne-mazes/v1\nsettings: { vision_range: [3, 5] }\n`)).toMatch(
      /settings\.vision_range .*suite ariadne-mazes\/v1 fixes vision_range/,
    );
  });

  it('refuses mazes beside a suite, neither of them, and an unknown suite naming the known ones', () => {
    expect(problems('suite: ariadne-mazes/v1\nmazes: { generators: [medium], sizes: [11], seeds: [1] }\n')).toMatch(
      /give mazes or suite, not both/,
    );
    expect(problems('config: { max_moves: 50 }\n')).toMatch(/mazes .*required: the mazes .*or a suite/);
    expect(problems('suite: ariadne-mazes/v9\n')).toMatch(/unknown maze suite "ariadne-mazes\/v9".*ariadne-mazes\/v1/);
  });
});

describe('ariadne stats of a sweep on a suite', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it("prints the suite's reference scores beside the sweep's, and carries them in --json", async () => {
    await registerSweep(db.pool, sweep('suite: ariadne-mazes/v1\n'));
    const { ariadne } = cli(() => db);
    const text = await ariadne(['stats', 'on-the-suite']);
    expect(text.code, text.stderr).toBe(0);
    const file = JSON.parse(readFileSync(new URL('../suites/ariadne-mazes-v1.json', import.meta.url), 'utf8'));
    const reference = file.reference as Record<string, { overall: { n: number; success_rate: number } }>;
    const floor = file.noise_floor as { repeats: number; overall: { sd: number; gap95: number } };
    const frontier = reference.frontier.overall;
    expect(text.stdout.replace(/\s+/g, ' ')).toMatch(
      new RegExp(
        `reference of suite ariadne-mazes/v1 \\(its baselines, the same mazes and config\\): random .*; frontier ` +
          `${(frontier.success_rate * 100).toFixed(1)}% \\[.*\\] n=${frontier.n}`,
      ),
    );
    // the noise floor beside it: how far a set of runs of one agent moves on these mazes
    expect(text.stdout.replace(/\s+/g, ' ')).toContain(
      `noise floor of suite ariadne-mazes/v1: sets of runs of the random baseline on these mazes ` +
        `(${floor.repeats} runs a maze, one drawn per maze)`,
    );
    expect(text.stdout.replace(/\s+/g, ' ')).toContain(
      `sd ${(floor.overall.sd * 100).toFixed(1)} points` + ` (95% of sets within`,
    );
    expect(text.stdout.replace(/\s+/g, ' ')).toContain(
      `two sets differed by at most ${(floor.overall.gap95 * 100).toFixed(1)} points 95% of the time`,
    );
    const json = await ariadne(['stats', 'on-the-suite', '--json']);
    expect(JSON.parse(json.stdout).suite_reference).toEqual({
      suite: 'ariadne-mazes/v1',
      agents: { random: reference.random.overall, frontier },
      noise_floor: file.noise_floor,
    });
    // no person has played the suite here: no human reference
    expect(text.stdout).not.toMatch(/human reference/);
    expect(JSON.parse(json.stdout).suite_human_reference).toBeUndefined();
  });

  it("prints the human reference beside the baselines' once a person has played the suite's mazes", async () => {
    const { ariadne } = cli(() => db);
    const m = SUITE.mazes[0];
    const maze = generateMaze({ generator: m.generator, width: m.size, height: m.size, seed: m.seed });
    await playLocally(
      playRequest({ maze: { suite: 'ariadne-mazes/v1', index: 0 }, player: 'ada' }),
      scriptedSeat(pathToGoal(maze)),
      { db },
    );
    await playLocally(
      playRequest({ maze: { suite: 'ariadne-mazes/v1', index: 1 }, player: 'ada' }),
      scriptedSeat(['quit']),
      { db },
    );
    const text = await ariadne(['stats', 'on-the-suite']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.replace(/\s+/g, ' ')).toMatch(
      new RegExp(
        "human reference of suite ariadne-mazes/v1 \\(agent human's games on its mazes in this database, each " +
          'maze once per player\\): ada \\(rays\\) 50\\.0% \\[.*\\] n=2, efficiency \\d\\.\\d{3}',
      ),
    );
    const json = JSON.parse((await ariadne(['stats', 'on-the-suite', '--json'])).stdout);
    expect(json.suite_human_reference).toHaveLength(1);
    expect(json.suite_human_reference[0]).toMatchObject({ source: 'database', suite: 'ariadne-mazes/v1' });
    // one game a maze: Wilson's interval over the 2 games
    expect(json.suite_human_reference[0].rows[0]).toMatchObject({
      player: 'ada',
      observation: 'rays',
      generator: 'all',
      n: 2,
      successes: 1,
      mazes: 2,
      interval: 'wilson',
      low95: 0.094531,
      high95: 0.905469,
    });
  });
});
