// The worked example of the statistics in docs/sweeps-and-statistics.md: a 2x2
// sweep, a baseline (frontier) and a model (through the Ollama simulator) x observation [rays, local_grid], three
// mazes, two repeats. One model run ends in error (its agent fails) and one is left running (as a killed sweep
// leaves it). Then the same runs in a database built at migration 010, upgraded in place by 011.
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { agents } from '../core/providers/agents.ts';
import type { AgentFactory } from '../core/engine/agent.ts';
import { DEFAULT_CONFIG } from '../core/config/experiment-config.ts';
import { openDatabase, type Database } from '../core/store/database.ts';
import { loadMigrations, migrate } from '../core/store/migrate.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import type { Fault } from '../simulators/sim-server.ts';
import { sweepStatistics, type GroupStatistics } from '../reports/sweep-statistics.ts';
import { compareAgents, compareSettings } from '../reports/compare.ts';
import { LISTED_SETTINGS, settingReaches } from '../reports/setting-reach.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { ariadneProcess, outputOf } from './support/cli.ts';
import { allKSucceed, signFlip, wilson } from './support/reference-statistics.ts';

const SWEEP = 'stats-2x2';
// cells: frontier 0-5, qwen2.5:7b 6-11, each (seed 1 rays, seed 1 local_grid, seed 2 rays, ...)
const ERROR_RUN = `${SWEEP}-c6-r2`; // qwen, seed 1, rays, repeat 2: its agent fails (an error, not a failure)
const RUNNING_RUN = `${SWEEP}-c9-r1`; // qwen, seed 2, local_grid, repeat 1: left running

let db: TestDatabase;
let sim: OllamaSim;
beforeAll(async () => {
  db = await testDatabase(8);
  // every third reply writes its tool call as JSON in the text: recovered by lenient parsing
  const faults: Fault[] = Array.from({ length: 100 }, (_, i) =>
    i % 3 === 0 ? { kind: 'text-embedded' } : { kind: 'slow', ms: 0 },
  );
  sim = new OllamaSim({ models: ['qwen2.5:7b'], faults });
  const host = await sim.listen();
  const failing: AgentFactory = (identity) =>
    identity.experimentId.startsWith(ERROR_RUN)
      ? { act: () => Promise.reject(new Error('HTTP 500 from the model server')) }
      : agents(identity);
  const text = `sweep: ${SWEEP}
agents:
  - { agent: frontier }
  - { agent: ollama, model: "qwen2.5:7b" }
mazes: { generators: [medium], sizes: [11], seeds: [1, 2, 3] }
settings: { observation: [rays, local_grid] }
config: { max_moves: 40, ollama: { host: "${host}" } }
repeats: 2
`;
  await runLocalSweep(loadSweep(text, 'test'), { db, concurrency: 1, agents: failing });
  await db.pool.query("UPDATE experiments SET status = 'running', completed_at = NULL WHERE id = $1", [RUNNING_RUN]);
}, 180_000);
afterAll(async () => {
  await sim?.close();
  await db?.drop();
});

const rows = async (sql: string, params: unknown[] = [SWEEP]) => (await db.pool.query(sql, params)).rows;
const groupOf = (groups: GroupStatistics[], label: string, observation: string) =>
  groups.find((g) => g.factors.label === label && g.factors.observation === observation)!;

describe('the settings that reach an agent', () => {
  it('are one list, in TypeScript and SQL alike, naming every setting of the config', async () => {
    expect(Object.keys(DEFAULT_CONFIG).filter((k) => !LISTED_SETTINGS.includes(k))).toEqual([]);
    const keys = [...LISTED_SETTINGS, 'a_setting_added_later'];
    for (const provider of ['baseline', 'ollama', 'bedrock', 'openai', 'human']) {
      const sql = await rows('SELECT k, setting_reaches($1, k) AS r FROM unnest($2::text[]) AS k', [provider, keys]);
      expect(Object.fromEntries(sql.map((r) => [r.k, r.r]))).toEqual(
        Object.fromEntries(keys.map((k) => [k, settingReaches(k, provider)])),
      );
    }
    expect([settingReaches('observation', 'baseline'), settingReaches('ollama.host', 'bedrock')]).toEqual([
      false,
      false,
    ]);
    expect([settingReaches('vision_range', 'baseline'), settingReaches('ollama.num_ctx', 'ollama')]).toEqual([
      true,
      true,
    ]);
  });
});

