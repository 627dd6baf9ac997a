// Sweeps: a real `ariadne sweep` process killed halfway and run again, the
// statistics views against formulas computed here, and sweep files with
// mistakes reported by their YAML path.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSweep, SweepDefinitionError } from '../core/sweeps/sweep-spec.ts';
import { runLocalSweep, type SweepProgress } from '../state-machine/local-sweep.ts';
import { sweepLaunch } from '../core/machine/sweep-machine-input.ts';
import { startRequestSchema } from '../core/machine/contracts.ts';
import { sweepProgress, sweepSummaryLine } from '../bin/cli/sweep-progress.ts';
import { ledgerProblems, testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';
import { ariadneProcess, outputOf } from './support/cli.ts';
import { compareAgents } from '../reports/compare.ts';
import { exportSweep } from '../reports/export.ts';
import { factorStats } from '../reports/factor-stats.ts';
import { varyingFactors } from '../reports/factors.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { allKSucceed, mcnemar, signFlip, wilson } from './support/reference-statistics.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase(8);
});
afterAll(async () => {
  await db.drop();
});

const dir = tempDir('sweeps');
const SWEEP = `sweep: kill-test
agents:
  - { agent: random }
  - { agent: frontier }
mazes:
  generators: [medium, rooms_and_corridors]
  sizes: [15, 21]
  seeds: [2]
config:
  max_moves: 600
  max_actions_per_turn: 4
repeats: 5
max_concurrency: 4
`;

function sweepProcess(file: string) {
  const child = ariadneProcess(['sweep', file, '--concurrency', '4'], {
    DATABASE_URL: db.url,
    DATABASE_SCHEMA: db.schema,
  });
  return { done: outputOf(child), kill: () => child.kill('SIGKILL') };
}

const count = async (sql: string, params: unknown[] = []) => Number((await db.pool.query(sql, params)).rows[0].n);

