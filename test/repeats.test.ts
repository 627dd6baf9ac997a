// Deterministic repeats count once (migration 007): a sweep of frontier,
// random and a model-driven agent run for real, and the statistics views,
// the report, `compare` and the export read back. The model-driven agent
// here moves exactly as frontier does, so only the rule (a model is never
// taken as deterministic), not the look of its runs, keeps its repeats apart.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSweep, sweepRunInput } from '../core/sweeps/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { registerSweep } from '../core/sweeps/sweep-registry.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { baselineAgents, BASELINE_NAMES } from '../core/providers/baselines.ts';
import { frontierAgent } from '../core/providers/frontier-agent.ts';
import type { AgentFactory } from '../core/engine/agent.ts';
import { loadReport } from '../reports/report-data.ts';
import { reportHtml } from '../reports/report-page.ts';
import { compareAgents } from '../reports/compare.ts';
import { exportSweep } from '../reports/export.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';
import { allKSucceed, wilson } from './support/reference-statistics.ts';

let db: TestDatabase;
const dir = tempDir('repeats');

/** "ollama" answered by a stand-in (marked as a model caller, as the real one is) that walks as frontier does. */
const agents: AgentFactory = (identity) =>
  identity.agent === 'ollama' ? { ...frontierAgent(), callsModel: true } : baselineAgents(identity);

// 60 moves: frontier solves three of the four mazes and fails the fourth, so intervals are not all at 0 or 1
const MIXED = `sweep: repeats-mixed
agents:
  - { agent: frontier }
  - { agent: frontier, label: frontier-v2, config: { vision_range: 2 } }
  - { agent: random }
  - { agent: ollama, model: stand-in }
mazes: { generators: [medium], sizes: [11, 15], seeds: [1, 2] }
config: { max_moves: 60 }
repeats: 5
`;

interface Run {
  experiment_id: string;
  label: string;
  cell_index: number;
  repeat: number;
  status: string;
  maze_size: number;
  goal_found: boolean;
  deterministic: boolean;
  independent: boolean;
  duplicate_of: string | null;
}

const runsOf = async (sweep: string) =>
  (
    await db.pool.query<Run>(
      `SELECT experiment_id, label, cell_index, repeat, status, maze_size, goal_found,
              deterministic, independent, duplicate_of
       FROM sweep_runs WHERE sweep_id = $1 ORDER BY cell_index, repeat`,
      [sweep],
    )
  ).rows;
const statsOf = async (sweep: string, label: string) =>
  (
    await db.pool.query('SELECT * FROM sweep_stats WHERE sweep_id = $1 AND label = $2 ORDER BY maze_size', [
      sweep,
      label,
    ])
  ).rows;
/** Each experiment's moves as one string, to tell copies from runs that differ. */
const movesOf = async (ids: string[]) =>
  new Map(
    (
      await db.pool.query<{ experiment_id: string; moves: string }>(
        `SELECT experiment_id, string_agg(tool, ' ' ORDER BY step_number) AS moves FROM actions
         WHERE experiment_id = ANY ($1) AND executed GROUP BY experiment_id`,
        [ids],
      )
    ).rows.map((r) => [r.experiment_id, r.moves]),
  );

let runs: Run[];
/** A cell's outcome at its first repeat. */
const outcome = (label: string, cell: number) =>
  runs.find((r) => r.label === label && r.cell_index === cell && r.repeat === 1)!.goal_found;
// frontier's cells are 0-3, frontier-v2's 4-7: the same mazes in the same order
beforeAll(async () => {
  db = await testDatabase(8);
  await runLocalSweep(loadSweep(MIXED, 'test'), { db, concurrency: 4, agents });
  runs = await runsOf('repeats-mixed');
}, 120_000);
afterAll(async () => {
  await db.drop();
});

