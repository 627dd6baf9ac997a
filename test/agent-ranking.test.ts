// All pairs of agents with Holm's adjustment, and agents ranked in tie groups (reports/agent-ranking.ts): Holm on a
// hand-checked example, tie groups on constructed data, the family-wise error by simulation (a fast version of
// npm run bench -- ranking), and `ariadne compare SWEEP --all` on a sweep of baseline agents.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holm } from '../reports/maze-inference.ts';
import { outcomeCounts, rankAgents } from '../reports/agent-ranking.ts';
import { calibrateRanking } from '../reports/ranking-calibration.ts';
import type { AllPairsComparison } from '../reports/compare-all.ts';
import { InvalidInputError } from '../core/errors.ts';
import { loadReport } from '../reports/report-data.ts';
import { reportHtml } from '../reports/report-page.ts';
import { cli } from './support/cli.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';

describe('Holm over the pairs', () => {
  it('adjusts a hand-checked example: 0.01, 0.04, 0.03 -> 0.03, 0.06, 0.06', () => {
    // sorted 0.01 x 3 = 0.03; 0.03 x 2 = 0.06; 0.04 x 1 = 0.04, raised to the running maximum 0.06
    const adjusted = holm([0.01, 0.04, 0.03]);
    [0.03, 0.06, 0.06].forEach((p, i) => expect(adjusted[i]).toBeCloseTo(p, 12));
  });
});

/** Outcomes by maze and repeat for agents [best, b, c]: best solves every maze, b and c the same half of them. */
function constructed(mazes: number): boolean[][][] {
  return Array.from({ length: mazes }, (_, m) => [[true, m % 2 === 0, m % 2 === 0]]);
}

describe('tie groups', () => {
  it('one agent clearly best, two inseparable: ranks 1, 2, 2', () => {
    const { agents, pairs } = outcomeCounts(['best', 'b', 'c'], constructed(20));
    const r = rankAgents(agents, pairs);
    expect(r.tests).toBe(3);
    expect(r.ranking.map((a) => [a.agent, a.rank, a.tieGroup])).toEqual([
      ['best', 1, ['best']],
      ['b', 2, ['b', 'c']],
      ['c', 2, ['b', 'c']],
    ]);
    expect(r.ranking.map((a) => a.successRate)).toEqual([1, 0.5, 0.5]);
    expect(r.ranking.find((a) => a.agent === 'c')!.betterAgents).toEqual(['best']);
    // best vs b: 10 mazes differ, all one way: p = 2 / 2^10, Holm x 3 (the smallest of three p)
    const bestB = r.pairs.find((p) => p.a === 'best' && p.b === 'b')!;
    expect(bestB).toMatchObject({ mazes: 20, differing: 10, diff: 0.5, better: 'best' });
    expect(bestB.p).toBeCloseTo(2 / 2 ** 10, 12);
    expect(bestB.holmP).toBeCloseTo((3 * 2) / 2 ** 10, 12);
    expect(r.pairs.find((p) => p.a === 'b')).toMatchObject({ p: 1, holmP: 1, better: null, differing: 0 });
  });

  it('too few mazes to separate anyone: one tie group, and a note saying why', () => {
    const { agents, pairs } = outcomeCounts(['best', 'b', 'c'], constructed(10));
    const r = rankAgents(agents, pairs);
    // 5 mazes differ: p = 1/16 raw, above 5% before any adjustment
    expect(r.ranking.map((a) => a.rank)).toEqual([1, 1, 1]);
    expect(r.ranking[0].tieGroup).toEqual(['best', 'b', 'c']);
    expect(r.notes.join(' ')).toMatch(/3 of 3 pairs differ on fewer than 7 mazes/);
  });

  it('orders a tie group by success rate; the estimate decides who is better, whichever side it is on', () => {
    // c solves every maze; a and b the same half: c is a pair's b side against a and b
    const outcomes = Array.from({ length: 20 }, (_, m) => [[m % 2 === 0, m % 2 === 0, true]]);
    const { agents, pairs } = outcomeCounts(['a', 'b', 'c'], outcomes);
    const r = rankAgents(agents, pairs);
    expect(r.ranking.map((x) => [x.agent, x.rank])).toEqual([
      ['c', 1],
      ['a', 2],
      ['b', 2],
    ]);
    expect(r.pairs.filter((p) => p.better !== null).map((p) => p.better)).toEqual(['c', 'c']);
  });

  it('refuses bad input naming the field, the value and the fix', () => {
    const { agents, pairs } = outcomeCounts(['a', 'b'], constructed(4));
    const refused = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err;
      }
      return undefined;
    };
    const alpha = refused(() => rankAgents(agents, pairs, 5));
    expect(alpha).toBeInstanceOf(InvalidInputError);
    expect(alpha).toMatchObject({ field: 'alpha', value: 5, message: expect.stringMatching(/between 0 and 1/) });
    const unknown = refused(() => rankAgents(agents, [{ ...pairs[0], b: 'z' }]));
    expect(unknown).toMatchObject({ field: 'pairs', value: 'z' });
    expect(refused(() => rankAgents(agents, [pairs[0], pairs[0]]))).toMatchObject({ field: 'pairs' });
    expect(refused(() => rankAgents([agents[0], agents[0]], []))).toMatchObject({ field: 'agents', value: 'a' });
  });
});