describe('a sweep killed halfway and run again', () => {
  it(
    'finishes with exactly one experiment per cell and repeat; interrupted runs are resumed, not ' + 'repeated',
    async () => {
      const file = join(dir, 'kill-test.yaml');
      writeFileSync(file, SWEEP);
      const first = sweepProcess(file);
      // wait until about a quarter of the 40 runs are done, then kill -9 in the middle of the rest
      for (let i = 0; i < 1200; i++) {
        const finished = await count(
          "SELECT count(*) AS n FROM experiments WHERE sweep_id = 'kill-test' AND status <> 'running'",
        ).catch(() => 0);
        if (finished >= 10) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      first.kill();
      const killed = await first.done;
      expect(killed.signal).toBe('SIGKILL');
      const interrupted = (
        await db.pool.query(
          "SELECT id, turns_completed FROM experiments WHERE sweep_id = 'kill-test' AND status = 'running'",
        )
      ).rows;
      const before = await count("SELECT count(*) AS n FROM experiments WHERE sweep_id = 'kill-test'");
      expect(before).toBeLessThan(40);

      const second = await sweepProcess(file).done;
      expect(second.code).toBe(0);
      const resumedLine = /(\d+) already done, (\d+) started, (\d+) resumed, (\d+) retried/.exec(second.stderr);
      expect(resumedLine).not.toBeNull();
      expect(Number(resumedLine![3])).toBe(interrupted.length);
      expect(Number(resumedLine![1]) + Number(resumedLine![2]) + Number(resumedLine![3])).toBe(40);

      // exactly one experiment per cell and repeat, all finished
      expect(await count("SELECT count(*) AS n FROM experiments WHERE sweep_id = 'kill-test'")).toBe(40);
      expect(
        await count(
          "SELECT count(*) AS n FROM (SELECT 1 FROM experiments WHERE sweep_id = 'kill-test' GROUP BY " +
            'sweep_cell, sweep_repeat HAVING count(*) <> 1) x',
        ),
      ).toBe(0);
      expect(
        await count(
          "SELECT count(*) AS n FROM experiments WHERE sweep_id = 'kill-test' AND status NOT IN " +
            "('completed', 'timeout')",
        ),
      ).toBe(0);
      // the resumed ones went on from where they stopped: turns 1..n, no gap, no double
      expect(
        await ledgerProblems(
          db,
          interrupted.map((r) => r.id),
        ),
      ).toEqual([]);
      for (const r of interrupted) {
        const e = (await db.pool.query('SELECT turns_completed FROM experiments WHERE id = $1', [r.id])).rows[0];
        expect(e.turns_completed).toBeGreaterThanOrEqual(r.turns_completed);
      }
      // a third run has nothing left to do
      const third = await sweepProcess(file).done;
      expect(third.stderr).toMatch(/40 already done, 0 started, 0 resumed, 0 retried/);
    },
    180_000,
  );

  it('the statistics views agree with the runs, computed here', async () => {
    const runs = (
      await db.pool.query(
        'SELECT label, maze_generator, maze_size, cell_index, repeat, goal_found, efficiency, actions, ' +
          "loop_cells, invalid_actions FROM sweep_runs WHERE sweep_id = 'kill-test'",
      )
    ).rows;
    expect(runs).toHaveLength(40);
    const stats = (await db.pool.query("SELECT * FROM sweep_stats WHERE sweep_id = 'kill-test'")).rows;
    expect(stats).toHaveLength(8);
    for (const s of stats) {
      const group = runs.filter(
        (r) => r.label === s.label && r.maze_generator === s.maze_generator && r.maze_size === s.maze_size,
      );
      const k = group.filter((r) => r.goal_found).length;
      expect(Number(s.n)).toBe(group.length);
      expect(Number(s.successes)).toBe(k);
      // frontier has no randomness: a cell's repeats (killed and resumed or not) are one run, so the interval counts
      // each cell once; random draws a new agent seed for every repeat, so each of its runs counts
      const observations =
        s.label === 'frontier'
          ? [...new Set(group.map((r) => r.cell_index))].map((cell) => {
              const copies = group.filter((r) => r.cell_index === cell);
              expect(new Set(copies.map((r) => `${r.goal_found} ${r.actions}`)).size).toBe(1);
              return copies[0].goal_found as boolean;
            })
          : group.map((r) => r.goal_found as boolean);
      expect(Number(s.n_independent)).toBe(observations.length);
      const [low, high] = wilson(observations.filter(Boolean).length, observations.length);
      expect(Number(s.success_low95)).toBeCloseTo(low, 4);
      expect(Number(s.success_high95)).toBeCloseTo(high, 4);
      const eff = group.filter((r) => r.efficiency !== null).map((r) => Number(r.efficiency));
      if (eff.length > 0) expect(Number(s.mean_efficiency)).toBeCloseTo(eff.reduce((a, b) => a + b, 0) / eff.length, 3);
      expect(Number(s.loop_rate)).toBeCloseTo(group.filter((r) => r.loop_cells > 0).length / group.length, 4);
    }
    const passK = (
      await db.pool.query(
        "SELECT label, maze_generator, maze_size, k, pass_k FROM sweep_pass_k WHERE sweep_id = 'kill-test'",
      )
    ).rows;
    for (const p of passK) {
      const cells = new Map<number, boolean[]>();
      for (const r of runs.filter(
        (x) => x.label === p.label && x.maze_generator === p.maze_generator && x.maze_size === p.maze_size,
      )) {
        cells.set(r.cell_index, [...(cells.get(r.cell_index) ?? []), r.goal_found]);
      }
      const expected =
        [...cells.values()]
          .map((o) => allKSucceed(o.filter(Boolean).length, o.length, p.k))
          .reduce((a, b) => a + b, 0) / cells.size;
      expect(Number(p.pass_k)).toBeCloseTo(expected, 4);
    }
    const pair = (await db.pool.query("SELECT * FROM sweep_pairs WHERE sweep_id = 'kill-test'")).rows[0];
    expect(pair).toMatchObject({ label_a: 'frontier', label_b: 'random' });
    expect(Number(pair.pairs)).toBe(20);
    // no run-level test in the view: the mazes it stands on, and the maze-level test is compare's
    expect(pair).not.toHaveProperty('mcnemar_p');
    expect(Number(pair.mazes)).toBeGreaterThan(0);
  });
});

describe('the live sweep display', () => {
  const progress = (over: Partial<SweepProgress> = {}): SweepProgress => ({
    total: 40,
    skipped: 10,
    done: 20,
    successes: 15,
    failed: 1,
    errors: new Map([['ProviderTransientError', 1]]),
    startedAt: Date.now() - 20_000,
    running: new Map([
      ['a', { key: 'random | medium 15 seed 2 | repeat 3', turn: 7, actions: 28 }],
      ['b', { key: 'frontier | medium 21 seed 2 | repeat 1', turn: 2, actions: 8 }],
    ]),
    databaseLostAt: null,
    databaseOutages: { count: 0, seconds: 0 },
    ...over,
  });

  it('totals: done, running, errors, success so far and an ETA from the runs finished in this process', () => {
    // 10 finished here in 20 s, 20 left: 40 s; the run ended by an error is out of the rate: 15 of 19, not of 20
    expect(sweepSummaryLine(progress())).toBe(
      'done 20/40 (10 from before) | running 2 | errors 1 (ProviderTransientError 1; not in the rate) | ' +
        'success so far 15/19 (78.9%) | 20s elapsed | ETA 40s',
    );
  });

  it('a broken model server is not a 0% success rate: its errors are counted apart, with their names', () => {
    const broken = progress({
      done: 16,
      skipped: 0,
      successes: 0,
      failed: 16,
      errors: new Map([['ProviderTransientError', 16]]),
    });
    expect(sweepSummaryLine(broken)).toMatch(/^done 16\/40 \| running 2 \| errors 16 \(ProviderTransientError 16; not/);
    expect(sweepSummaryLine(broken)).not.toContain('success so far');
  });

  it('says while the database is unreachable, and then how many outages were waited out and for how long', () => {
    const down = progress({ databaseLostAt: Date.now() - 12_000 });
    expect(sweepSummaryLine(down)).toMatch(/ \| database unreachable for 12s, waiting$/);
    const after = progress({ databaseOutages: { count: 2, seconds: 3.4 } });
    expect(sweepSummaryLine(after)).toMatch(/ \| database outages 2 \(3s waited\)$/);
    expect(sweepSummaryLine(progress())).not.toContain('database');
  });

  it('on a terminal, redraws its block in place: the totals, then one line per run in flight', async () => {
    let out = '';
    const stream = {
      isTTY: true,
      columns: 120,
      write: (s: string) => {
        out += s;
        return true;
      },
    } as unknown as NodeJS.WriteStream;
    const display = sweepProgress(stream);
    display.update(progress());
    await new Promise((r) => setTimeout(r, 150));
    display.update(
      progress({
        done: 21,
        running: new Map([['a', { key: 'random | medium 15 seed 2 | repeat 3', turn: 9, actions: 36 }]]),
      }),
    );
    display.done();
    const frames = out.split('\x1b[3A');
    expect(frames).toHaveLength(2); // the second frame moved up over the first frame's three lines
    expect(frames[0]).toContain('\r\x1b[2Kdone 20/40');
    expect(frames[0]).toContain('  random | medium 15 seed 2 | repeat 3: turn 7, 28 actions');
    expect(frames[1]).toContain('done 21/40');
    expect(frames[1]).toContain('turn 9, 36 actions');
    expect(frames[1]).not.toContain('frontier');
    expect(frames[1].endsWith('\x1b[J')).toBe(true); // the line no longer needed is cleared
  });
});

describe('compare and export', () => {
  it(
    'ariadne compare: the 2x2 table of the view, the maze-level test, a reproducible interval ' +
      'around the mean difference',
    async () => {
      const c = await compareAgents(db, 'kill-test', 'random', 'frontier');
      const view = (await db.pool.query("SELECT * FROM sweep_pairs WHERE sweep_id = 'kill-test'")).rows[0];
      expect([c.onlyA, c.onlyB, c.bothSolved, c.neither]).toEqual([
        Number(view.only_b),
        Number(view.only_a),
        Number(view.both_solved),
        Number(view.neither),
      ]);
      expect(c.mazes).toBe(Number(view.mazes));
      const perMaze = (
        await db.pool.query(
          `SELECT (count(*) FILTER (WHERE ok_b AND NOT ok_a) - count(*) FILTER (WHERE ok_a AND NOT ok_b))::int AS d
           FROM sweep_run_pairs WHERE sweep_id = 'kill-test' GROUP BY maze_generator, maze_size, maze_seed`,
        )
      ).rows.map((r: { d: number }) => r.d);
      expect(c.test.p).toBeCloseTo(signFlip(perMaze), 10);
      if (c.efficiency.pairs > 0) {
        expect(c.efficiency.meanDiff).toBeCloseTo(-Number(view.mean_efficiency_diff), 3);
        expect(c.efficiency.low95!).toBeLessThanOrEqual(c.efficiency.meanDiff!);
        expect(c.efficiency.high95!).toBeGreaterThanOrEqual(c.efficiency.meanDiff!);
        expect(await compareAgents(db, 'kill-test', 'random', 'frontier')).toEqual(c);
      }
      await expect(compareAgents(db, 'kill-test', 'random', 'gpt-9')).rejects.toThrow(
        /agent "gpt-9" is not in sweep "kill-test"; its agents are: frontier, random/,
      );
    },
  );

  it.each(['csv', 'jsonl'] as const)(
    'ariadne export --format %s writes every experiment and action of the sweep',
    async (format) => {
      const files = await exportSweep(db, 'kill-test', format, join(dir, `export-${format}`));
      const actions = await count(
        "SELECT count(*) AS n FROM actions a JOIN sweep_runs r USING (experiment_id) WHERE r.sweep_id = 'kill-test'",
      );
      expect(files.map((f) => f.rows)).toEqual([40, actions]);
      const lines = readFileSync(files[0].file, 'utf8').trimEnd().split('\n');
      if (format === 'jsonl') {
        expect(lines).toHaveLength(40);
        expect(JSON.parse(lines[0])).toMatchObject({ sweep_id: 'kill-test', settings: {} });
        // every setting, varied or not, in the snapshot the run used
        expect(JSON.parse(lines[0]).config).toMatchObject({ max_moves: 600, observation: 'rays', memory: 'fresh' });
      } else {
        expect(lines).toHaveLength(41);
        expect(lines[0].split(',')).toEqual(
          expect.arrayContaining(['sweep_id', 'cell_index', 'repeat', 'config', 'experiment_id', 'goal_found']),
        );
      }
      expect(readFileSync(files[1].file, 'utf8').trimEnd().split('\n')).toHaveLength(
        format === 'csv' ? actions + 1 : actions,
      );
    },
  );
});

describe('the statistics functions against published values and edge cases', () => {
  const q = async (sql: string, params: unknown[]) => (await db.pool.query(sql, params)).rows[0];

  it.each([
    // Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3 (Wilson score)
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])('Wilson interval (95 percent) for %i of %i is %f to %f', async (k, n, low, high) => {
    const r = await q('SELECT wilson_low($1, $2) AS low, wilson_high($1, $2) AS high', [k, n]);
    expect(r.low).toBeCloseTo(low, 4);
    expect(r.high).toBeCloseTo(high, 4);
  });

  it(
    'Wilson: n = 0 gives no interval; all successes and no successes stay inside [0, 1]; every k/n ' +
      'matches the formula',
    async () => {
      expect(await q('SELECT wilson_low(0, 0) AS low, wilson_high(0, 0) AS high', [])).toEqual({
        low: null,
        high: null,
      });
      const all = await q('SELECT wilson_low(5, 5) AS low, wilson_high(5, 5) AS high', []);
      expect(all.high).toBe(1);
      expect(all.low).toBeCloseTo(wilson(5, 5)[0], 10);
      const none = await q('SELECT wilson_low(0, 7) AS low, wilson_high(0, 7) AS high', []);
      expect(none.low).toBe(0);
      expect(none.high).toBeCloseTo(wilson(0, 7)[1], 10);
      const { rows } = await db.pool.query(
        'SELECT k, n, wilson_low(k, n) AS low, wilson_high(k, n) AS high FROM generate_series(1, 40) n, ' +
          'generate_series(0, 40) k WHERE k <= n',
      );
      for (const r of rows) {
        const [low, high] = wilson(r.k, r.n);
        expect(r.low).toBeCloseTo(low, 10);
        expect(r.high).toBeCloseTo(high, 10);
      }
    },
  );

  it('McNemar exact p matches the binomial tail, with its edge cases', async () => {
    expect((await q('SELECT mcnemar_exact_p(0, 0) AS p', [])).p).toBe(1);
    expect((await q('SELECT mcnemar_exact_p(10, 0) AS p', [])).p).toBeCloseTo(2 / 1024, 12);
    expect((await q('SELECT mcnemar_exact_p(6, 6) AS p', [])).p).toBe(1);
    const { rows } = await db.pool.query(
      'SELECT b, c, mcnemar_exact_p(b, c) AS p FROM generate_series(0, 30) b, generate_series(0, 30) c',
    );
    for (const r of rows) expect(r.p).toBeCloseTo(mcnemar(r.b, r.c), 10);
  });

  it('pass^k is C(c,k)/C(n,k): 0 with too few successes, 1 with all, none when k > n', async () => {
    expect((await q('SELECT all_k_succeed(0, 5, 1) AS p', [])).p).toBe(0);
    expect((await q('SELECT all_k_succeed(5, 5, 5) AS p', [])).p).toBeCloseTo(1, 12);
    expect((await q('SELECT all_k_succeed(3, 5, 4) AS p', [])).p).toBe(0);
    expect((await q('SELECT all_k_succeed(3, 5, 6) AS p', [])).p).toBeNull();
    expect((await q('SELECT all_k_succeed(0, 0, 1) AS p', [])).p).toBeNull();
    const { rows } = await db.pool.query(
      'SELECT c, n, k, all_k_succeed(c, n, k) AS p FROM generate_series(1, 12) n, generate_series(0, ' +
        '12) c, generate_series(1, 12) k WHERE c <= n AND k <= n',
    );
    for (const r of rows) expect(r.p).toBeCloseTo(allKSucceed(r.c, r.n, r.k), 10);
  });
});

describe('statistics by factor (ariadne stats)', () => {
  const FACTORS = `sweep: factor-test
agents:
  - { agent: random }
  - { agent: frontier }
mazes:
  generators: [medium]
  sizes: [11]
  seeds: [3]
settings:
  vision_range: [2, 3]
  success_rule: [seen, reached]
config:
  max_moves: 400
repeats: 3
max_concurrency: 4
`;
  beforeAll(async () => {
    await runLocalSweep(loadSweep(FACTORS, 'test'), { db });
  }, 120_000);

  it('groups by the label and every setting varied; each group counts its runs from the snapshots', async () => {
    expect(await varyingFactors(db, 'factor-test')).toEqual(['label', 'vision_range', 'success_rule']);
    const rows = await factorStats(db, 'factor-test', ['label', 'vision_range']);
    const runs = (
      await db.pool.query(
        `SELECT r.label, e.config->>'vision_range' AS vision_range, r.goal_found, r.independent
         FROM sweep_runs r JOIN experiments e ON e.id = r.experiment_id WHERE r.sweep_id = 'factor-test'`,
      )
    ).rows;
    expect(rows.map((r) => [r.label, r.vision_range, r.n])).toEqual([
      ['frontier', '2', 6],
      ['frontier', '3', 6],
      ['random', '2', 6],
      ['random', '3', 6],
    ]);
    for (const row of rows) {
      const group = runs.filter((r) => r.label === row.label && r.vision_range === row.vision_range);
      const independent = group.filter((r) => r.independent);
      const k = independent.filter((r) => r.goal_found).length;
      expect([row.successes, row.n_independent]).toEqual([
        group.filter((r) => r.goal_found).length,
        independent.length,
      ]);
      const [low, high] = wilson(k, independent.length);
      expect(row.success_low95).toBeCloseTo(low, 4);
      expect(row.success_high95).toBeCloseTo(high, 4);
    }
    // frontier is deterministic: its 3 repeats of a cell are one observation
    expect(rows[0].n_independent).toBe(2);
  });

  it('observation x memory x two simulated models: each run snapshots its cell, stats groups by factor', async () => {
    const sim = new OllamaSim({ models: ['qwen2.5:7b', 'llama3.2:3b'] });
    const host = await sim.listen();
    try {
      const text = `sweep: llm-factors
agents:
  - { agent: ollama, model: "qwen2.5:7b" }
  - { agent: ollama, model: "llama3.2:3b" }
mazes: { generators: [medium], sizes: [9], seeds: [4] }
settings:
  observation: [rays, local_grid]
  memory: [fresh, history]
config: { max_moves: 60, ollama: { host: "${host}" } }
repeats: 1
max_concurrency: 4
`;
      const result = await runLocalSweep(loadSweep(text, 'test'), { db });
      expect([result.done, result.failed]).toEqual([8, 0]);
      const snapshots = (
        await db.pool.query(
          `SELECT e.config->>'observation' AS observation, e.config->>'memory' AS memory, c.settings
           FROM experiments e JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
           WHERE e.sweep_id = 'llm-factors'`,
        )
      ).rows;
      expect(snapshots).toHaveLength(8);
      for (const r of snapshots) expect({ observation: r.observation, memory: r.memory }).toEqual(r.settings);
      expect(await varyingFactors(db, 'llm-factors')).toEqual(['label', 'observation', 'memory']);
      for (const [factor, values] of [
        ['label', ['llama3.2:3b', 'qwen2.5:7b']],
        ['observation', ['local_grid', 'rays']],
        ['memory', ['fresh', 'history']],
      ] as const) {
        const rows = await factorStats(db, 'llm-factors', [factor]);
        expect(rows.map((r) => [r[factor], r.n])).toEqual(values.map((v) => [v, 4]));
      }
    } finally {
      await sim.close();
    }
  }, 180_000);

  it('the stats command prints the table; an unknown factor is refused naming the factors there are', async () => {
    const env = { DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema };
    // --wide: every column, the ones a 100-column table leaves out too (test/cli-tables.test.ts has those)
    const table = await outputOf(ariadneProcess(['stats', 'factor-test', '--by', 'success_rule', '--wide'], env));
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^sweep factor-test by success_rule\n/);
    // runs, n (successes + failures), errors, running: every run of a group finished
    expect(table.stdout).toMatch(/^reached +\| +12 \| +12 \| +0 \| +0 \|/m);
    // the notes under the table are wrapped to 100 columns
    expect(table.stdout.replace(/\s+/g, ' ')).toContain(
      'errors (ended by infrastructure), wall_clock (stopped by max_duration_minutes: the serving stack decided ' +
        'them) and running runs are in no denominator',
    );
    const typo = await outputOf(ariadneProcess(['stats', 'factor-test', '--by', 'label,vision'], env));
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/--by vision: not a factor; use any of label, .*vision_range/);
  });
});

