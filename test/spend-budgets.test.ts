// Budgets: a run's max_tokens and max_cost_usd end it cleanly (status timeout, its own stop
// reason) before the model call that would start past them, with every turn whole and the spend kept equal to its
// turns'; a sweep's budget stops it starting runs and says why; a cost budget without a price is refused at start.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { OpenAISim } from '../simulators/openai-sim.ts';
import { testDatabase, TRANSPORTS, type TestDatabase } from './support/db.ts';
import { FAST_RETRY } from './support/provider-sims.ts';
import { cli } from './support/cli.ts';
import { tempDir } from './support/temp-dir.ts';
import { estimateSweepSpend } from '../reports/spend-estimate.ts';

const sim = new OpenAISim();
let baseUrl = '';
beforeAll(async () => {
  baseUrl = `${await sim.listen()}/v1`;
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.replies.length = 0;
});

const MAZE = { generator: 'medium', size: 15, seed: 3 };
const PRICE = { 'gpt-4.1-mini': { input_per_mtok: 0.4, output_per_mtok: 1.6 } };

describe.each(TRANSPORTS)('a run budget over %s', (transport) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase({ transport });
  });
  afterAll(async () => {
    await db.drop();
  });
  const run = (config: Record<string, unknown>) =>
    runLocalExperiment(
      {
        agent: 'openai',
        model: 'gpt-4.1-mini',
        maze: MAZE,
        config: { openai: { base_url: baseUrl }, retry: FAST_RETRY, max_moves: 500, ...config },
      },
      { db },
    );
  const calls = async (id: string | null) =>
    (
      await db.pool.query<{ tokens: number; cost: number; turn_number: number }>(
        `SELECT l.turn_number, (coalesce(l.input_tokens, 0) + coalesce(l.output_tokens, 0)
                + coalesce(l.cache_read_input_tokens, 0))::int AS tokens
         FROM llm_calls l WHERE l.experiment_id = $1 ORDER BY l.turn_number, l.call_index`,
        [id],
      )
    ).rows;
  const experiment = async (id: string | null) =>
    (
      await db.pool.query(
        `SELECT e.status, e.stop_reason, e.goal_found, e.spent_tokens::float8 AS spent_tokens,
                e.spent_cost_usd::float8 AS spent_cost_usd,
                (SELECT sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0)
                            + coalesce(cache_read_input_tokens, 0) + coalesce(cache_write_input_tokens, 0))::float8
                 FROM turns t WHERE t.experiment_id = e.id) AS turn_tokens,
                (SELECT sum(cost_usd)::float8 FROM turns t WHERE t.experiment_id = e.id) AS turn_cost,
                (SELECT stop_reason FROM turns t WHERE t.experiment_id = e.id ORDER BY turn_number DESC LIMIT 1)
                  AS last_turn_stop
         FROM experiments e WHERE e.id = $1`,
        [id],
      )
    ).rows[0];

  it('max_tokens: the run ends as timeout/max_tokens before the call that would start past it', async () => {
    const { experimentId } = await run({ max_tokens: 3000 });
    const e = await experiment(experimentId);
    expect(e).toMatchObject({ status: 'timeout', stop_reason: 'max_tokens', goal_found: false });
    expect(e.last_turn_stop).toBe('max_tokens');
    // the spend kept is its turns' spend, and what the calls reported
    const rows = await calls(experimentId);
    const total = rows.reduce((n, r) => n + r.tokens, 0);
    expect([e.spent_tokens, e.turn_tokens]).toEqual([total, total]);
    // reached, and by the last call only: every call but the last started under the budget
    expect(total).toBeGreaterThanOrEqual(3000);
    expect(total - rows.at(-1)!.tokens).toBeLessThan(3000);
  });

  it('max_cost_usd at the run prices: the same, with the cost kept as the turns priced it', async () => {
    const { experimentId } = await run({ max_cost_usd: 0.002, prices: PRICE });
    const e = await experiment(experimentId);
    expect(e).toMatchObject({ status: 'timeout', stop_reason: 'max_cost_usd' });
    expect(e.spent_cost_usd).toBeGreaterThanOrEqual(0.002);
    // turns store their cost to the micro-dollar; the kept spend to the full
    expect(Math.abs(e.spent_cost_usd - e.turn_cost)).toBeLessThan(1e-5);
  });

  it('no budget: the same run reaches the goal (the budgets above are what stopped them)', async () => {
    const { experimentId } = await run({ prices: PRICE });
    expect(await experiment(experimentId)).toMatchObject({ status: 'completed', goal_found: true });
  });

  it('a cost budget for a model without a price is refused at start, naming the fix; nothing is written', async () => {
    const before = (await db.pool.query('SELECT count(*)::int AS n FROM experiments')).rows[0].n;
    await expect(run({ max_cost_usd: 1 })).rejects.toThrow(
      /config\.max_cost_usd 1: model "gpt-4\.1-mini" has no price in config\.prices.*set prices\["gpt-4\.1-mini"\]/,
    );
    expect((await db.pool.query('SELECT count(*)::int AS n FROM experiments')).rows[0].n).toBe(before);
  });
});

