// ariadne plan: the mazes x repeats a comparison needs (reports/power-plan.ts) with its maze model fitted to a suite's
// noise-floor runs or a pilot sweep, turned around to the smallest detectable difference, and the sweep file it
// writes (adaptive with stop_when), whose spend it estimates; bad input refused naming the option.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSuite } from '../core/maze/suites.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { fitPilot } from '../reports/pilot-fit.ts';
import { mazesFor } from '../reports/power-plan.ts';
import { cli } from './support/cli.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});
const { ariadne } = cli(() => db);
const dir = tempDir('plan');

interface Plan {
  model: { base: number; mazeSd: number; source: string };
  options?: Array<{ repeats: number; mazes: number; runs: number; power: number }>;
  detectable?: { mazes: number; difference: number | null };
  written?: { file: string; sweep: string; estimate: { tokens: { low: number; high: number } } };
}
const planOf = async (args: string[]) => {
  const r = await ariadne(['plan', ...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Plan;
};

describe('ariadne plan', () => {
  it("plans on a suite's reference runs: its mazes' spread fitted to the noise-floor runs", async () => {
    const plan = await planOf(['--difference', '0.10', '--suite', 'ariadne-mazes/v1', '--base-rate', '0.5']);
    const floor = findSuite('ariadne-mazes/v1').suite.noise_floor;
    const fit = fitPilot({ baseline: floor.successes.map((s) => ({ successes: s, runs: floor.repeats })) });
    expect(plan.model.mazeSd).toBeCloseTo(fit.mazeSd!, 6);
    expect(plan.model.base).toBeCloseTo(0, 9);
    const expected = mazesFor({ difference: 0.1, repeats: 1, base: 0, mazeSd: fit.mazeSd! });
    expect(plan.options!.find((o) => o.repeats === 1)).toMatchObject({ mazes: expected.mazes, runs: expected.runs });
    // more repeats, fewer mazes, never fewer runs
    const [one, five] = [plan.options![0], plan.options!.at(-1)!];
    expect(five.mazes).toBeLessThan(one.mazes);
    expect(five.runs).toBeGreaterThanOrEqual(one.runs);
    const text = (await ariadne(['plan', '--difference', '0.10', '--suite', 'ariadne-mazes/v1', '--base-rate', '0.5']))
      .stdout;
    expect(text).toMatch(/plan: detect a difference of 10\.0 points in success \(a - b\) with 80\.0% power/);
    expect(text).toMatch(new RegExp(`recommended: ${expected.mazes} mazes x 1 repeat\\(s\\) = ${expected.runs} runs`));
    expect(text).toContain('fitted to its noise-floor runs (random, 5 a maze); --base-rate as given');
  });

  it('turned around: the mazes it plans detect the difference, fewer detect only a larger one', async () => {
    const args = ['--suite', 'ariadne-mazes/v1', '--base-rate', '0.5'];
    const planned = (await planOf(['--difference', '0.15', ...args])).options![0].mazes;
    const at = await planOf(['--mazes', String(planned), ...args]);
    expect(at.detectable!.difference!).toBeLessThanOrEqual(0.15);
    const fewer = await planOf(['--mazes', String(Math.floor(planned / 2)), ...args]);
    expect(fewer.detectable!.difference!).toBeGreaterThan(0.15);
    const budget = await planOf(['--budget-runs', String(2 * planned), ...args]);
    expect(budget.detectable).toEqual(at.detectable);
  });

  it('fits a pilot sweep, and writes the adaptive sweep it recommends with what it would spend', async () => {
    const pilot = join(dir, 'pilot.yaml');
    const seeds = Array.from({ length: 12 }, (_, i) => i + 1).join(', ');
    writeFileSync(
      pilot,
      `sweep: plan-pilot\nagents: [{ agent: random }]\nmazes: { generators: [perfect], sizes: [9], ` +
        `seeds: [${seeds}] }\nconfig: { max_moves: 400 }\nrepeats: 3\n`,
    );
    expect((await ariadne(['sweep', pilot, '--json'])).code).toBe(0);
    const file = join(dir, 'planned.yaml');
    const plan = await planOf([
      '--difference',
      '0.2',
      '--pilot',
      'plan-pilot',
      '--compare',
      'frontier',
      'random',
      '--generator',
      'perfect',
      '--size',
      '9',
      '--write',
      file,
      '--adaptive',
    ]);
    expect(plan.model.source).toMatch(/fitted to pilot sweep plan-pilot \(random, 12 mazes/);
    const mazes = plan.options![0].mazes;
    const written = loadSweep(readFileSync(file, 'utf8'), file);
    expect(written.spec).toMatchObject({
      sweep: 'planned',
      repeats: 1,
      stop_when: { compare: ['frontier', 'random'] },
      mazes: { generators: ['perfect'], sizes: [9] },
    });
    expect(written.spec.mazes.seeds).toHaveLength(mazes);
    expect(plan.written!.estimate.tokens).toEqual({ low: 0, typical: expect.anything(), high: 0 });
  });

  it('turned around on dollars: the mazes a budget buys at the high end of the spend estimate', async () => {
    const args = ['--suite', 'ariadne-mazes/v1', '--base-rate', '0.5', '--generator', 'perfect', '--size', '21'];
    const haiku = ['--compare', 'bedrock/anthropic.claude-haiku-5-5', 'random'];
    const small = await planOf(['--budget-usd', '500', ...haiku, ...args]);
    const large = await planOf(['--budget-usd', '2000', ...haiku, ...args]);
    // four times the money, about four times the mazes, and a smaller detectable difference
    expect(large.detectable!.mazes).toBeGreaterThanOrEqual(4 * small.detectable!.mazes - 3);
    expect(large.detectable!.difference!).toBeLessThan(small.detectable!.difference!);
    const baselines = await ariadne(['plan', '--budget-usd', '100', '--compare', 'frontier', 'random']);
    expect(baselines.code).toBe(2);
    expect(baselines.stderr).toMatch(/have no price to spend a budget on .*plan with --budget-runs/);
    const tiny = await ariadne(['plan', '--budget-usd', '1', ...haiku, ...args]);
    expect(tiny.code).toBe(2);
    expect(tiny.stderr).toMatch(/\$1 buys 0 maze\(s\) of 1 repeat\(s\) at \$[\d.]+ a maze and repeat/);
  });

  it('refuses what it cannot plan, naming the option and the fix', async () => {
    const over = await ariadne(['plan', '--difference', '1.5']);
    expect(over.code).toBe(2);
    expect(over.stderr).toMatch(/--difference must be a number between 0 and 1, got "1\.5"/);
    const nothing = await ariadne(['plan']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/give --difference D, or --mazes M or --budget-runs N/);
    const noAgents = await ariadne(['plan', '--difference', '0.2', '--write', join(dir, 'x.yaml')]);
    expect(noAgents.code).toBe(2);
    expect(noAgents.stderr).toMatch(/--write needs --compare A B/);
  });
});