describe('the worked example: frontier and a model x observation [rays, local_grid]', () => {
  it('sweep_stats splits the model by observation; frontier (never reads it) is one row, each maze once', async () => {
    const stats = await rows(
      "SELECT * FROM sweep_stats WHERE sweep_id = $1 ORDER BY label, settings ->> 'observation'",
    );
    expect(stats.map((s) => [s.label, s.settings])).toEqual([
      ['frontier', {}],
      ['qwen2.5:7b', { observation: 'local_grid' }],
      ['qwen2.5:7b', { observation: 'rays' }],
    ]);
    const [frontier, grid, rays] = stats;
    // frontier: 12 runs, 3 mazes; its runs on one maze walk the same path under either format and every repeat
    expect(frontier).toMatchObject({ runs: 12, n: 12, n_independent: 3, deterministic_repeats: 9, errors: 0 });
    const paths = await rows(
      `SELECT maze_seed, count(DISTINCT trajectory_hash)::int AS paths FROM sweep_runs
       WHERE sweep_id = $1 AND label = 'frontier' GROUP BY maze_seed`,
    );
    expect(paths.map((p) => p.paths)).toEqual([1, 1, 1]);
    // the error is out of n and shown apart with its reason; the running run is in no count but runs and running
    expect(rays).toMatchObject({ runs: 6, n: 5, errors: 1, running: 0, n_independent: 5 });
    expect(rays.error_reasons).toEqual(['Error: HTTP 500 from the model server']);
    expect(grid).toMatchObject({ runs: 6, n: 5, errors: 0, running: 1, n_independent: 5 });
    for (const s of [grid, rays]) {
      const k = Number(s.successes_independent);
      const [low, high] = wilson(k, 5);
      expect([Number(s.success_low95), Number(s.success_high95)]).toEqual([
        expect.closeTo(low, 4),
        expect.closeTo(high, 4),
      ]);
      const [elow] = wilson(k, 5 + Number(s.errors));
      expect(Number(s.success_low95_if_errors_failed)).toBeCloseTo(elow, 4);
    }
  });

  it('the TypeScript statistics agree with the views, add the clustered bootstrap and the parse rate', async () => {
    const s = await sweepStatistics(db, SWEEP, { resamples: 1_000 });
    expect(s.factors).toEqual(['label', 'observation']);
    expect(s.groups.map((g) => [g.factors.label, g.factors.observation])).toEqual([
      ['frontier', 'n/a'],
      ['qwen2.5:7b', 'local_grid'],
      ['qwen2.5:7b', 'rays'],
    ]);
    const view = await rows('SELECT * FROM sweep_stats WHERE sweep_id = $1');
    for (const g of s.groups) {
      const v = view.find(
        (r) => r.label === g.factors.label && (r.settings.observation ?? 'n/a') === g.factors.observation,
      )!;
      expect([g.runs, g.n, g.successes, g.independent, g.independentSuccesses, g.errors, g.running]).toEqual(
        ['runs', 'n', 'successes', 'n_independent', 'successes_independent', 'errors', 'running'].map((c) =>
          Number(v[c]),
        ),
      );
      expect(g.identicalRepeats).toBe(Number(v.identical_repeats));
      expect(g.success.wilson.low).toBeCloseTo(Number(v.success_low95), 4);
      expect(g.success.wilson.high).toBeCloseTo(Number(v.success_high95), 4);
      expect(g.ifErrorsFailed.wilson.low).toBeCloseTo(Number(v.success_low95_if_errors_failed), 4);
      expect(g.efficiency.mean ?? null).toEqual(
        v.mean_efficiency === null ? null : expect.closeTo(Number(v.mean_efficiency), 4),
      );
      expect(g.mazes).toBe(3);
      // three mazes: too few for a bootstrap; the maze-level interval holds the rate, whatever it is
      expect(g.success.bootstrapStatus).toBe('too few mazes');
      expect(g.success.maze.mazes).toBe(3);
      expect(g.success.maze.low!).toBeLessThanOrEqual(g.success.rate!);
      expect(g.success.maze.high!).toBeGreaterThanOrEqual(g.success.rate!);
    }
    // identical repeats: model runs of a cell that walked the same path, counted from the trajectories
    const model = await rows(
      `SELECT cell_index, trajectory_hash, identical_repeat FROM sweep_runs
       WHERE sweep_id = $1 AND label = 'qwen2.5:7b' AND outcome_class IN ('success', 'failure')`,
    );
    for (const r of model)
      expect(r.identical_repeat).toBe(
        model.some((o) => o !== r && o.cell_index === r.cell_index && o.trajectory_hash === r.trajectory_hash),
      );
    // the parse rate: tool calls recovered from text over all tool calls of the group's counted runs
    for (const observation of ['rays', 'local_grid']) {
      const [c] = await rows(
        `SELECT count(*)::int AS calls, (count(*) FILTER (WHERE a.parsed_from_text))::int AS from_text
         FROM sweep_runs r JOIN actions a USING (experiment_id)
         WHERE r.sweep_id = $1 AND r.label = 'qwen2.5:7b' AND r.settings ->> 'observation' = $2
           AND r.outcome_class IN ('success', 'failure')`,
        [SWEEP, observation],
      );
      const g = groupOf(s.groups, 'qwen2.5:7b', observation);
      expect(c.from_text).toBeGreaterThan(0);
      expect(g.fromTextRate).toBeCloseTo(c.from_text / c.calls, 10);
    }
    expect(groupOf(s.groups, 'frontier', 'n/a').fromTextRate).toBeNull();
    // pass^k as the view computes it, split the same way
    const passK = await rows('SELECT * FROM sweep_pass_k WHERE sweep_id = $1');
    expect(passK.length).toBe(s.passK.length);
    for (const p of s.passK) {
      const v = passK.find(
        (r) =>
          r.label === p.factors.label && (r.settings.observation ?? 'n/a') === p.factors.observation && r.k === p.k,
      )!;
      expect([p.cells, p.deterministicCells]).toEqual([Number(v.cells), Number(v.deterministic_cells)]);
      expect(p.passK).toBeCloseTo(Number(v.pass_k), 4);
    }
    // frontier's pass^k: one observation per maze, its outcome for every k
    const frontierRuns = await rows(
      "SELECT maze_seed, goal_found FROM sweep_runs WHERE sweep_id = $1 AND label = 'frontier' AND independent",
    );
    const flat = frontierRuns.filter((r) => r.goal_found).length / 3;
    for (const p of s.passK.filter((x) => x.factors.label === 'frontier'))
      expect([p.cells, p.passK]).toEqual([3, expect.closeTo(flat, 10)]);
    const grid = s.passK.find((p) => p.factors.observation === 'local_grid' && p.k === 1)!;
    const cells = await rows(
      `SELECT cell_index, count(*) FILTER (WHERE goal_found)::int AS c, count(*)::int AS n FROM sweep_runs
       WHERE sweep_id = $1 AND label = 'qwen2.5:7b' AND settings ->> 'observation' = 'local_grid' AND independent
       GROUP BY cell_index`,
    );
    expect(grid.passK).toBeCloseTo(cells.reduce((t, c) => t + allKSucceed(c.c, c.n, 1), 0) / cells.length, 10);
  });

  it('pairs and compare split by observation; a pair with an error or a running side is left out', async () => {
    const pairs = await rows("SELECT * FROM sweep_pairs WHERE sweep_id = $1 ORDER BY settings ->> 'observation'");
    expect(pairs.map((p) => [p.label_a, p.label_b, p.settings, Number(p.pairs)])).toEqual([
      ['frontier', 'qwen2.5:7b', { observation: 'local_grid' }, 5],
      ['frontier', 'qwen2.5:7b', { observation: 'rays' }, 5],
    ]);
    const c = await compareAgents(db, SWEEP, 'qwen2.5:7b', 'frontier');
    expect(c.groups.map((g) => [g.settings, g.pairs, g.mazes])).toEqual([
      [{ observation: 'local_grid' }, 5, 3],
      [{ observation: 'rays' }, 5, 3],
    ]);
    for (const g of c.groups) {
      const v = pairs.find((p) => p.settings.observation === g.settings.observation)!;
      expect([g.onlyA, g.onlyB, g.mazes]).toEqual([Number(v.only_b), Number(v.only_a), Number(v.mazes)]);
      // the test at the level of the maze: each maze's pairs summed, then every sign assignment enumerated
      const perMaze = await rows(
        `SELECT (count(*) FILTER (WHERE ok_b AND NOT ok_a) - count(*) FILTER (WHERE ok_a AND NOT ok_b))::int AS d
         FROM sweep_run_pairs WHERE sweep_id = $1 AND settings ->> 'observation' = $2 GROUP BY maze_seed`,
        [SWEEP, g.settings.observation],
      );
      expect(g.test.p).toBeCloseTo(signFlip(perMaze.map((m) => m.d)), 12);
      expect(g.test.p).toBeGreaterThanOrEqual(0.25); // 3 mazes: 2 / 2^3 at the least
    }
    expect(c.notes).toContain(
      '2 pairs of runs left out: a side ended in error (1), was stopped by the wall clock (0) or is still running (1)',
    );
  });

  it('compare --agent --factor: rays vs local_grid on the same maze and repeat, tested over mazes', async () => {
    const c = await compareSettings(db, SWEEP, 'qwen2.5:7b', 'observation', 'rays', 'local_grid');
    expect(c.groups).toHaveLength(1);
    const g = c.groups[0];
    // 3 mazes x 2 repeats, less the error (seed 1, repeat 2) and the running run (seed 2, repeat 1)
    expect([g.settings, g.pairs, g.mazes, g.copiedPairs]).toEqual([{}, 4, 3, 0]);
    const runs = await rows(
      `SELECT maze_seed, repeat, settings ->> 'observation' AS o, goal_found FROM sweep_runs
       WHERE sweep_id = $1 AND label = 'qwen2.5:7b' AND outcome_class IN ('success', 'failure')`,
    );
    const ok = (seed: number, repeat: number, o: string) =>
      runs.find((r) => Number(r.maze_seed) === seed && r.repeat === repeat && r.o === o)?.goal_found as boolean;
    let onlyA = 0,
      onlyB = 0,
      both = 0;
    const perMaze: number[] = [];
    for (const seed of [1, 2, 3]) {
      let d = 0;
      for (const repeat of [1, 2]) {
        const [a, b] = [ok(seed, repeat, 'rays'), ok(seed, repeat, 'local_grid')];
        if (a === undefined || b === undefined) continue;
        if (a && !b) onlyA++;
        if (b && !a) onlyB++;
        if (a && b) both++;
        d += Number(a) - Number(b);
      }
      perMaze.push(d);
    }
    expect([g.onlyA, g.onlyB, g.bothSolved]).toEqual([onlyA, onlyB, both]);
    expect(g.test.p).toBeCloseTo(signFlip(perMaze), 12);
    expect(g.successDiff.diff).toBeCloseTo((onlyA - onlyB) / 4, 12);
    expect(await compareSettings(db, SWEEP, 'qwen2.5:7b', 'observation', 'rays', 'local_grid')).toEqual(c);
    await expect(compareSettings(db, SWEEP, 'frontier', 'observation', 'rays', 'local_grid')).rejects.toThrow(
      /"observation" does not reach agent "frontier" \(a baseline agent\)/,
    );
    await expect(compareSettings(db, SWEEP, 'qwen2.5:7b', 'memory', 'fresh', 'history')).rejects.toThrow(
      /does not vary "memory"; the settings it varies are: observation/,
    );
  });

  it('ariadne stats and compare print it: n/a where a setting does not reach, errors with reasons', async () => {
    const env = { DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema };
    const stats = await outputOf(ariadneProcess(['stats', SWEEP, '--resamples', '500', '--wide'], env));
    expect(stats.code).toBe(0);
    expect(stats.stdout).toMatch(/^frontier +\| n\/a +\| +12 \| +12 \| +0 \| +0 \| +3 \| +- \|/m);
    expect(stats.stdout).toMatch(/^qwen2\.5:7b \| rays +\| +6 \| +5 \| +1 \| +0 \| +5 \|/m);
    expect(stats.stdout).toContain('qwen2.5:7b | rays: 1 error: Error: HTTP 500 from the model server (1)');
    const compare = await outputOf(
      ariadneProcess(['compare', SWEEP, '--agent', 'qwen2.5:7b', '--factor', 'observation', 'rays', 'local_grid'], env),
    );
    expect(compare.code).toBe(0);
    expect(compare.stdout).toMatch(/^qwen2\.5:7b: observation rays vs local_grid in sweep stats-2x2/);
    expect(compare.stdout).toContain('all runs: 4 pairs on 3 mazes');
  });
});