describe('sweep files', () => {
  const broken: Array<[string, string, RegExp]> = [
    [
      'an unknown generator',
      SWEEP.replace('[medium, rooms_and_corridors]', '[medium, labyrinth]'),
      /^mazes\.generators\[1\] \(line 6\): /,
    ],
    [
      'an even size for an odd-size generator',
      SWEEP.replace('[medium, rooms_and_corridors]', '[perfect]').replace('[15, 21]', '[15, 20]'),
      /^mazes\.sizes\[1\] \(line 7\): perfect 20: generator "perfect" needs an odd width, got 20; use 19 or 21/,
    ],
    [
      'a bad config value',
      SWEEP.replace('max_moves: 600', 'max_moves: -3'),
      /^config\.max_moves \(line 10\): max_moves: /,
    ],
    [
      'a bad setting',
      SWEEP.replace('config:', 'settings:\n  vision_range: [3, 99]\nconfig:'),
      /^settings\.vision_range \(line 10\): vision_range: /,
    ],
    ['an unknown key', SWEEP.replace('repeats: 5', 'repeat: 5'), /^repeat \(line 12\): Unrecognized key/],
    [
      'pictures for a baseline',
      SWEEP.replace('config:', 'settings:\n  observation: [rays, image]\nconfig:'),
      /^settings\.observation \(line 10\): config\.observation "image" is for model agents .* the random baseline/,
    ],
    [
      'an LLM agent without a model',
      SWEEP.replace('{ agent: random }', '{ agent: ollama }'),
      /^agents\[0\]\.model \(line 3\): /,
    ],
  ];
  it.each(broken)('%s is reported with its YAML path', (_what, text, expected) => {
    let error: unknown;
    try {
      loadSweep(text, 'test');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SweepDefinitionError);
    const e = error as SweepDefinitionError;
    expect(`${e.where}: ${e.problem}`).toMatch(expected);
  });

  it('a sweep name keeps its meaning: a changed spec (not growth) is refused before anything runs', async () => {
    const changed = loadSweep(SWEEP.replace('repeats: 5', 'repeats: 4'), 'test');
    await expect(runLocalSweep(changed, { db })).rejects.toThrow(
      /sweep "kill-test" already exists with a different spec \(repeats fell from 5 to 4\)/,
    );
    expect(await count("SELECT count(*) AS n FROM experiments WHERE sweep_id = 'kill-test'")).toBe(40);
  });
});