describe('family-wise error by simulation (a fast version of npm run bench -- ranking)', () => {
  const families = 300;
  // Monte-Carlo margin: a true FWER of exactly 5% is measured above 5% + 2.33 standard errors of a share of 300
  // families (7.9%) one time in a hundred; the simulation is seeded, so the figure is one fixed draw
  const margin = 2.33 * Math.sqrt((0.05 * 0.95) / families);

  it('5 identical agents, 40 mazes, strong maze effect: Holm holds 5%; unadjusted tests do not', () => {
    const f = calibrateRanking({ agents: 5, mazes: 40, repeats: 1, mazeSd: 2, base: 0, effect: 0 }, families, 11);
    expect(f.holmFwer).toBeLessThanOrEqual(0.05 + margin);
    // ten pairs at 5% each: far above 5% (0.156 at 1,000 families)
    expect(f.rawFwer).toBeGreaterThan(0.05 + margin);
    expect(f.holmFwer).toBeLessThan(f.rawFwer);
  });

  it('one agent clearly better (2 logits): alone at rank 1 most of the time', () => {
    const f = calibrateRanking({ agents: 3, mazes: 40, repeats: 3, mazeSd: 2, base: 0, effect: 2 }, 100, 12);
    expect(f.bestAlone).toBeGreaterThan(0.8);
  });
});

/** The fields of a two-agent comparison's table (compare SWEEP A B --json) that --all must agree with. */
interface TwoAgents {
  settings: unknown;
  pairs: number;
  mazes: number;
  test: { p: number; differing: number };
  successDiff: { diff: number; low95: number; high95: number };
}

