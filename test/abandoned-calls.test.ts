// Model calls answered in a turn that then failed: kept, marked abandoned, and counted in the run's tokens, cost,
// budgets and summary, as the server answered them. Through the real state machine on the local runner, the Ollama
// simulator answering a set number of calls and then failing (permanently, or for an outage the run waits out).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { summaryOutput } from './support/summary-output.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import type { Fault } from '../simulators/sim-server.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { testDatabase, TRANSPORTS, type TestDatabase } from './support/db.ts';
import { FAST_RETRY } from './support/provider-sims.ts';

/** Answers `limit` chat calls in all (of every model), then fails each call with `failure` until `limit` is raised. */
class AnswersThenFails extends OllamaSim {
  limit = Infinity;
  failure: Fault = { kind: 'status', status: 400 };
  protected override nextFault(): Fault | null {
    return this.replies.length >= this.limit ? this.failure : super.nextFault();
  }
}

const MODELS = ['abandon-a:1b', 'abandon-b:1b', 'abandon-c:1b'];
const MAZE = { generator: 'medium', size: 11, seed: 3 };
const PRICE = { input_per_mtok: 3, output_per_mtok: 15 };
const NO_WAIT = { [STATES.InvokeOllamaAgent]: 0 };
const sim = new AnswersThenFails({ models: MODELS });
const calm = new OllamaSim({ models: MODELS });
let simUrl = '';
let calmUrl = '';

beforeAll(async () => {
  [simUrl, calmUrl] = await Promise.all([sim.listen(), calm.listen()]);
});
afterAll(async () => {
  await Promise.all([sim.close(), calm.close()]);
});

/** What the server answered for `model`: calls, input and output tokens, and their cost at PRICE. */
function served(s: OllamaSim, model: string, first = 0, count = Infinity) {
  const replies = s.replies.filter((r) => r.model === model).slice(first, first + count);
  const input = replies.reduce((n, r) => n + r.inputTokens, 0);
  const output = replies.reduce((n, r) => n + r.outputTokens, 0);
  return {
    calls: replies.length,
    input,
    output,
    cost: (input * PRICE.input_per_mtok + output * PRICE.output_per_mtok) / 1e6,
  };
}