describe('a sweep on AWS at scale', () => {
  it('10,000 runs: the run list object holds them all, the sweep machine input stays far under 256 KiB', () => {
    // 2 agents x 1 generator x 1 size x 1,000 seeds x 5 repeats
    const seeds = Array.from({ length: 1_000 }, (_, i) => i).join(', ');
    const text = `sweep: ten-thousand
agents:
  - { agent: random }
  - { agent: frontier }
mazes:
  generators: [perfect]
  sizes: [21]
  seeds: [${seeds}]
repeats: 5
max_concurrency: 500
`;
    const sweep = loadSweep(text, 'test');
    const launch = sweepLaunch(sweep, 'ariadne-sweeps-bucket', 200);
    const input = JSON.stringify(launch.input);
    expect(Buffer.byteLength(input)).toBeLessThan(256 * 1024);
    // the spec is most of it; no run travels in the input
    expect(Buffer.byteLength(input)).toBeLessThan(Buffer.byteLength(text) + 1024);
    expect(launch.input).toEqual({
      sweep: { id: 'ten-thousand', specText: text },
      runsObject: {
        bucket: 'ariadne-sweeps-bucket',
        key: expect.stringMatching(/^runs\/ten-thousand\/[0-9a-f]{16}\.json$/),
      },
      maxConcurrency: 200,
    });
    expect(launch.runsObject).toMatchObject(launch.input.runsObject);
    // the object the Map's ItemReader reads: a JSON array of every run, each a valid experiment input named by its id
    const items = JSON.parse(launch.runsObject.body) as Array<{ name: string; input: unknown }>;
    expect(items).toHaveLength(10_000);
    expect(launch.runs).toBe(10_000);
    expect(new Set(items.map((i) => i.name)).size).toBe(10_000);
    for (const item of items) {
      const parsed = startRequestSchema.parse(item.input);
      expect(parsed.experimentId).toBe(item.name);
      expect(parsed.taskToken).toBeUndefined(); // the sweep machine adds its own per iteration
    }
    // all of it in the input, as before, could never start
    expect(Buffer.byteLength(launch.runsObject.body)).toBeGreaterThan(256 * 1024);
    // the same runs are the same object: uploading again overwrites it with itself
    expect(sweepLaunch(sweep, 'ariadne-sweeps-bucket').runsObject.key).toBe(launch.runsObject.key);
    expect(sweepLaunch(sweep, 'ariadne-sweeps-bucket').input.maxConcurrency).toBe(500);
  });
});