describe('ariadne compare SWEEP --all', () => {
  let db: TestDatabase;
  const { ariadne } = cli(() => db);
  const dir = tempDir('agent-ranking');
  const SWEEP = 'rank-sweep';
  beforeAll(async () => {
    db = await testDatabase();
    const file = join(dir, 'sweep.yaml');
    writeFileSync(
      file,
      [
        `sweep: ${SWEEP}`,
        'agents: [{ agent: frontier }, { agent: random }, { agent: random, label: random-b }]',
        'mazes: { generators: [medium], sizes: [9], seeds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] }',
        'settings: { vision_range: [1, 2] }',
        'config: { max_moves: 40 }',
        'repeats: 2',
        'max_concurrency: 4',
      ].join('\n'),
    );
    const r = await ariadne(['sweep', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
  }, 300_000);
  afterAll(async () => {
    await db?.drop();
  });

  it('prints every pair and the ranking per setting: frontier alone first, the two random walkers tied', async () => {
    const r = await ariadne(['compare', SWEEP, '--all']);
    expect(r.code, r.stderr).toBe(0);
    for (const setting of ['vision_range=1', 'vision_range=2'])
      expect(r.stdout).toContain(`\n${setting}: 3 pairs tested, Holm's adjustment over them\n`);
    expect(r.stdout.match(/^ +1 \| frontier +\|.*\| frontier$/gm)).toHaveLength(2);
    expect(r.stdout.match(/^ +2 \| random +\|.*\| random, random-b$/gm)).toHaveLength(2);
    expect(r.stdout.match(/^ +2 \| random-b +\|.*\| random, random-b$/gm)).toHaveLength(2);
    expect(r.stdout.match(/^ +frontier \| random +\| +12 \|/gm)).toHaveLength(2);
    for (const line of r.stdout.trimEnd().split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  it('--json: each pair as compare SWEEP A B tests it, Holm over the three, ranks from them', async () => {
    const r = await ariadne(['compare', SWEEP, '--all', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const all = JSON.parse(r.stdout) as AllPairsComparison;
    expect(all).toMatchObject({ sweep: SWEEP, agents: ['frontier', 'random', 'random-b'], alpha: 0.05 });
    expect(all.groups.map((g) => g.settings)).toEqual([{ vision_range: 1 }, { vision_range: 2 }]);
    for (const g of all.groups) {
      expect(g.pairs.map((p) => [p.a, p.b])).toEqual([
        ['frontier', 'random'],
        ['frontier', 'random-b'],
        ['random', 'random-b'],
      ]);
      expect(holm(g.pairs.map((p) => p.p))).toEqual(g.pairs.map((p) => p.holmP));
      expect(g.ranking.map((a) => [a.agent, a.rank])).toEqual([
        ['frontier', 1],
        ['random', 2],
        ['random-b', 2],
      ]);
    }
    // every pair as the two-agent command tests it, group by group
    for (const [a, b] of all.groups[0].pairs.map((p) => [p.a, p.b])) {
      const one = JSON.parse((await ariadne(['compare', SWEEP, a, b, '--json'])).stdout) as { groups: TwoAgents[] };
      for (const g of all.groups) {
        const same = one.groups.find((t) => JSON.stringify(t.settings) === JSON.stringify(g.settings))!;
        const mine = g.pairs.find((p) => p.a === a && p.b === b)!;
        expect(mine).toMatchObject({ pairs: same.pairs, mazes: same.mazes, p: same.test.p });
        expect(mine.differing).toBe(same.test.differing);
        const d = same.successDiff;
        expect([mine.diff, mine.low95, mine.high95]).toEqual([d.diff, d.low95, d.high95]);
      }
    }
  });

  it("--all --agent --factor: every pair of a setting's values for one agent, as compare pairs two", async () => {
    const r = await ariadne(['compare', SWEEP, '--all', '--agent', 'random', '--factor', 'vision_range', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const all = JSON.parse(r.stdout) as AllPairsComparison;
    expect(all.agents).toEqual(['vision_range=1', 'vision_range=2']);
    expect(all.groups).toHaveLength(1);
    const [pair] = all.groups[0].pairs;
    const two = JSON.parse(
      (await ariadne(['compare', SWEEP, '1', '2', '--agent', 'random', '--factor', 'vision_range', '--json'])).stdout,
    ) as { groups: TwoAgents[] };
    expect(two.groups).toHaveLength(1);
    expect(pair).toMatchObject({ pairs: two.groups[0].pairs, mazes: two.groups[0].mazes, p: two.groups[0].test.p });
    // one pair: Holm changes nothing
    expect(pair.holmP).toBe(pair.p);
  });

  it("the sweep's report ranks the agents in tie groups too, per setting", async () => {
    const html = reportHtml(await loadReport(db.pool, SWEEP, {}), () => null);
    const table = /<table id="ranking">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    // per vision_range: frontier alone at rank 1, the two random walkers tied at rank 2
    expect(table.match(/<td class="n">1<\/td><td>frontier<\/td>/g)).toHaveLength(2);
    expect(table.match(/<td class="n">2<\/td><td>random(-b)?<\/td>.*?<td>random, random-b<\/td>/g)).toHaveLength(4);
  });

  it('refuses --all beside two agents or --agent, and two agents missing without --all', async () => {
    const refused = async (args: string[], message: RegExp) => {
      const r = await ariadne(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
    };
    await refused(['compare', SWEEP, 'random', 'frontier', '--all'], /--all compares every pair.*give the sweep alone/);
    await refused(['compare', SWEEP, '--all', '--agent', 'random'], /needs both --agent LABEL and --factor SETTING/);
    await refused(['compare', SWEEP, '--all', '--agent', 'random', '--factor', 'memory'], /varies no setting memory/);
    await refused(['compare', SWEEP, 'random'], /name two agents of the sweep.*compare SWEEP --all/);
  });
});