describe.each(TRANSPORTS)('over %s', (transport) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase({ transport });
    sim.replies.length = 0;
    calm.replies.length = 0;
  });
  afterAll(async () => {
    await db.drop();
  });

  const run = (model: string, host: string, config: Record<string, unknown>, onWait?: () => void) =>
    runLocalExperiment(
      {
        agent: 'ollama',
        model,
        maze: MAZE,
        config: { ollama: { host }, retry: FAST_RETRY, prices: { [model]: PRICE }, ...config },
      },
      {
        db,
        retryIntervals: NO_WAIT,
        waitIntervals: { [STATES.OutageWait]: 20 },
        onProviderWait: (w) => {
          if (w) onWait?.();
        },
      },
    );

  const summaryJson = async (id: string) => JSON.parse(await summaryOutput(db, id, true)) as Record<string, unknown>;

  const spent = async (id: string) =>
    (
      await db.query<{ tokens: number; cost: number }>(
        'SELECT spent_tokens::int AS tokens, spent_cost_usd::float8 AS cost FROM experiments WHERE id = $1',
        [id],
      )
    ).rows[0];

  it('4 calls answered in turn 1, then a permanent error: the summary counts all 4, abandoned', async () => {
    const model = MODELS[0];
    const before = served(sim, model).calls;
    sim.limit = sim.replies.length + 4;
    sim.failure = { kind: 'status', status: 400 };
    const failed = run(model, simUrl, { max_actions_per_turn: 30, max_moves: 30 });
    const { experimentId: id } = await failed.then(
      () => expect.unreachable('the run fails'),
      (e: { experimentId: string }) => e,
    );
    sim.limit = Infinity;
    const answered = served(sim, model, before);
    expect(answered.calls).toBe(4);
    const s = await summaryJson(id);
    expect(s).toMatchObject({
      status: 'failed',
      turns: 0,
      llm_calls: 4,
      abandoned_calls: 4,
      input_tokens: answered.input,
      output_tokens: answered.output,
    });
    expect(s.cost_usd as number).toBeCloseTo(answered.cost, 9);
    expect(await summaryOutput(db, id, false)).toMatch(
      /^llm calls +4 \(4 answered in turns that then failed: abandoned\)$/m,
    );
    // the budgets see them: what a run's max_tokens and max_cost_usd (and its sweep's budget) read
    expect(await spent(id)).toMatchObject({ tokens: answered.input + answered.output });
    expect((await spent(id)).cost).toBeCloseTo(answered.cost, 9);
    const rows = await db.query<{ turn_number: number; n: number; error: string }>(
      `SELECT turn_number, count(*)::int AS n, min(error) AS error FROM abandoned_llm_calls WHERE experiment_id = $1
       GROUP BY turn_number, attempt`,
      [id],
    );
    expect(rows.rows).toEqual([{ turn_number: 1, n: 4, error: expect.stringMatching(/400/) as unknown }]);

    // a statement retried by its transport (the same try, written again) adds nothing
    const store = new PgStore(db);
    const again = {
      experimentId: id,
      turnNumber: 1,
      attempt: 'retried-statement',
      error: 'ProviderPermanentError: 400',
      calls: [0, 1].map((callIndex) => ({
        callIndex,
        inputTokens: 100,
        outputTokens: 10,
        cacheReadInputTokens: 1_000,
        cacheWriteInputTokens: null,
        latencyMs: 5,
        stopReason: 'stop',
        costUsd: 0.5,
      })),
    };
    await store.recordAbandonedCalls(again);
    await store.recordAbandonedCalls(again);
    expect(await spent(id)).toMatchObject({ tokens: answered.input + answered.output + 2 * 1_110 });
    expect((await spent(id)).cost).toBeCloseTo(answered.cost + 1, 9);
    expect(await summaryJson(id)).toMatchObject({
      llm_calls: 6,
      abandoned_calls: 6,
      input_tokens: answered.input + 200,
      output_tokens: answered.output + 20,
    });
  });

  it('an outage inside a turn: its try is kept abandoned, the turn tried again, totals as answered', async () => {
    const model = MODELS[1];
    const before = served(sim, model).calls;
    // 5 calls are answered (a turn is at most 3 actions), then the provider is down until the run has waited
    sim.limit = sim.replies.length + 5;
    sim.failure = { kind: 'status', status: 503 };
    let beforeWait = 0;
    const r = await run(model, simUrl, { max_actions_per_turn: 3, max_moves: 12 }, () => {
      if (sim.limit === Infinity) return;
      sim.limit = Infinity;
      beforeWait = served(sim, model).calls - before;
    });
    expect(beforeWait).toBe(5);
    const answered = served(sim, model, before);
    const s = await summaryJson(r.experimentId!);
    // the calls of the turns before the one that waited were committed with them; the rest of the 5 were abandoned
    const { rows } = await db.query<{ committed: number; retried: number }>(
      `SELECT count(*)::int AS committed, min(w.turn_number)::int AS retried FROM llm_calls c,
         (SELECT turn_number FROM turns WHERE experiment_id = $1 AND provider_waits > 0) w
       WHERE c.experiment_id = $1 AND c.turn_number < w.turn_number`,
      [r.experimentId],
    );
    expect(rows[0].retried).toBeGreaterThan(1);
    expect(s.abandoned_calls).toBe(5 - rows[0].committed);
    expect(s.abandoned_calls).toBeGreaterThan(0);
    expect(s).toMatchObject({
      llm_calls: answered.calls,
      input_tokens: answered.input,
      output_tokens: answered.output,
    });
    expect(s.cost_usd as number).toBeCloseTo(answered.cost, 9);
    expect((await spent(r.experimentId!)).tokens).toBe(answered.input + answered.output);
  });

  it("a run's token budget counts the abandoned calls: the retried turn stops at once", async () => {
    const model = MODELS[2];
    // the same run undisturbed, for what its first 4 calls count
    const reference = calm.replies.filter((x) => x.model === model).length;
    await run(model, calmUrl, { max_actions_per_turn: 30, max_moves: 30 });
    const first4 = served(calm, model, reference, 4);
    const before = served(sim, model).calls;
    sim.limit = sim.replies.length + 4;
    sim.failure = { kind: 'status', status: 503 };
    let resumedAt = 0;
    const r = await run(
      model,
      simUrl,
      { max_actions_per_turn: 30, max_moves: 30, max_tokens: first4.input + first4.output + 1 },
      () => {
        sim.limit = Infinity;
        resumedAt = served(sim, model).calls;
      },
    );
    expect(resumedAt - before).toBe(4);
    // one more call reaches the budget, the 4 abandoned ones counted: without them the turn would call on
    expect(served(sim, model).calls - resumedAt).toBe(1);
    expect(r.summary).toMatchObject({ stop_reason: 'max_tokens' });
    const s = await summaryJson(r.experimentId!);
    const answered = served(sim, model, before);
    expect(s).toMatchObject({ abandoned_calls: 4, llm_calls: 5, input_tokens: answered.input });
  });
});
