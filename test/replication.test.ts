// The published protocols as data (examples/protocols/, reports/protocols.ts) and the verdict on each published
// number (reports/replication.ts), on hand-made cases: their value inside, outside and on the ends of our interval,
// and with their n, Newcombe's difference of proportions, which counts their sampling error beside ours.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findProtocol,
  loadProtocolFile,
  ProtocolDefinitionError,
  protocolNames,
  PROTOCOLS_DIR,
  type PublishedNumber,
} from '../reports/protocols.ts';
import {
  compareNumbers,
  EQUIVALENCE_MARGIN,
  newcombeDifference,
  replicationVerdict,
  specDifferences,
  type OurRate,
} from '../reports/replication.ts';
import { mazeRate } from '../reports/maze-inference.ts';
import { wilson, type GroupStatistics } from '../reports/sweep-statistics.ts';
import { ariadneInProcess } from './support/cli-in-process.ts';

const ours = (rate: number, low: number, high: number, mazes = 20): OurRate => ({ rate, low, high, mazes });

describe('the verdict without their n: no interval for theirs, so no test', () => {
  it('inside our interval or outside it: inconclusive, saying which and why', () => {
    const inside = replicationVerdict({ value: 0.5 }, ours(0.55, 0.4, 0.6));
    expect(inside).toMatchObject({ verdict: 'inconclusive', test: 'no n of theirs', inside: true, difference: null });
    expect(inside.reason).toMatch(/no interval for theirs can be computed.*inside our maze-level 95% interval/);
    // MazeEval's "perfect navigation": 100% outside ours is no difference shown, their sampling error unknown
    const outside = replicationVerdict({ value: 1 }, ours(0.9, 0.7, 0.98));
    expect(outside).toMatchObject({ verdict: 'inconclusive', inside: false, ruledOutBeyond: null });
    expect(outside.reason).toMatch(/outside our maze-level/);
  });

  it('no interval of ours (fewer than 2 mazes, or none): no verdict, and why', () => {
    const one = replicationVerdict({ value: 0.5 }, { rate: 1, low: null, high: null, mazes: 1 });
    expect(one).toMatchObject({ verdict: 'no verdict', test: 'none', inside: null });
    expect(one.reason).toMatch(/too few mazes.*\(1; it needs 2\)/);
    const none = replicationVerdict({ value: 0.5, n: 100 }, { rate: null, low: null, high: null, mazes: 0 });
    expect(none).toMatchObject({ verdict: 'no verdict' });
    expect(none.reason).toMatch(/no finished run/);
  });
});

