// The OpenAI-compatible provider through the local runner against the OpenAI simulator: what is
// sent (the shared sampling, the cap as max_completion_tokens, the run's seed, reasoning_effort and
// parallel_tool_calls only when set, nothing a reasoning model refuses), tokens exactly as the wire reported them
// (cache reads and reasoning apart), the cost they make, the provenance record, faults retried or ending the run
// with their fix, and the shared rate limits.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { OpenAISim } from '../simulators/openai-sim.ts';
import { testDatabase, TRANSPORTS, type TestDatabase } from './support/db.ts';
import { FAST_RETRY } from './support/provider-sims.ts';

const MAZE = { generator: 'medium', size: 15, seed: 3 };
const MINI = 'gpt-4.1-mini';
const KEY = 'sk-test-openai';

const sim = new OpenAISim({ apiKey: KEY });
let baseUrl = '';
beforeAll(async () => {
  baseUrl = `${await sim.listen()}/v1`;
  process.env.OPENAI_API_KEY = KEY;
});
afterAll(async () => {
  await sim.close();
  delete process.env.OPENAI_API_KEY;
});
beforeEach(() => {
  sim.requests.length = 0;
  sim.replies.length = 0;
  sim.admitted.length = 0;
  sim.throttled.length = 0;
  sim.faults = [];
  sim.always = undefined;
  sim.apiKey = KEY;
  sim.limits = {};
});

const chats = () => sim.requests.filter((r) => r.path === '/v1/chat/completions');

