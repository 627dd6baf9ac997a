// The pairs of two agents (results/sweep-pairs.ts agentPairRows), computed from the two labels' runs read once, are
// migration 011's sweep_run_pairs rows, in its order, and the run pairs left out are those its self-join of
// sweep_runs counts: on a sweep with deterministic copies (frontier under a setting it ignores, and its repeats), a
// model-like agent whose repeats walk alike, errors (one retried to success), a run left running, a varied setting
// and repeats; over pg and the Data API, and in pages of a few rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { baselineAgents } from '../core/providers/baselines.ts';
import { frontierAgent } from '../core/providers/frontier-agent.ts';
import type { AgentFactory } from '../core/engine/agent.ts';
import { ResultTooLargeError, type QueryOptions, type Sql, type SqlValue } from '../core/store/sql.ts';
import { agentPairRows } from '../results/sweep-pairs.ts';
import { agentPairs, splitSimulated, type PairRun } from '../results/pair-runs.ts';
import { compareAgents } from '../reports/compare.ts';
import { TRANSPORTS, testDatabase, type TestDatabase } from './support/db.ts';

const SWEEP = 'pairs-fast';
const TEXT = `sweep: ${SWEEP}
agents:
  - { agent: frontier }
  - { agent: frontier, label: frontier-v2, config: { vision_range: 2 } }
  - { agent: random }
  - { agent: ollama, model: stand-in }
mazes: { generators: [medium], sizes: [9], seeds: [1, 2] }
settings: { observation: [rays, local_grid] }
config: { max_moves: 30 }
repeats: 3
`;
// cells 0-3 frontier, 4-7 frontier-v2, 8-11 random, 12-15 stand-in (seed 1 rays, seed 1 local_grid, seed 2 ...):
// cell 1 repeat 1 fails at every attempt; cell 9 repeat 1 and cell 13 repeat 0 fail once, then end on the retry
const ALWAYS_FAILS = `${SWEEP}-c1-r1`;
const FAILS_ONCE = [`${SWEEP}-c9-r1`, `${SWEEP}-c13-r0`];
const RUNNING = `${SWEEP}-c14-r2`;

/** "ollama" answered by a stand-in that walks as frontier does (a model caller: never deterministic). */
const agents: AgentFactory = (identity) => {
  if (identity.experimentId.startsWith(ALWAYS_FAILS) || FAILS_ONCE.includes(identity.experimentId))
    return { act: () => Promise.reject(new Error('HTTP 500 from the model server')) };
  return identity.agent === 'ollama' ? { ...frontierAgent(), callsModel: true } : baselineAgents(identity);
};

/** The view's rows for the two labels, as agentPairRows read them before, in the view's order. */
async function viewRows(db: Sql, first: string, second: string) {
  const { rows } = await db.query(
    `SELECT experiment_a, experiment_b, maze_generator || ' ' || maze_size || ' ' || maze_seed AS maze, settings,
            ok_a, ok_b, eff_a::float8 AS eff_a, eff_b::float8 AS eff_b, run_pairs::int AS run_pairs,
            identical_a, identical_b, model_a, model_b
     FROM sweep_run_pairs WHERE sweep_id = $1 AND label_a = $2 AND label_b = $3 ORDER BY experiment_a, experiment_b`,
    [SWEEP, first, second],
  );
  return rows;
}

/** The run pairs the view's self-join of sweep_runs leaves out, a side in error or (else) running. */
async function viewLeftOut(db: Sql, first: string, second: string) {
  const { rows } = await db.query<{ errors: number; wallClock: number; running: number }>(
    `SELECT (count(*) FILTER (WHERE 'error' IN (x.outcome_class, y.outcome_class)))::int AS errors,
            (count(*) FILTER (WHERE 'wall_clock' IN (x.outcome_class, y.outcome_class)
                                AND 'error' NOT IN (x.outcome_class, y.outcome_class)))::int AS "wallClock",
            (count(*) FILTER (WHERE 'running' IN (x.outcome_class, y.outcome_class)
                                AND 'error' NOT IN (x.outcome_class, y.outcome_class)
                                AND 'wall_clock' NOT IN (x.outcome_class, y.outcome_class)))::int AS running
     FROM sweep_runs x JOIN sweep_runs y ON y.sweep_id = x.sweep_id AND y.label = $3
       AND y.maze_generator = x.maze_generator AND y.maze_size = x.maze_size AND y.maze_seed = x.maze_seed
       AND y.settings::text = x.settings::text AND y.repeat = x.repeat
     WHERE x.sweep_id = $1 AND x.label = $2`,
    [SWEEP, first, second],
  );
  return rows[0];
}

/** A transport that answers at most `rows` rows a response, as the Data API answers at most 1 MiB. */
const smallPages = (db: Sql, rows: number): Sql => ({
  async query<R extends object>(text: string, values?: readonly SqlValue[], options?: QueryOptions) {
    const result = await db.query<R>(text, values, options);
    if (result.rows.length > rows) throw new ResultTooLargeError(`${result.rows.length} rows, over ${rows}`);
    return result;
  },
});

const LABELS = ['frontier', 'frontier-v2', 'random', 'stand-in'];
const LABEL_PAIRS = LABELS.flatMap((a, i) => LABELS.slice(i + 1).map((b) => [a, b] as const));