describe('a database from before (migration 010) upgraded in place', () => {
  let old: Database;
  const schema = () => `${db.schema}_m10`;
  beforeAll(async () => {
    old = await openDatabase({
      url: inject('databaseUrl'),
      schema: schema(),
      poolSize: 2,
      migrate: false,
      field: 'TEST_DATABASE_URL',
    });
    const all = await loadMigrations();
    await migrate(old, { schema: schema(), migrations: all.filter((m) => m.version <= 10) });
    // the same runs, as 010 stored them: every column 010 has, copied from the database above
    for (const table of ['mazes', 'sweeps', 'sweep_cells', 'experiments', 'turns', 'actions', 'llm_calls']) {
      const cols = (
        await old.query<{ c: string }>(
          'SELECT column_name AS c FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
          [schema(), table],
        )
      ).rows.map((r) => `"${r.c}"`);
      // 010 kept a maze as jsonb rows: read back from the packed cells (migration 014's maze_grid)
      const from = cols.map((c) => (c === '"grid"' ? `"${db.schema}".maze_grid(cells, width, height)` : c));
      await old.query(
        `INSERT INTO "${schema()}".${table} (${cols.join(', ')})
         SELECT ${from.join(', ')} FROM "${db.schema}".${table}`,
      );
    }
  }, 60_000);
  afterAll(async () => {
    await old?.query(`DROP SCHEMA IF EXISTS "${schema()}" CASCADE`);
    await old?.close();
  });

  it('keeps every run as it was, re-splits what 010 pooled, and takes the error out of n', async () => {
    // 010's sweep_runs rounded efficiency to 4 places, 011's keeps it whole (pages round once): the same value
    const perRun = `SELECT experiment_id, label, status, goal_found, actions, round(efficiency::numeric, 4)::float8
                      AS efficiency, optimal_moves
                    FROM sweep_runs WHERE sweep_id = $1 ORDER BY experiment_id`;
    const runsBefore = (await old.query(perRun, [SWEEP])).rows;
    const before = (await old.query('SELECT * FROM sweep_stats WHERE sweep_id = $1 ORDER BY label', [SWEEP])).rows;
    // 010 pooled the model's two formats into one row, counted the error and the running run in n, and counted
    // frontier once per format (its config snapshots differ)
    expect(before.map((s) => [s.label, Number(s.n), Number(s.n_independent)])).toEqual([
      ['frontier', 12, 6],
      ['qwen2.5:7b', 12, 12],
    ]);
    const applied = await migrate(old, { schema: schema() });
    expect(applied[0]).toBe('011_valid_statistics.sql');
    expect((await old.query(perRun, [SWEEP])).rows).toEqual(runsBefore);
    // the trajectory hashes backfilled are those written when the runs finished
    const hashes = `SELECT id, trajectory_hash FROM experiments
                    WHERE sweep_id = $1 AND status <> 'running' ORDER BY id`;
    const backfilled = (await old.query(hashes, [SWEEP])).rows;
    expect(backfilled.every((r) => typeof r.trajectory_hash === 'string')).toBe(true);
    expect(backfilled).toEqual(await rows(hashes));
    const after = (
      await old.query("SELECT * FROM sweep_stats WHERE sweep_id = $1 ORDER BY label, settings ->> 'observation'", [
        SWEEP,
      ])
    ).rows;
    expect(after.map((s) => [s.label, s.settings, Number(s.n), Number(s.n_independent), Number(s.errors)])).toEqual([
      ['frontier', {}, 12, 3, 0],
      ['qwen2.5:7b', { observation: 'local_grid' }, 5, 5, 0],
      ['qwen2.5:7b', { observation: 'rays' }, 5, 5, 1],
    ]);
    // the successes are the same runs: split, not changed
    expect(Number(after[1].successes) + Number(after[2].successes)).toBe(
      runsBefore.filter((r) => r.label === 'qwen2.5:7b' && r.goal_found && !['running', 'failed'].includes(r.status))
        .length,
    );
    expect(Number(after[0].successes)).toBe(Number(before[0].successes));
    expect(Number(after[0].success_rate)).toBeCloseTo(Number(before[0].success_rate), 4);
    expect(after).toEqual(
      await rows("SELECT * FROM sweep_stats WHERE sweep_id = $1 ORDER BY label, settings ->> 'observation'"),
    );
  });
});