describe('a sweep budget', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });
  const spec = (budget: string) => `sweep: budgeted
agents:
  - { agent: openai, model: gpt-4.1-mini, config: { openai: { base_url: "${baseUrl}" } } }
mazes: { generators: [medium], sizes: [11], seeds: [1, 2, 3, 4, 5, 6] }
config: { max_moves: 300, retry: { max_attempts: 4, base_delay_ms: 1, max_delay_ms: 5, timeout_ms: 5000 } }
${budget}
`;

  it('stops starting runs once its runs spent it, says so, and goes on when it is raised', async () => {
    const first = await runLocalSweep(loadSweep(spec('budget: { max_tokens: 20000 }'), 'test'), {
      db,
      concurrency: 1,
    });
    expect(first.budgetSpent).toMatchObject({ reason: 'max_tokens', limit: 20000 });
    const started = first.planned.start - first.budgetSpent!.notStarted;
    expect(started).toBeGreaterThan(0);
    expect(first.budgetSpent!.notStarted).toBeGreaterThan(0);
    const { rows } = await db.pool.query<{ n: number; spent: number; running: number }>(
      `SELECT count(*)::int AS n, sum(spent_tokens)::float8 AS spent,
              count(*) FILTER (WHERE status = 'running')::int AS running
       FROM experiments WHERE sweep_id = 'budgeted'`,
    );
    // only the runs it started exist, each ended; the budget was reached by the last of them only
    expect(rows[0]).toMatchObject({ n: started, running: 0 });
    expect(rows[0].spent).toBe(first.budgetSpent!.spent.tokens);
    expect(rows[0].spent).toBeGreaterThanOrEqual(20000);
    // again, unchanged: nothing starts
    const again = await runLocalSweep(loadSweep(spec('budget: { max_tokens: 20000 }'), 'test'), { db });
    expect(again.budgetSpent?.notStarted).toBe(first.budgetSpent!.notStarted);
    expect(again.done).toBe(started);
    // raised: the same sweep (its name keeps its meaning), the rest run
    const raised = await runLocalSweep(loadSweep(spec('budget: { max_tokens: 10000000 }'), 'test'), {
      db,
      concurrency: 1,
    });
    expect(raised.budgetSpent).toBeUndefined();
    expect(raised.done).toBe(6);
  });

  it('ariadne sweep says why it stopped and exits 1', async () => {
    const { ariadne } = cli(() => db);
    const file = join(tempDir('budget-sweep'), 'sweep.yaml');
    writeFileSync(file, spec('budget: { max_tokens: 5000 }').replace('sweep: budgeted', 'sweep: budgeted-cli'));
    const r = await ariadne(['sweep', file, '--concurrency', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        'sweep budgeted-cli stopped starting runs: its runs spent [\\d,]+ tokens, its budget\\.max_tokens is ' +
          '5,000 tokens; \\d+ run\\(s\\) not started .* raise budget\\.max_tokens in ',
      ),
    );
  });
});