describe.each(TRANSPORTS)('agent pairs over %s', (transport) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase({ transport });
    const spec = loadSweep(TEXT, 'test');
    await runLocalSweep(spec, { db, concurrency: 4, agents });
    await runLocalSweep(spec, { db, concurrency: 4, agents }); // retries the failed runs
    await db.query("UPDATE experiments SET status = 'running', completed_at = NULL WHERE id = $1", [RUNNING]);
  }, 180_000);
  afterAll(async () => {
    await db?.drop();
  });

  it('has what the pairs must get right: copies, identical repeats, errors, a running run, settings', async () => {
    const all = await Promise.all(LABEL_PAIRS.map(([a, b]) => viewRows(db, a, b)));
    const rows = all.flat();
    expect(rows.some((r) => r.run_pairs > 1)).toBe(true);
    expect(rows.some((r) => r.identical_b)).toBe(true);
    expect(rows.some((r) => Object.keys(r.settings as object).length > 0)).toBe(true);
    expect(rows.some((r) => Object.keys(r.settings as object).length === 0)).toBe(true);
    expect(rows.some((r) => r.ok_a !== r.ok_b)).toBe(true);
    const left = await Promise.all(LABEL_PAIRS.map(([a, b]) => viewLeftOut(db, a, b)));
    expect(left.some((l) => l.errors > 0)).toBe(true);
    expect(left.some((l) => l.running > 0)).toBe(true);
    const { rows: retried } = await db.query(
      "SELECT count(*)::int AS n FROM sweep_runs WHERE sweep_id = $1 AND attempt > 1 AND outcome_class <> 'error'",
      [SWEEP],
    );
    expect(retried[0].n).toBeGreaterThan(0);
  });

  it.each(LABEL_PAIRS)(
    'gives the view’s pairs of %s and %s, in its order, and the pairs it leaves out',
    async (a, b) => {
      const view = await viewRows(db, a, b);
      const left = await viewLeftOut(db, a, b);
      expect(view.length).toBeGreaterThan(0);
      const fast = await agentPairRows(db, SWEEP, a, b);
      expect(fast.rows).toEqual(view);
      expect(JSON.stringify(fast.rows), 'the same keys in the same order').toBe(JSON.stringify(view));
      expect(fast.left).toEqual(left);
      // in pages of 5 rows (each page read after the one before it): the same
      expect(await agentPairRows(smallPages(db, 5), SWEEP, a, b)).toEqual(fast);
    },
  );

  it('never pools simulated and real runs of one label: a label with both is split by them', () => {
    const run = (label: string, repeat: number, simulated: boolean): PairRun => ({
      experiment_id: `${label}-${repeat}`,
      label,
      cell_index: 0,
      repeat,
      maze: 'medium 9 1',
      settings_key: '{}',
      factor_settings: {},
      observation: `${label}-${repeat}`,
      outcome_class: 'success',
      goal_found: true,
      efficiency: 1,
      identical_repeat: false,
      deterministic: false,
      id_order: repeat,
      answered: true,
      simulated,
    });
    const mixed = [run('a', 1, true), run('a', 2, false), run('b', 1, false), run('b', 2, false)];
    const settings = agentPairs(
      splitSimulated(mixed, (r) => r.label),
      'a',
      'b',
    ).rows.map((r) => r.settings);
    expect(settings).toEqual([{ 'simulated (a)': true }, { 'simulated (a)': false }]);
    // all of one kind: nothing to split
    const real = [run('a', 1, false), run('a', 2, false), run('b', 1, false)];
    expect(
      agentPairs(
        splitSimulated(real, (r) => r.label),
        'a',
        'b',
      ).rows.map((r) => r.settings),
    ).toEqual([{}]);
  });

  it('merges the two sides’ settings as jsonb’s || does, in its key order', async () => {
    const run = (label: string, factor_settings: Record<string, unknown>): PairRun => ({
      experiment_id: label,
      label,
      cell_index: 0,
      repeat: 0,
      maze: 'medium 9 1',
      settings_key: '{}',
      factor_settings,
      observation: label,
      outcome_class: 'success',
      goal_found: true,
      efficiency: 1,
      identical_repeat: false,
      deterministic: false,
      id_order: 1,
    });
    // an Ollama model beside a Bedrock one: each has a section the other's agent is not reached by
    const a = { ollama: { num_ctx: 4096 }, temperature: 0.5, observation: 'rays' };
    const b = { context_windows: { m: 8 }, bedrock: { region: 'eu-west-1' }, temperature: 0 };
    const { rows } = await db.query('SELECT $1::jsonb || $2::jsonb AS settings', [
      JSON.stringify(a),
      JSON.stringify(b),
    ]);
    const [pair] = agentPairs([run('a', a), run('b', b)], 'a', 'b').rows;
    expect(JSON.stringify(pair.settings)).toBe(JSON.stringify(rows[0].settings));
  });

  it('compares from those pairs: as many pairs and copied pairs as the view has', async () => {
    const c = await compareAgents(db, SWEEP, 'frontier-v2', 'frontier');
    const view = await viewRows(db, 'frontier', 'frontier-v2');
    expect(view.some((r) => r.run_pairs > 1)).toBe(true);
    expect(c.groups.reduce((s, g) => s + g.pairs, 0)).toBe(view.length);
    expect(c.groups.reduce((s, g) => s + g.copiedPairs, 0)).toBe(view.reduce((s, r) => s + Number(r.run_pairs) - 1, 0));
  });
});