describe('the verdict with their n: the interval of ours - theirs against 0 and the equivalence margin', () => {
  it('their 80/100 against our 50% [30%, 70%]: the difference excludes 0, differs', () => {
    const v = replicationVerdict({ value: 0.8, successes: 80, n: 100 }, ours(0.5, 0.3, 0.7));
    expect(v).toMatchObject({ verdict: 'differs', test: 'difference of proportions', inside: false });
    // Wilson's 95% interval of 80/100 is [71.1%, 86.7%]; the difference's upper end -0.3 + sqrt(0.2^2 + 0.0888^2)
    expect(v.theirs!.low).toBeCloseTo(0.7112, 4);
    expect(v.theirs!.high).toBeCloseTo(0.8666, 4);
    expect(v.difference!.estimate).toBeCloseTo(-0.3, 12);
    expect(v.difference!.high).toBeCloseTo(-0.3 + Math.hypot(0.2, 0.8 - 0.7112), 3);
    expect(v.reason).toMatch(/ours - theirs = -30\.0 points.*80\/100.*excludes 0$/);
  });

  it('the same rates agree or not by how precise both are: a difference that holds 0 is not agreement', () => {
    // 51% against 50%: over 1000 of theirs and a narrow interval of ours, within +-10 points
    const precise = replicationVerdict({ value: 0.5, successes: 500, n: 1000 }, ours(0.51, 0.47, 0.55, 400));
    expect(precise.verdict).toBe('consistent');
    expect(precise.difference!.low).toBeGreaterThan(-EQUIVALENCE_MARGIN);
    expect(precise.difference!.high).toBeLessThan(EQUIVALENCE_MARGIN);
    expect(precise.reason).toMatch(/within \+-10\.0 points: differences beyond 6\.\d points are ruled out/);
    // the same rates over 20 of theirs and 10 mazes of ours: the interval holds 0 but reaches far past the margin
    const few = replicationVerdict({ value: 0.5, successes: 10, n: 20 }, ours(0.51, 0.2, 0.8, 10));
    expect(few.difference!.low).toBeLessThan(0);
    expect(few.difference!.high).toBeGreaterThan(0);
    expect(few.verdict).toBe('inconclusive');
    expect(few.ruledOutBeyond).toBeGreaterThan(0.3);
    expect(few.reason).toContain(
      `holds 0 but reaches ${(few.ruledOutBeyond! * 100).toFixed(1)} points, past the +-10.0`,
    );
  });

  it('the margin decides consistent from inconclusive; the bound is the farther end of the interval', () => {
    const at = (margin: number) =>
      replicationVerdict({ value: 0.5, successes: 500, n: 1000 }, ours(0.51, 0.47, 0.55), margin);
    const bound = at(0.1).ruledOutBeyond!;
    expect(bound).toBe(Math.max(-at(0.1).difference!.low, at(0.1).difference!.high));
    expect(at(bound).verdict).toBe('consistent');
    expect(at(bound - 0.001).verdict).toBe('inconclusive');
  });

  it('a difference shown but smaller than the margin: differs, saying it is below the margin', () => {
    const v = replicationVerdict({ value: 0.5, successes: 5000, n: 10000 }, ours(0.53, 0.52, 0.54));
    expect(v.difference!.low).toBeGreaterThan(0);
    expect(v.verdict).toBe('differs');
    expect(v.reason).toMatch(/excludes 0, though it lies within \+-10\.0 points/);
  });

  it('their 14/20, outside our interval, is not a difference: their own sampling error is counted', () => {
    const v = replicationVerdict({ value: 0.7, n: 20 }, ours(0.5, 0.4, 0.6));
    expect(v.inside).toBe(false);
    expect(v.verdict).toBe('inconclusive');
    // the same value over 100 runs is
    expect(replicationVerdict({ value: 0.7, n: 100 }, ours(0.5, 0.4, 0.6)).verdict).toBe('differs');
  });

  it('an end of the difference at exactly 0 holds 0 (both ends belong to it); just past it: differs', () => {
    // their 0/10 (Wilson low 0) against ours 0% [0%, 0%]: the upper end is 0 - 0 + sqrt(0^2 + 0^2) = 0
    const edge = replicationVerdict({ value: 0, n: 10 }, ours(0, 0, 0));
    expect(edge.difference!.high).toBe(0);
    expect(edge.verdict).toBe('inconclusive');
    // their 1/10: the upper end is -(their Wilson low) < 0
    expect(replicationVerdict({ value: 0.1, n: 10 }, ours(0, 0, 0)).verdict).toBe('differs');
  });

  it('an n not from the source is used, and the reason says where it came from', () => {
    const v = replicationVerdict({ value: 0.34, n: 50, nSource: 'their configuration' }, ours(0.3, 0.2, 0.4));
    expect(v.test).toBe('difference of proportions');
    expect(v.reason).toMatch(/17\/50.*their n is not the source's: their configuration$/);
  });

  it("Newcombe's square-and-add, on dyadic numbers (exact): each side adds the two rates' own half-widths", () => {
    expect(newcombeDifference(0.125, { low: 0, high: 0.5 }, 0.75, { low: 0.25, high: 0.875 })).toEqual({
      estimate: -0.625,
      low: -0.625 - Math.sqrt(0.125 ** 2 + 0.125 ** 2),
      high: 0,
    });
  });

  it("Newcombe's (1998) published example, method 10: 56/70 - 48/80 is 0.2 with 95% interval [0.0524, 0.3339]", () => {
    const [a, b] = [wilson(56, 70), wilson(48, 80)] as Array<{ low: number; high: number }>;
    const d = newcombeDifference(56 / 70, a, 48 / 80, b);
    expect(d.estimate).toBeCloseTo(0.2, 12);
    expect(d.low).toBeCloseTo(0.0524, 4);
    expect(d.high).toBeCloseTo(0.3339, 4);
  });
});

/** A group of our statistics with only what the comparison reads. */
const group = (factors: Record<string, unknown>, k: number, n: number, mazes = n): GroupStatistics =>
  ({
    factors,
    independent: n,
    independentSuccesses: k,
    mazes,
    simulatedRuns: 0,
    success: { rate: k / n, maze: { low: Math.max(0, k / n - 0.2), high: Math.min(1, k / n + 0.2), mazes } },
  }) as unknown as GroupStatistics;

describe('compareNumbers: each published number beside the group its selector names', () => {
  const published: PublishedNumber[] = [
    {
      id: 'grid',
      claim: 'x',
      model: 'm',
      value: 0.34,
      n: 50,
      source: 's',
      where: 'w',
      ours: { label: 'gemini', observation: 'full_map' },
      differs: [],
    },
    { id: 'o3', claim: 'y', model: 'o3', value: 1, source: 's', where: 'w', ours: { label: 'o3' }, differs: [] },
  ];

  it("asks for the groups by exactly the selector's factors, and matches values as the statistics give them", () => {
    const asked: string[][] = [];
    const rows = compareNumbers(published, (factors) => {
      asked.push(factors);
      return factors.length === 2
        ? [
            group({ label: 'gemini', observation: 'adjacency' }, 40, 50),
            group({ label: 'gemini', observation: 'full_map' }, 20, 50),
          ]
        : [group({ label: 'o3' }, 30, 30)];
    });
    expect(asked).toEqual([['label', 'observation'], ['label']]);
    expect(rows.map((r) => [r.id, r.group, r.ours.successes, r.ours.runs])).toEqual([
      ['grid', { label: 'gemini', observation: 'full_map' }, 20, 50],
      ['o3', { label: 'o3' }, 30, 30],
    ]);
    expect(rows[0].verdict).toEqual(replicationVerdict({ value: 0.34, n: 50 }, rows[0].ours));
    expect(rows[1].verdict.test).toBe('no n of theirs');
  });

  it('ours is the maze-level interval: ten mazes of five alike repeats are worth ten mazes, not fifty runs', () => {
    // five mazes solved every time, five failed every time: 25 of 50 runs, but ten independent units
    const clusters = Array.from({ length: 10 }, (_, i) => ({ num: i < 5 ? 5 : 0, den: 5 }));
    const maze = mazeRate(clusters)!;
    const runLevel = wilson(25, 50) as { low: number; high: number };
    expect(maze.high - maze.low).toBeGreaterThan(1.5 * (runLevel.high - runLevel.low));
    const g = {
      factors: { label: 'o3' },
      independent: 50,
      independentSuccesses: 25,
      mazes: 10,
      simulatedRuns: 0,
      success: { rate: 0.5, wilson: runLevel, maze },
    } as unknown as GroupStatistics;
    const [row] = compareNumbers([{ ...published[1], value: 0.8, n: 100 }], () => [g]);
    expect(row.ours).toMatchObject({ low: maze.low, high: maze.high, mazes: 10, runs: 50 });
    // their 80/100: counted as fifty independent runs ours would differ; counted as ten mazes it cannot tell
    expect(replicationVerdict({ value: 0.8, n: 100 }, { ...row.ours, ...runLevel }).verdict).toBe('differs');
    expect(row.verdict.verdict).toBe('inconclusive');
  });

  it('a selector no group matches is one row without a verdict, saying so', () => {
    const rows = compareNumbers(published.slice(1), () => [group({ label: 'gpt' }, 1, 2)]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ group: null, verdict: { verdict: 'no verdict' } });
    expect(rows[0].verdict.reason).toMatch(/no group of the sweep matches/);
  });

  it('simulated and real runs apart: a row for each group the selector matches', () => {
    const rows = compareNumbers(published.slice(1), () => [
      group({ label: 'o3', simulated: true }, 2, 2),
      group({ label: 'o3', simulated: false }, 5, 6),
    ]);
    expect(rows.map((r) => r.group)).toEqual([
      { label: 'o3', simulated: true },
      { label: 'o3', simulated: false },
    ]);
  });
});