describe('a sweep cost budget', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });
  const spec = (name: string, extra: string) => `sweep: ${name}
agents:
  - { agent: openai, model: gpt-4.1-mini, config: { openai: { base_url: "${baseUrl}" } } }
mazes: { generators: [medium], sizes: [11], seeds: [1, 2, 3, 4, 5, 6, 7, 8] }
config: { max_moves: 300, retry: { max_attempts: 4, base_delay_ms: 1, max_delay_ms: 5, timeout_ms: 5000 }${extra} }
budget: { max_cost_usd: 0.002 }
`;

  it('on a model without a price is refused at start, naming the field, the value and the fix', async () => {
    await expect(runLocalSweep(loadSweep(spec('unpriced', ''), 'test'), { db })).rejects.toThrow(
      new RegExp(
        'budget\\.max_cost_usd 0\\.002: sweep agent "gpt-4\\.1-mini" \\(model "gpt-4\\.1-mini"\\) has no price in ' +
          'config\\.prices.*set prices\\["gpt-4\\.1-mini"\\] .*or use budget\\.max_tokens',
      ),
    );
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM sweeps WHERE id = 'unpriced'");
    expect(rows[0].n).toBe(0);
  });

  it('stops the runs in flight: spent at most the budget plus one model call per run in flight', async () => {
    const concurrency = 3;
    const prices = `, prices: { gpt-4.1-mini: { input_per_mtok: 0.4, output_per_mtok: 1.6 } }`;
    const result = await runLocalSweep(loadSweep(spec('in-flight', prices), 'test'), { db, concurrency });
    expect(result.budgetSpent).toMatchObject({ reason: 'max_cost_usd', limit: 0.002 });
    const runs = (
      await db.pool.query<{ id: string; status: string; stop_reason: string; cost: number }>(
        `SELECT id, status, stop_reason, spent_cost_usd::float8 AS cost FROM experiments
         WHERE sweep_id = 'in-flight' ORDER BY id`,
      )
    ).rows;
    const calls = (
      await db.pool.query<{ cost: number }>(
        `SELECT (coalesce(l.input_tokens, 0) * 0.4 + coalesce(l.output_tokens, 0) * 1.6) / 1e6 AS cost
         FROM llm_calls l JOIN experiments e ON e.id = l.experiment_id WHERE e.sweep_id = 'in-flight'`,
      )
    ).rows.map((c) => Number(c.cost));
    const total = runs.reduce((n, r) => n + r.cost, 0);
    // the runs in flight when it was reached stopped as the budget's, none still running
    expect(runs.filter((r) => r.stop_reason === 'max_cost_usd').length).toBeGreaterThanOrEqual(1);
    expect(runs.filter((r) => r.status === 'running')).toEqual([]);
    expect(result.budgetSpent!.spent.costUsd).toBeCloseTo(total, 6);
    // the rule (docs/sweeps-and-statistics.md): at most one model call past the budget per run in flight
    expect(total).toBeGreaterThanOrEqual(0.002);
    expect(total).toBeLessThanOrEqual(0.002 + concurrency * Math.max(...calls) + 1e-9);
  });
});