describe('which runs are copies', () => {
  it('frontier: each cell is one observation; its other repeats are exact copies of the first', async () => {
    const frontier = runs.filter((r) => r.label === 'frontier');
    expect(frontier).toHaveLength(20);
    const moves = await movesOf(frontier.map((r) => r.experiment_id));
    for (const cell of new Set(frontier.map((r) => r.cell_index))) {
      const [first, ...copies] = frontier.filter((r) => r.cell_index === cell);
      expect(first).toMatchObject({ repeat: 1, deterministic: true, independent: true, duplicate_of: null });
      expect(copies.map((r) => [r.independent, r.duplicate_of])).toEqual(
        Array.from({ length: 4 }, () => [false, first.experiment_id]),
      );
      // what the rule assumes, seen in the runs: the same moves every repeat
      expect(new Set(copies.map((r) => moves.get(r.experiment_id)))).toEqual(new Set([moves.get(first.experiment_id)]));
    }
  });

  it('random (a new agent seed every repeat) and the model-driven agent: every run counts', async () => {
    for (const label of ['random', 'stand-in']) {
      const own = runs.filter((r) => r.label === label);
      expect(own).toHaveLength(20);
      expect(own.every((r) => r.independent && r.duplicate_of === null)).toBe(true);
      expect(own.every((r) => r.deterministic === (label === 'random'))).toBe(true);
    }
    const seeds = await db.pool.query(
      "SELECT DISTINCT agent_seed FROM experiments WHERE sweep_id = 'repeats-mixed' AND agent = 'random'",
    );
    expect(seeds.rowCount).toBe(20);
    // the stand-in moved exactly as frontier did, yet a model is never taken as deterministic
    const standIn = runs.filter((r) => r.label === 'stand-in' && r.cell_index % 4 === 0);
    const moves = await movesOf(standIn.map((r) => r.experiment_id));
    expect(new Set(moves.values()).size).toBe(1);
  });

  it(
    'random with the same seed on every repeat collapses; frontier with a different config does not, and a ' +
      'failed copy never stands for a finished one',
    async () => {
      const s = loadSweep(
        `sweep: repeats-same-seed
agents: [{ agent: random }, { agent: frontier }]
mazes: { generators: [medium], sizes: [15], seeds: [3] }
config: { max_moves: 200 }
repeats: 3
`,
        'test',
      );
      await registerSweep(db.pool, s);
      for (const run of s.runs) {
        const input = sweepRunInput('repeats-same-seed', run, 1);
        // as a hand-started execution may: random keeps one seed, frontier's third repeat sees less
        if (run.cell.agent === 'random') input.agentSeed = 7;
        if (run.cell.agent === 'frontier' && run.repeat === 3) input.config = { ...input.config, vision_range: 2 };
        // frontier's first repeat fails (its agent breaks), so its finished copy, repeat 2, is the observation
        const broken = run.cell.agent === 'frontier' && run.repeat === 1;
        await runLocalExperiment(input, {
          db,
          agents: broken ? () => ({ act: () => Promise.reject(new Error('agent lost')) }) : agents,
        }).catch(() => undefined);
      }
      const same = await runsOf('repeats-same-seed');
      const random = same.filter((r) => r.label === 'random');
      expect(random.map((r) => r.independent)).toEqual([true, false, false]);
      expect(random.slice(1).map((r) => r.duplicate_of)).toEqual([random[0].experiment_id, random[0].experiment_id]);
      const frontier = same.filter((r) => r.label === 'frontier');
      // the failed run is an error (migration 011): in no denominator, never a copy nor copied
      expect(frontier.map((r) => [r.status, r.independent, r.duplicate_of])).toEqual([
        ['failed', false, null],
        ['completed', true, null],
        ['completed', true, null],
      ]);
      const [randomStats] = await statsOf('repeats-same-seed', 'random');
      expect(randomStats).toMatchObject({ n: 3, n_independent: 1, deterministic_repeats: 2 });
      const [frontierStats] = await statsOf('repeats-same-seed', 'frontier');
      expect(frontierStats).toMatchObject({
        runs: 3,
        n: 2,
        n_independent: 2,
        deterministic_repeats: 0,
        errors: 1,
        error_reasons: ['Error: agent lost'],
        unfinished: 1,
      });
      expect(frontierStats.successes_independent).toBe(
        same.filter((r) => r.label === 'frontier' && r.goal_found).length,
      );
    },
  );

  it('agent_ignores_seed names exactly the baselines whose moves do not change with the agent seed', async () => {
    for (const agent of BASELINE_NAMES) {
      const ids = [];
      for (const agentSeed of [1, 2])
        ids.push(
          (
            await runLocalExperiment(
              { agent, agentSeed, maze: { generator: 'medium', size: 15, seed: 2 }, config: { max_moves: 60 } },
              { db },
            )
          ).experimentId!,
        );
      const moves = await movesOf(ids);
      const ignores = (await db.pool.query('SELECT agent_ignores_seed($1) AS v', [agent])).rows[0].v;
      expect({ agent, ignores }).toEqual({ agent, ignores: moves.get(ids[0]) === moves.get(ids[1]) });
    }
  });
});