describe('specDifferences: where a sweep that ran is not the protocol file', () => {
  const spec = {
    sweep: 'p',
    agents: [{ agent: 'openai', model: 'o3' }],
    mazes: { generators: ['perfect'], sizes: [5, 7], seeds: [1, 2] },
    settings: {},
    config: { max_moves: 500, observation: 'coordinates' },
    repeats: 1,
  };

  it('none for the same spec, keys in any order, whatever the name', () => {
    const reordered = { ...spec, sweep: 'other', config: { observation: 'coordinates', max_moves: 500 } };
    expect(specDifferences(spec, reordered)).toEqual([]);
  });

  it('the keys that differ, one level down in mazes, settings and config; agents and repeats whole', () => {
    const ran = {
      ...spec,
      agents: [{ agent: 'openai', model: 'o3', config: { openai: { base_url: 'http://127.0.0.1:1/v1' } } }],
      mazes: { ...spec.mazes, seeds: [1] },
      config: { max_moves: 40, observation: 'coordinates', retry: { max_attempts: 2 } },
      repeats: 3,
    };
    expect(specDifferences(spec, ran)).toEqual([
      'agents',
      'mazes.seeds',
      'config.max_moves',
      'config.retry',
      'repeats',
    ]);
  });
});

describe('the protocol files', () => {
  it('ship MazeBench, SpatialBench and MazeEval', () => {
    expect(protocolNames()).toEqual(['mazebench', 'mazeeval', 'spatialbench']);
  });

  it.each(protocolNames())('%s loads with its sweep, and names a source for each published number', (name) => {
    const p = findProtocol(name);
    expect(p.protocol).toBe(name);
    expect(p.sweep.spec.sweep).toBe(name);
    expect(p.published.length).toBeGreaterThan(0);
    expect(p.differences.length).toBeGreaterThan(0);
    for (const n of p.published) {
      const source = p.sources[n.source];
      expect(source, `${name} ${n.id}: source ${n.source}`).toBeDefined();
      expect(source.title.length).toBeGreaterThan(0);
      expect(source.authors.length).toBeGreaterThan(0);
      expect(source.year).toBeGreaterThanOrEqual(2025);
      expect(source.url).toMatch(/^https:\/\//);
      expect(n.where.length).toBeGreaterThan(0);
      // each published number is compared with cells the sweep runs
      expect(p.sweep.cells.some((c) => c.label === n.ours.label)).toBe(true);
    }
    // every paper is named by its arXiv id
    expect(Object.values(p.sources).some((s) => s.arxiv !== undefined)).toBe(true);
  });

  it('the numbers as the papers give them', () => {
    const numbers = (name: string) =>
      findProtocol(name).published.map((n) => [n.id, n.value, n.successes ?? null, n.n ?? null]);
    expect(numbers('mazebench')).toEqual([
      ['text-grid-thinking', 0.8, 80, 100],
      ['image-no-thinking', 0.06, 6, 100],
      ['image-thinking', 0.02, 2, 100],
    ]);
    expect(numbers('spatialbench')).toEqual([
      ['adjacency-5x5', 0.86, null, 50],
      ['grid-5x5', 0.34, null, 50],
    ]);
    expect(numbers('mazeeval')).toEqual([['o3-english', 1, null, null]]);
    expect(Object.values(findProtocol('mazebench').sources).map((s) => s.arxiv)).toEqual(['2603.26839']);
    expect(Object.values(findProtocol('mazeeval').sources).map((s) => s.arxiv)).toEqual(['2507.20395']);
    expect(findProtocol('spatialbench').sources.li2026.arxiv).toBe('2604.10690');
  });

  it('a file with problems is refused naming each, by path and line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'protocol-'));
    writeFileSync(join(dir, 'bad.yaml'), readFileSync(join(PROTOCOLS_DIR, 'mazeeval.yaml'), 'utf8'));
    const text = readFileSync(join(PROTOCOLS_DIR, 'mazeeval.published.yaml'), 'utf8')
      .replace('protocol: mazeeval', 'protocol: other')
      .replace('source: einarsson2025', 'source: nobody')
      .replace('ours: { label: o3 }', 'ours: { label: gpt-5, colour: red }\n    successes: 3');
    writeFileSync(join(dir, 'bad.published.yaml'), text);
    const error = (() => {
      try {
        loadProtocolFile(join(dir, 'bad.published.yaml'));
      } catch (e) {
        return e as ProtocolDefinitionError;
      }
      throw new Error('loaded');
    })();
    expect(error).toBeInstanceOf(ProtocolDefinitionError);
    const problems = error.problems.map((p) => `${p.path}: ${p.problem}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^protocol: "other" is not the file's name/),
        expect.stringMatching(/^published\[0\]\.source: "nobody" is not one of the sources: einarsson2025/),
        expect.stringMatching(/^published\[0\]\.successes: successes without n/),
        expect.stringMatching(/^published\[0\]\.ours: colour: not a factor/),
      ]),
    );
    expect(error.problems.every((p) => p.line !== null)).toBe(true);
    // the command refuses it as input (exit 2), every problem said
    const cli = await ariadneInProcess(['replicate', join(dir, 'bad.published.yaml')]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/4 problems[\s\S]*"nobody" is not one of the sources/);
    // a selector of valid factors that no cell has
    writeFileSync(join(dir, 'bad.published.yaml'), text.replace(/ours: .*\n.*successes: 3/, 'ours: { label: gpt-5 }'));
    expect(() => loadProtocolFile(join(dir, 'bad.published.yaml'))).toThrow(
      /published\[0\]\.ours.*matches no cell of the sweep mazeeval/,
    );
  });
});

/** The command as an installed `ariadne` prints its hints (not `npm run ariadne --`). */
const INSTALLED = { npm_lifecycle_event: '', npm_package_name: '' };

describe('ariadne replicate without a sweep', () => {
  it.each(protocolNames())(
    '%s: the protocol, its published numbers with their sources, and how to run it',
    async (name) => {
      const { code, stdout, stderr } = await ariadneInProcess(['replicate', name], INSTALLED);
      expect(code, stderr).toBe(0);
      const p = findProtocol(name);
      for (const n of p.published) expect(stdout).toContain(n.id);
      for (const s of Object.values(p.sources)) if (s.arxiv) expect(stdout).toContain(`arXiv:${s.arxiv}`);
      expect(stdout).toMatch(/^what the paper fixed:$/m);
      expect(stdout).toMatch(/^what differs in Ariadne's protocol:$/m);
      expect(stdout).toContain(`run it: ariadne sweep examples/protocols/${name}.yaml`);
      expect(stdout).toContain(`then:   ariadne replicate ${name} --sweep ${name}`);
    },
  );

  it('--json: the whole protocol and the commands', async () => {
    const { code, stdout } = await ariadneInProcess(['replicate', 'spatialbench', '--json'], INSTALLED);
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json).toMatchObject({
      protocol: 'spatialbench',
      commands: {
        sweep: 'ariadne sweep examples/protocols/spatialbench.yaml',
        replicate: 'ariadne replicate spatialbench --sweep spatialbench',
      },
    });
    expect(json.published.map((n: { value: number }) => n.value)).toEqual([0.86, 0.34]);
    expect(json).not.toHaveProperty('comparison');
  });

  it('lists the protocols; an unknown name is refused naming them (exit 2)', async () => {
    const list = await ariadneInProcess(['replicate']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^mazebench +\| +3 \| arXiv:2603\.26839/m);
    const unknown = await ariadneInProcess(['replicate', 'nosuch']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no protocol named "nosuch"; known: mazebench, mazeeval, spatialbench/);
  });
});