describe('ariadne sweep FILE --estimate', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });
  const spec = (name: string, seeds: string) => `sweep: ${name}
agents:
  - { agent: openai, model: gpt-4.1-mini, config: { openai: { base_url: "${baseUrl}" } } }
  - { agent: frontier }
mazes: { generators: [medium], sizes: [11], seeds: [${seeds}] }
config:
  max_moves: 300
  retry: { max_attempts: 4, base_delay_ms: 1, max_delay_ms: 5, timeout_ms: 5000 }
  prices: { gpt-4.1-mini: { input_per_mtok: 0.4, output_per_mtok: 1.6 } }
budget: { max_cost_usd: 0.001 }
`;

  it('with no past runs: a range from the first prompt; then from past runs, bracketing what runs spend', async () => {
    const first = await estimateSweepSpend(db.pool, loadSweep(spec('estimate-a', '1, 2, 3'), 'test'));
    const model = first.rows.find((r) => r.label === 'gpt-4.1-mini')!;
    expect(model).toMatchObject({ runs: 3, basis: 'first prompt only', observation: 'rays' });
    expect(model.tokens.typical).toBeNull();
    expect(model.tokens.low).toBeGreaterThan(0);
    expect(model.tokens.high).toBeGreaterThan(model.tokens.low);
    expect(model.costUsd!.high).toBeGreaterThan(model.costUsd!.low);
    // a baseline calls no model: nothing to spend
    expect(first.rows.find((r) => r.label === 'frontier')).toMatchObject({
      basis: 'no model calls',
      tokens: { low: 0, typical: 0, high: 0 },
    });
    // nothing was started or written
    expect((await db.pool.query('SELECT count(*)::int AS n FROM experiments')).rows[0].n).toBe(0);

    const unbudgeted = (name: string, seeds: string) =>
      loadSweep(spec(name, seeds).replace('budget: { max_cost_usd: 0.001 }', ''), 'test');
    await runLocalSweep(unbudgeted('estimate-a', '1, 2, 3'), { db, concurrency: 1 });
    // three runs of the model ended: a second sweep's estimate reads their rates
    const second = await estimateSweepSpend(db.pool, loadSweep(spec('estimate-b', '4, 5, 6, 7'), 'test'));
    const now = second.rows.find((r) => r.label === 'gpt-4.1-mini')!;
    expect(now.basis).toBe('3 past runs');
    expect(now.tokens.typical).toBeGreaterThanOrEqual(now.tokens.low);
    expect(now.tokens.typical).toBeLessThanOrEqual(now.tokens.high);
    const done = await runLocalSweep(unbudgeted('estimate-b', '4, 5, 6, 7'), { db, concurrency: 1 });
    expect(done.done).toBe(8);
    const { rows } = await db.pool.query<{ tokens: number }>(
      "SELECT sum(spent_tokens)::float8 AS tokens FROM experiments WHERE sweep_id = 'estimate-b'",
    );
    expect(rows[0].tokens).toBeGreaterThanOrEqual(now.tokens.low);
    expect(rows[0].tokens).toBeLessThanOrEqual(now.tokens.high);
  });

  it('the command prints the range and what the budget covers, and starts nothing', async () => {
    const { ariadne } = cli(() => db);
    const file = join(tempDir('estimate'), 'sweep.yaml');
    writeFileSync(file, spec('estimate-cli', '1, 2'));
    const r = await ariadne(['sweep', file, '--estimate']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^sweep estimate-cli: 4 run\(s\) still to run; already spent 0 tokens, \$0\.0/m);
    expect(r.stdout).toMatch(/gpt-4\.1-mini \| rays \| 2 run\(s\) \| tokens [\d,]+ - [\d,]+ .*\| from \d+ past runs/);
    expect(r.stdout).toMatch(/^budget\.max_cost_usd \$0\.0010: /m);
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM experiments WHERE sweep_id = 'estimate-cli'");
    expect(rows[0].n).toBe(0);
  });

  it('after the sweep grew by an agent listed first, matches each run still to run to its own agent', async () => {
    // the baseline ran; then the model is listed first: its cells take new indices after the baseline's
    const grown = (name: string) =>
      loadSweep(spec(name, '1, 2').replace('budget: { max_cost_usd: 0.001 }', 'budget: { max_cost_usd: 100 }'), 'test');
    const before = grown('estimate-grown');
    const baselineOnly = loadSweep(before.text.replace(/ {2}- \{ agent: openai[^\n]*\n/, ''), 'test');
    expect(baselineOnly.spec.agents.map((a) => a.agent)).toEqual(['frontier']);
    expect((await runLocalSweep(baselineOnly, { db, concurrency: 1 })).done).toBe(2);
    const e = await estimateSweepSpend(db.pool, grown('estimate-grown'));
    expect(e.runsToStart).toBe(2);
    // the model's two runs are still to run, the baseline's none: the cost is the model's, not $0
    expect(e.rows.map((r) => [r.label, r.runs])).toEqual([['gpt-4.1-mini', 2]]);
    expect(e.total.costUsd!.low).toBeGreaterThan(0);
    // and they are what then runs and spends
    const ran = await runLocalSweep(grown('estimate-grown'), { db, concurrency: 1 });
    expect(ran.ran.start).toBe(2);
    const { rows } = await db.pool.query<{ cost: number }>(
      "SELECT sum(spent_cost_usd)::float8 AS cost FROM experiments WHERE sweep_id = 'estimate-grown'",
    );
    expect(rows[0].cost).toBeGreaterThanOrEqual(e.total.costUsd!.low);
    expect(rows[0].cost).toBeLessThanOrEqual(e.total.costUsd!.high);
  });
});