describe('the statistics views count each observation once', () => {
  it('frontier: n_independent is one per maze, the interval wilson(k, mazes), not wilson(5k, 5 x mazes)', async () => {
    const stats = await statsOf('repeats-mixed', 'frontier');
    expect(stats).toHaveLength(2);
    let mixed = 0;
    for (const s of stats) {
      const firsts = runs.filter((r) => r.label === 'frontier' && r.maze_size === s.maze_size && r.repeat === 1);
      const k = firsts.filter((r) => r.goal_found).length;
      expect(s).toMatchObject({
        n: 10,
        successes: 5 * k,
        n_independent: 2,
        successes_independent: k,
        deterministic_repeats: 8,
      });
      expect(Number(s.success_rate)).toBeCloseTo(k / 2, 4);
      const [low, high] = wilson(k, 2);
      expect(Number(s.success_low95)).toBeCloseTo(low, 4);
      expect(Number(s.success_high95)).toBeCloseTo(high, 4);
      if (k > 0 && k < 2) {
        mixed++;
        expect(Number(s.success_low95)).not.toBeCloseTo(wilson(5 * k, 10)[0], 2);
      }
    }
    expect(mixed).toBe(1); // the fixture has one size where frontier solves one maze of two
  });

  it('random and the model-driven agent: n_independent = n and the interval over every run', async () => {
    for (const label of ['random', 'stand-in']) {
      for (const s of await statsOf('repeats-mixed', label)) {
        const own = runs.filter((r) => r.label === label && r.maze_size === s.maze_size);
        const k = own.filter((r) => r.goal_found).length;
        expect(s).toMatchObject({ n: 10, n_independent: 10, successes_independent: k });
        expect(s.deterministic_repeats).toBe(0);
        const [low, high] = wilson(k, 10);
        expect(Number(s.success_low95)).toBeCloseTo(low, 4);
        expect(Number(s.success_high95)).toBeCloseTo(high, 4);
      }
    }
  });

  it('pass^k: a collapsed cell is its outcome, 1 or 0, for every k; other cells C(c,k)/C(n,k) over 5', async () => {
    const rows = (
      await db.pool.query("SELECT * FROM sweep_pass_k WHERE sweep_id = 'repeats-mixed' ORDER BY label, maze_size, k")
    ).rows;
    expect(rows).toHaveLength(4 * 2 * 5); // 4 agents x 2 sizes x k = 1..5
    for (const p of rows) {
      const cells = new Map<number, boolean[]>();
      for (const r of runs.filter((x) => x.label === p.label && x.maze_size === p.maze_size))
        cells.set(r.cell_index, [...(cells.get(r.cell_index) ?? []), r.goal_found]);
      const deterministic = p.label.startsWith('frontier');
      const expected =
        [...cells.values()]
          .map((o) => (deterministic ? Number(o[0]) : allKSucceed(o.filter(Boolean).length, o.length, p.k)))
          .reduce((a, b) => a + b, 0) / cells.size;
      expect({ label: p.label, size: p.maze_size, k: p.k, pass_k: Number(p.pass_k) }).toEqual({
        label: p.label,
        size: p.maze_size,
        k: p.k,
        pass_k: expect.closeTo(expected, 4),
      });
      expect(Number(p.cells)).toBe(2);
      expect(Number(p.deterministic_cells)).toBe(deterministic ? 2 : 0);
    }
  });

  it('pairs: two deterministic agents pair once per maze; with an agent with randomness, once per repeat', async () => {
    const pairs = (await db.pool.query("SELECT * FROM sweep_pairs WHERE sweep_id = 'repeats-mixed'")).rows;
    const pair = (a: string, b: string) => pairs.find((p) => p.label_a === a && p.label_b === b)!;
    const det = pair('frontier', 'frontier-v2');
    expect(det).toMatchObject({ pairs: 4, copied_pairs: 16 });
    const onlyA = [0, 1, 2, 3].filter((c) => outcome('frontier', c) && !outcome('frontier-v2', c + 4)).length;
    const onlyB = [0, 1, 2, 3].filter((c) => !outcome('frontier', c) && outcome('frontier-v2', c + 4)).length;
    expect([Number(det.only_a), Number(det.only_b)]).toEqual([onlyA, onlyB]);
    expect(Number(det.mazes)).toBe(4);
    expect(pair('frontier', 'random')).toMatchObject({ pairs: 20, copied_pairs: 0 });
    expect(pair('frontier', 'stand-in')).toMatchObject({ pairs: 20, copied_pairs: 0 });
  });
});