describe.each(TRANSPORTS)('the openai provider over %s', (transport) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase({ transport });
  });
  afterAll(async () => {
    await db.drop();
  });
  const run = (config: Record<string, unknown> = {}, model = MINI, openai: Record<string, unknown> = {}) =>
    runLocalExperiment(
      {
        agent: 'openai',
        model,
        maze: MAZE,
        config: { openai: { base_url: baseUrl, ...openai }, retry: FAST_RETRY, ...config },
      },
      { db, retryIntervals: { [STATES.InvokeOpenAIAgent]: 0 } },
    );
  const experiment = async (id: string | null) =>
    (await db.pool.query('SELECT * FROM experiments WHERE id = $1', [id])).rows[0];
  const calls = async (id: string | null) =>
    (await db.pool.query('SELECT * FROM llm_calls WHERE experiment_id = $1 ORDER BY turn_number, call_index', [id]))
      .rows;

  it.each([false, true])(
    'reaches the goal; every call recorded with the tokens the server sent (stream %s)',
    async (stream) => {
      const { experimentId } = await run({}, MINI, { stream });
      const e = await experiment(experimentId);
      expect(e).toMatchObject({ status: 'completed', goal_found: true, provider: 'openai', agent: 'openai' });
      const rows = await calls(experimentId);
      expect(rows.length).toBe(sim.replies.length);
      expect(rows.map((r) => [r.input_tokens, r.output_tokens, r.cache_read_input_tokens])).toEqual(
        sim.replies.map((r) => [r.inputTokens, r.outputTokens, r.cacheReadInputTokens ?? null]),
      );
      expect(chats().every((r) => r.body.stream === (stream || undefined) || r.body.stream === stream)).toBe(true);
      if (stream) expect(chats().every((r) => r.body.stream_options?.include_usage === true)).toBe(true);
      // the tool calls were made through the API's tool channel, and answered with their ids
      const second = chats()[1].body.messages;
      const asked = second.find((m: { role: string }) => m.role === 'assistant');
      const answered = second.filter((m: { role: string }) => m.role === 'tool');
      expect(answered.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(
        asked.tool_calls.map((c: { id: string }) => c.id),
      );
    },
  );

  it('sends the shared sampling, the cap as max_completion_tokens and each repeat its own seed', async () => {
    const config = { temperature: 0.6, top_p: 0.8, max_output_tokens: 700 };
    const a = await run(config);
    const b = await run(config);
    const seeds: number[] = [];
    for (const id of [a.experimentId, b.experimentId]) {
      const e = await experiment(id);
      seeds.push(e.agent_seed);
      const sent = chats().filter((r) => r.body.seed === e.agent_seed);
      expect(sent.length).toBe((await calls(id)).length);
      for (const r of sent) {
        const { temperature, top_p, max_completion_tokens, max_tokens, seed, reasoning_effort, parallel_tool_calls } =
          r.body;
        expect({ temperature, top_p, max_completion_tokens, max_tokens, seed }).toEqual({
          temperature: 0.6,
          top_p: 0.8,
          max_completion_tokens: 700,
          max_tokens: undefined,
          seed: e.agent_seed,
        });
        // left out of the config: not sent, so the server's own default applies
        expect([reasoning_effort, parallel_tool_calls]).toEqual([undefined, undefined]);
      }
      expect((await experiment(id)).provenance).toMatchObject({
        provider: 'openai',
        model: MINI,
        base_url: baseUrl,
        served_model: { id: MINI, object: 'model' },
        seed: { sent: true, value: e.agent_seed },
        errors: [],
      });
    }
    expect(seeds[0]).not.toBe(seeds[1]);
  });

  it('parallel_tool_calls false: one call a reply; output_cap_field max_tokens for older servers', async () => {
    const { experimentId } = await run({ max_output_tokens: 500 }, MINI, {
      parallel_tool_calls: false,
      output_cap_field: 'max_tokens',
    });
    expect(chats().every((r) => r.body.parallel_tool_calls === false && r.body.max_tokens === 500)).toBe(true);
    expect(chats().every((r) => r.body.max_completion_tokens === undefined)).toBe(true);
    const rows = await calls(experimentId);
    expect(rows.every((r) => r.tool_calls.length <= 1)).toBe(true);
    expect((await experiment(experimentId)).status).toBe('completed');
  });

  it('a reasoning model is sent no temperature or top_p, says so; reasoning tokens stored as reported', async () => {
    const { experimentId } = await run({ top_p: 0.9 }, 'o4-mini', { reasoning_effort: 'high' });
    for (const r of chats()) {
      expect(r.body).not.toHaveProperty('temperature');
      expect(r.body).not.toHaveProperty('top_p');
      expect(r.body.reasoning_effort).toBe('high');
    }
    const p = (await experiment(experimentId)).provenance;
    expect(p.not_sent).toEqual([
      'temperature 0.2 not sent: o4-mini is a reasoning model that refuses it',
      'top_p 0.9 not sent: o4-mini is a reasoning model that refuses it',
    ]);
    const rows = await calls(experimentId);
    expect(rows.map((r) => r.reported_reasoning_tokens)).toEqual(sim.replies.map((r) => r.reasoningTokens));
    expect(rows.every((r) => r.reported_reasoning_tokens > 0 && r.reasoning_text?.length > 0)).toBe(true);
  });

  it('openai.sampling true sends a reasoning model its temperature: the 400 ends the run, naming it', async () => {
    const failed = await run({}, 'o4-mini', { sampling: true }).then(
      () => null,
      (err: { experimentId?: string }) => err.experimentId,
    );
    const e = await experiment(failed ?? null);
    expect(e.status).toBe('failed');
    expect(e.failure_reason).toMatch(/400 unsupported_value: .*'temperature' does not support 0\.2 with this model/);
    expect(chats()).toHaveLength(1);
  });

  it("a server that returns no reasoning text (OpenAI's own API): tokens count, the text is null", async () => {
    const quiet = new OpenAISim({ reasoningField: null });
    const url = `${await quiet.listen()}/v1`;
    try {
      const { experimentId } = await runLocalExperiment(
        {
          agent: 'openai',
          model: 'o4-mini',
          maze: MAZE,
          config: { openai: { base_url: url, reasoning_effort: 'low' }, retry: FAST_RETRY },
        },
        { db },
      );
      const rows = await calls(experimentId);
      expect(rows.map((r) => [r.reasoning_text, r.reported_reasoning_tokens])).toEqual(
        quiet.replies.map((r) => [null, r.reasoningTokens]),
      );
      expect(rows[0].reported_reasoning_tokens).toBeGreaterThan(0);
    } finally {
      await quiet.close();
    }
  });

  it('cache reads are reported apart and priced at the cache price', async () => {
    // a carried conversation grows past 1,024 tokens, from where OpenAI caches the prefix it has seen
    const prices = { [MINI]: { input_per_mtok: 0.4, output_per_mtok: 1.6, cache_read_per_mtok: 0.1 } };
    const { experimentId } = await run({ memory: 'conversation', prices });
    const rows = await calls(experimentId);
    const cached = sim.replies.reduce((n, r) => n + (r.cacheReadInputTokens ?? 0), 0);
    expect(cached).toBeGreaterThan(0);
    expect(rows.reduce((n, r) => n + (r.cache_read_input_tokens ?? 0), 0)).toBe(cached);
    const input = sim.replies.reduce((n, r) => n + r.inputTokens, 0);
    const output = sim.replies.reduce((n, r) => n + r.outputTokens, 0);
    const { rows: cost } = await db.pool.query<{ cost: number }>(
      'SELECT sum(cost_usd)::float8 AS cost FROM turns WHERE experiment_id = $1',
      [experimentId],
    );
    const { rows: turns } = await db.pool.query('SELECT 1 FROM turns WHERE experiment_id = $1', [experimentId]);
    // each turn's cost is stored to the micro-dollar
    const exact = (input * 0.4 + output * 1.6 + cached * 0.1) / 1e6;
    expect(Math.abs(cost[0].cost - exact)).toBeLessThanOrEqual(turns.length * 5e-7);
    expect((await experiment(experimentId)).price_known).toBe(true);
  });

  it('429 and 500 are retried and recorded; a refused key ends the run at once with its fix', async () => {
    sim.faults = [
      { kind: 'status', status: 429 },
      { kind: 'status', status: 500 },
    ];
    const ok = await run();
    const first = (await calls(ok.experimentId))[0];
    expect(first.retries.map((r: { status: number }) => r.status)).toEqual([429, 500]);
    expect((await experiment(ok.experimentId)).status).toBe('completed');

    sim.requests.length = 0;
    sim.apiKey = 'sk-another-key';
    const refused = await run().then(
      () => null,
      (err: { experimentId?: string }) => err.experimentId,
    );
    const e = await experiment(refused ?? null);
    expect(e.status).toBe('failed');
    expect(e.failure_reason).toMatch(/ProviderPermanentError: openai model "gpt-4\.1-mini": 401 invalid_api_key/);
    expect(e.failure_reason).toMatch(/fix: ariadne secret set openai_api_key/);
    // permanent: asked once, not retried
    expect(chats()).toHaveLength(1);
  });

  it('a call written in the text is parsed; a malformed call is logged as invalid, and the run goes on', async () => {
    sim.faults = [{ kind: 'text-embedded' }, { kind: 'malformed' }];
    const { experimentId } = await run();
    const { rows } = await db.pool.query(
      'SELECT tool, outcome, parsed_from_text FROM actions WHERE experiment_id = $1 ORDER BY turn_number, call_index',
      [experimentId],
    );
    expect(rows[0].parsed_from_text).toBe(true);
    expect(rows.slice(1, 3).map((r) => r.outcome)).toEqual(['unknown_tool', 'invalid_arguments']);
    expect((await experiment(experimentId)).status).toBe('completed');
  });
});

// One transport is enough: the limiter's buckets are the same SQL on both (rate-limits.test.ts runs them over each).
describe('the openai provider under a shared rate limit', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });
  const run = (config: Record<string, unknown>) =>
    runLocalExperiment(
      {
        agent: 'openai',
        model: MINI,
        maze: MAZE,
        config: { openai: { base_url: baseUrl }, retry: FAST_RETRY, ...config },
      },
      { db },
    );
  const experiment = async (id: string | null) =>
    (await db.pool.query('SELECT * FROM experiments WHERE id = $1', [id])).rows[0];

  it('shares config.rate_limits: a server limit of the same size is never exceeded', async () => {
    const limit = { requests_per_minute: 12, window_seconds: 1 };
    sim.limits = { [MINI]: limit };
    const { experimentId } = await run({ rate_limits: { [`openai:${MINI}`]: limit } });
    expect((await experiment(experimentId)).status).toBe('completed');
    expect(sim.throttled).toEqual([]);
    expect(sim.admitted.length).toBeGreaterThan(12);
  });
});
