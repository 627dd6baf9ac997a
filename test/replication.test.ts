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
  newcombeDifference,
  replicationVerdict,
  specDifferences,
  type OurRate,
} from '../reports/replication.ts';
import type { GroupStatistics } from '../reports/sweep-statistics.ts';
import { ariadneInProcess } from './support/cli-in-process.ts';

const ours = (rate: number, low: number, high: number, mazes = 20): OurRate => ({ rate, low, high, mazes });

describe('the verdict on a published number without its n: their value inside our maze interval', () => {
  it('inside: consistent', () => {
    expect(replicationVerdict({ value: 0.5 }, ours(0.55, 0.4, 0.6))).toMatchObject({
      verdict: 'consistent',
      test: 'inside our interval',
      inside: true,
      difference: null,
    });
  });

  it('outside, above or below: not consistent', () => {
    expect(replicationVerdict({ value: 0.9 }, ours(0.55, 0.4, 0.6))).toMatchObject({
      verdict: 'not consistent',
      inside: false,
    });
    expect(replicationVerdict({ value: 0.39 }, ours(0.55, 0.4, 0.6)).verdict).toBe('not consistent');
  });

  it('on either end of the interval: consistent (both ends belong to it)', () => {
    expect(replicationVerdict({ value: 0.4 }, ours(0.55, 0.4, 0.6)).verdict).toBe('consistent');
    expect(replicationVerdict({ value: 0.6 }, ours(0.55, 0.4, 0.6)).verdict).toBe('consistent');
    // MazeEval's "perfect navigation": 100% against an interval that reaches 100%
    expect(replicationVerdict({ value: 1 }, ours(1, 0.83, 1)).verdict).toBe('consistent');
    expect(replicationVerdict({ value: 1 }, ours(0.9, 0.7, 0.98)).verdict).toBe('not consistent');
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

describe("the verdict with their n: Newcombe's interval for ours - theirs holds 0", () => {
  it('their 80/100 against our 50% [30%, 70%]: the difference excludes 0', () => {
    const v = replicationVerdict({ value: 0.8, successes: 80, n: 100 }, ours(0.5, 0.3, 0.7));
    expect(v).toMatchObject({ verdict: 'not consistent', test: 'difference of proportions', inside: false });
    // Wilson's 95% interval of 80/100 is [71.1%, 86.7%]; the difference's upper end -0.3 + sqrt(0.2^2 + 0.0888^2)
    expect(v.theirs!.low).toBeCloseTo(0.7112, 4);
    expect(v.theirs!.high).toBeCloseTo(0.8666, 4);
    expect(v.difference!.estimate).toBeCloseTo(-0.3, 12);
    expect(v.difference!.high).toBeCloseTo(-0.3 + Math.hypot(0.2, 0.8 - 0.7112), 3);
    expect(v.reason).toMatch(/ours - theirs = -30\.0%.*80\/100.*excludes 0/);
  });

  it('their 14/20, outside our interval, is consistent: their own sampling error is counted', () => {
    const v = replicationVerdict({ value: 0.7, n: 20 }, ours(0.5, 0.4, 0.6));
    expect(v.inside).toBe(false);
    expect(v.verdict).toBe('consistent');
    expect(v.difference!.low).toBeLessThan(0);
    expect(v.difference!.high).toBeGreaterThan(0);
    // the same value over 100 runs is no longer
    expect(replicationVerdict({ value: 0.7, n: 100 }, ours(0.5, 0.4, 0.6)).verdict).toBe('not consistent');
  });

  it('their value inside our interval: consistent', () => {
    expect(replicationVerdict({ value: 0.5, successes: 25, n: 50 }, ours(0.55, 0.4, 0.7))).toMatchObject({
      verdict: 'consistent',
      inside: true,
    });
  });

  it('an end of the difference at exactly 0: consistent (both ends belong to it); just past it: not', () => {
    // their 0/10 (Wilson low 0) against ours 0% [0%, 0%]: the upper end is 0 - 0 + sqrt(0^2 + 0^2) = 0
    const edge = replicationVerdict({ value: 0, n: 10 }, ours(0, 0, 0));
    expect(edge.difference!.high).toBe(0);
    expect(edge.verdict).toBe('consistent');
    // their 1/10: the upper end is -(their Wilson low) < 0
    expect(replicationVerdict({ value: 0.1, n: 10 }, ours(0, 0, 0)).verdict).toBe('not consistent');
    // and at the top: their 10/10 against ours 100% [100%, 100%]: the lower end is exactly 0
    const top = replicationVerdict({ value: 1, n: 10 }, ours(1, 1, 1));
    expect(top.difference!.low).toBe(0);
    expect(top.verdict).toBe('consistent');
  });

  it("Newcombe's square-and-add, on dyadic numbers (exact): each side adds the two rates' own half-widths", () => {
    expect(newcombeDifference(0.125, { low: 0, high: 0.5 }, 0.75, { low: 0.25, high: 0.875 })).toEqual({
      estimate: -0.625,
      low: -0.625 - Math.sqrt(0.125 ** 2 + 0.125 ** 2),
      high: 0,
    });
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
    expect(rows[1].verdict.test).toBe('inside our interval');
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