describe('the report, compare and export say so', () => {
  it('the report notes which agents had repeats counted once, and how many observations remain', async () => {
    const html = reportHtml(await loadReport(db, 'repeats-mixed'), () => null);
    const note = (label: string) =>
      `${label}: its 5 repeats per cell are deterministic (same maze, seed and settings), counted once: ` +
      'n = 4 independent runs, not 20';
    const list = /<ul class="note" id="repeats">(.*?)<\/ul>/.exec(html)?.[1];
    expect(list).toBe(`<li>${note('frontier')}</li><li>${note('frontier-v2')}</li>`);
    expect(html.replace(/\s+/g, ' ')).toContain(
      'runs of a deterministic agent that walked the same path on the same maze (same seed, settings that reach it) ' +
        'count once',
    );
    expect(/<ul class="note" id="pass-k-notes">(.*?)<\/ul>/.exec(html)?.[1]).toBe(
      ['frontier', 'frontier-v2']
        .map(
          (l) =>
            `<li>${l}: each cell is one deterministic observation, so its pass^k is that run&#39;s outcome (1 or 0) ` +
            'for every k, not a measured consistency</li>',
        )
        .join(''),
    );
    expect(html.replace(/\s+/g, ' ')).toContain(
      'n and "identical repeats" count every success and failure (copies included); success, its intervals, ' +
        'SPL, efficiency, actions and tokens count each independent run once; errors, wall-clock stops and running ' +
        'runs are left out of all of them',
    );
    expect(html).toContain('<th>independent</th>');
    expect(html).toContain('<th>copies left out</th>');
  });

  it('a sweep with nothing collapsed has no note', async () => {
    const html = reportHtml(await loadReport(db, 'repeats-mixed'), () => null);
    const onlyRandom = reportHtml(
      await loadReport(db, 'repeats-mixed').then((d) => ({
        ...d,
        stats: d.stats.filter((s) => s.label === 'random'),
        passK: d.passK.filter((p) => p.label === 'random'),
      })),
      () => null,
    );
    expect(html).toContain('id="repeats"');
    expect(onlyRandom).not.toContain('id="repeats"');
    expect(onlyRandom).not.toContain('id="pass-k-notes"');
  });

  it('compare: pairs counted once with the copies left out, the test over the same mazes, and notes', async () => {
    const c = await compareAgents(db, 'repeats-mixed', 'frontier-v2', 'frontier');
    expect([c.pairs, c.copiedPairs, c.mazes, c.test.mazes]).toEqual([4, 16, 4, 4]);
    const both = [0, 1, 2, 3].filter((cell) => outcome('frontier', cell) && outcome('frontier-v2', cell + 4)).length;
    expect([c.bothSolved, c.efficiency.pairs]).toEqual([both, both]);
    expect(c.notes).toEqual([
      'frontier-v2: its 5 repeats per cell are deterministic (same maze, seed and settings), counted once: ' +
        'n = 4 independent runs, not 20',
      'frontier: its 5 repeats per cell are deterministic (same maze, seed and settings), counted once: ' +
        'n = 4 independent runs, not 20',
      '16 of 20 pairs of runs repeat a counted pair exactly and are left out: 4 pairs',
    ]);
    const withRandom = await compareAgents(db, 'repeats-mixed', 'random', 'stand-in');
    expect([withRandom.pairs, withRandom.copiedPairs, withRandom.notes]).toEqual([20, 0, []]);
    const oneSide = await compareAgents(db, 'repeats-mixed', 'stand-in', 'frontier');
    expect([oneSide.pairs, oneSide.copiedPairs, oneSide.notes]).toEqual([
      20,
      0,
      [
        'frontier: its 5 repeats per cell are deterministic (same maze, seed and settings), counted once: ' +
          'n = 4 independent runs, not 20',
        'all 20 pairs count: each repeat of stand-in is an observation of its own',
      ],
    ]);
  });

  it('the export carries deterministic, independent and duplicate_of for every run', async () => {
    const [experiments] = await exportSweep(db, 'repeats-mixed', 'jsonl', join(dir, 'export'));
    const rows = readFileSync(experiments.file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(80);
    const byId = new Map(runs.map((r) => [r.experiment_id, r]));
    for (const row of rows) {
      const r = byId.get(row.experiment_id)!;
      expect([row.deterministic, row.independent, row.duplicate_of]).toEqual([
        r.deterministic,
        r.independent,
        r.duplicate_of,
      ]);
    }
    expect(rows.filter((r) => !r.independent)).toHaveLength(32);
    const [csv] = await exportSweep(db, 'repeats-mixed', 'csv', join(dir, 'export-csv'));
    expect(readFileSync(csv.file, 'utf8').split('\n')[0].split(',')).toEqual(
      expect.arrayContaining(['deterministic', 'independent', 'duplicate_of']),
    );
  });
});
