// Bedrock prompt caching through the real Bedrock Runtime SDK client against the simulator: cache points after
// the tools and the system prompt where the model takes them, cache reads and writes stored per call and per turn,
// and costed at their own prices.
import { BedrockRuntimeClient, ConverseCommand, type ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ParameterCache } from '../core/config/parameters.ts';
import { fileSource } from '../core/config/file-source.ts';
import { DEFAULT_CONFIG } from '../core/config/experiment-config.ts';
import { offeredTools } from '../core/engine/tools.ts';

const TOOL_SPECS = offeredTools({ recall_tool: true });
import { tokenCostUsd } from '../core/engine/token-cost.ts';
import { bedrockModel } from '../core/providers/llm/bedrock-model.ts';
import { PROMPT_CACHE_TTL_MS, baseModelId, promptCacheSupport } from '../core/providers/llm/bedrock-caching.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { BedrockSim } from '../simulators/bedrock-sim.ts';
import { UNSUPPORTED_CACHING } from '../simulators/bedrock-prompt-cache.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { parametersFile } from './support/parameters-file.ts';

const SONNET_46 = 'anthropic.claude-sonnet-4-6'; // caches system, messages and tools from 1,024 tokens
const SONNET = `us.${SONNET_46}`; // on demand through an inference profile only
// an Active model that takes no cache point (bedrock-caching.ts lists none for Meta's models)
const NO_CACHE = 'us.meta.llama3-3-70b-instruct-v1:0';
const NOVA_LITE = 'amazon.nova-lite-v1:0'; // caches system and messages, not tools
const PRICES = {
  [SONNET]: { input_per_mtok: 3, output_per_mtok: 15, cache_read_per_mtok: 0.3, cache_write_per_mtok: 3.75 },
};
const FAST_RETRY = { max_attempts: 2, base_delay_ms: 1, max_delay_ms: 5, max_total_ms: 10_000, timeout_ms: 5_000 };
const NO_WAIT = { [STATES.InvokeBedrockAgent]: 0 };
// A system prompt well above Claude's 1,024-token minimum (the simulator counts 4 characters a token).
const LONG_RULES = Array.from({ length: 60 }, (_, i) => `Rule ${i + 1}: keep a careful map of every tile you see.`);
const LONG_PROMPT = `The maze is {width}x{height} tiles. Find the goal; {success_text}. ${LONG_RULES.join(' ')}`;

let db: TestDatabase;
const sim = new BedrockSim();
sim.models.push(NO_CACHE);
let endpoint = '';
let parameters: ParameterCache;

beforeAll(async () => {
  db = await testDatabase();
  endpoint = await sim.listen();
  process.env.AWS_ACCESS_KEY_ID = 'sim';
  process.env.AWS_SECRET_ACCESS_KEY = 'sim';
  parameters = new ParameterCache(fileSource(parametersFile([`/ariadne/prompts/cached/v1: "${LONG_PROMPT}"`])));
});
afterAll(async () => {
  await sim.close();
  await db.drop();
});
beforeEach(() => {
  sim.requests.length = 0;
  sim.replies.length = 0;
  sim.promptCache.now = () => Date.now();
});

const run = (model: string, bedrock: Record<string, unknown> = {}, promptVersion = 'cached/v1') =>
  runLocalExperiment(
    {
      agent: 'bedrock',
      model,
      promptVersion,
      maze: { generator: 'medium', size: 15, seed: 3 },
      config: { bedrock: { endpoint, region: 'us-east-1', ...bedrock }, retry: FAST_RETRY, prices: PRICES },
    },
    { db, parameters, retryIntervals: NO_WAIT },
  );

const rows = async (sql: string, id: string | null) => (await db.pool.query(sql, [id])).rows;
const hasCachePoint = (blocks: Array<Record<string, unknown>> | undefined) =>
  (blocks ?? []).some((b) => 'cachePoint' in b);
const converses = () => sim.requests.filter((r) => r.path.endsWith('/converse'));

describe('prompt caching on, for a model that supports it', () => {
  it(
    'writes the prefix once, reads it on later calls, stores both per call and per turn, and costs them at ' +
      'their own prices',
    async () => {
      const { experimentId, summary } = await run(SONNET);
      expect(summary).toMatchObject({ status: 'completed', goal_found: true });
      for (const req of converses()) {
        expect(req.body.system.at(-1)).toEqual({ cachePoint: { type: 'default' } });
        expect(req.body.toolConfig.tools.at(-1)).toEqual({ cachePoint: { type: 'default' } });
        expect(req.body.toolConfig.tools).toHaveLength(TOOL_SPECS.length + 1);
      }
      const calls = await rows(
        'SELECT turn_number, input_tokens, output_tokens, cache_read_input_tokens AS r, ' +
          'cache_write_input_tokens AS w ' +
          'FROM llm_calls WHERE experiment_id = $1 ORDER BY turn_number, call_index',
        experimentId,
      );
      expect(new Set(calls.map((c) => c.turn_number)).size).toBeGreaterThan(1);
      // as the service reported them
      expect(calls.map((c) => [c.input_tokens, c.r, c.w])).toEqual(
        sim.replies.map((x) => [x.inputTokens, x.cacheReadInputTokens, x.cacheWriteInputTokens]),
      );
      const [first, ...later] = calls;
      expect(first.w).toBeGreaterThan(1_024);
      expect(first.r).toBe(0);
      for (const c of later) expect([c.r, c.w]).toEqual([first.w, 0]); // the same static prefix, within the TTL
      const secondTurn = calls.find((c) => c.turn_number === 2)!;
      expect(secondTurn.r).toBeGreaterThan(0);

      const turns = await rows(
        'SELECT turn_number, input_tokens, output_tokens, cache_read_input_tokens AS r, ' +
          'cache_write_input_tokens AS w, ' +
          'cost_usd FROM turns WHERE experiment_id = $1 ORDER BY turn_number',
        experimentId,
      );
      for (const t of turns) {
        const mine = calls.filter((c) => c.turn_number === t.turn_number);
        expect([t.r, t.w]).toEqual([mine.reduce((n, c) => n + c.r, 0), mine.reduce((n, c) => n + c.w, 0)]);
        const expected = (t.input_tokens * 3 + t.output_tokens * 15 + t.r * 0.3 + t.w * 3.75) / 1e6;
        expect(Number(t.cost_usd)).toBeCloseTo(expected, 6);
      }
      const second = turns.find((t) => t.turn_number === 2)!;
      // reads are not charged as ordinary input: the uncached price would be higher by the reads' difference
      expect(Number(second.cost_usd)).toBeLessThan(
        ((second.input_tokens + second.r) * 3 + second.output_tokens * 15) / 1e6 - (second.r * 2.5) / 1e6,
      );

      const [view] = await rows('SELECT * FROM experiment_prompt_cache WHERE experiment_id = $1', experimentId);
      const sum = (k: 'input_tokens' | 'r' | 'w') => turns.reduce((n, t) => n + t[k], 0);
      expect(view).toMatchObject({
        prompt_caching: true,
        cache_read_input_tokens: sum('r'),
        cache_write_input_tokens: sum('w'),
        total_input_tokens: sum('input_tokens') + sum('r') + sum('w'),
      });
      expect(Number(view.cache_read_share)).toBeGreaterThan(0.5);
    },
  );

  it('below the minimum tokens per checkpoint (the short built-in prompt): nothing cached, nothing fails', async () => {
    const { experimentId, summary } = await run(SONNET, {}, 'v1');
    expect(summary).toMatchObject({ status: 'completed' });
    expect(converses().every((r) => hasCachePoint(r.body.system))).toBe(true);
    const calls = await rows(
      'SELECT cache_read_input_tokens AS r, cache_write_input_tokens AS w FROM llm_calls WHERE experiment_id = $1',
      experimentId,
    );
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) expect([c.r, c.w]).toEqual([0, 0]);
  });
});

describe('no cache point', () => {
  it('with prompt_caching off: none sent, no cache tokens stored, the setting is in the config snapshot', async () => {
    const { experimentId } = await run(SONNET, { prompt_caching: false });
    expect(converses().length).toBeGreaterThan(0);
    for (const r of converses())
      expect([hasCachePoint(r.body.system), hasCachePoint(r.body.toolConfig.tools)]).toEqual([false, false]);
    const calls = await rows(
      'SELECT cache_read_input_tokens AS r, cache_write_input_tokens AS w FROM llm_calls WHERE experiment_id = $1',
      experimentId,
    );
    for (const c of calls) expect([c.r, c.w]).toEqual([null, null]);
    const [exp] = await rows('SELECT config FROM experiments WHERE id = $1', experimentId);
    expect(exp.config.bedrock.prompt_caching).toBe(false);
  });

  it('for a model without prompt caching, although the setting is on (the default)', async () => {
    expect(DEFAULT_CONFIG.bedrock.prompt_caching).toBe(true);
    const { summary } = await run(NO_CACHE);
    expect(summary).toMatchObject({ status: 'completed', goal_found: true });
    expect(converses().length).toBeGreaterThan(0);
    for (const r of converses())
      expect([hasCachePoint(r.body.system), hasCachePoint(r.body.toolConfig.tools)]).toEqual([false, false]);
  });

  it('Nova: after the system prompt only (its tools take no cache point)', async () => {
    await run(NOVA_LITE);
    expect(converses().length).toBeGreaterThan(0);
    for (const r of converses())
      expect([hasCachePoint(r.body.system), hasCachePoint(r.body.toolConfig.tools)]).toEqual([true, false]);
  });
});

describe('the simulator, as the service', () => {
  const client = () => new BedrockRuntimeClient({ region: 'us-east-1', endpoint, maxAttempts: 1 });
  const request = (modelId: string, where: 'system' | 'tools'): ConverseCommandInput => ({
    modelId,
    system: [{ text: 'x' }, ...(where === 'system' ? [{ cachePoint: { type: 'default' as const } }] : [])],
    messages: [{ role: 'user', content: [{ text: 'hello' }] }],
    toolConfig: {
      tools: [
        { toolSpec: { name: 'move_north', inputSchema: { json: { type: 'object' } } } },
        ...(where === 'tools' ? [{ cachePoint: { type: 'default' as const } }] : []),
      ],
    },
  });

  it.each([
    [NO_CACHE, 'system'],
    [NOVA_LITE, 'tools'],
  ] as const)('refuses a cache point %s does not take (in %s) with a ValidationException', async (model, where) => {
    const err = await client()
      .send(new ConverseCommand(request(model, where)))
      .catch((e: unknown) => e as { name: string; message: string; $metadata: { httpStatusCode: number } });
    expect(err).toMatchObject({ name: 'ValidationException', message: UNSUPPORTED_CACHING });
    expect((err as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode).toBe(400);
  });

  it('keeps a prefix for the TTL after its last use, then writes it again', async () => {
    let now = 1_000_000;
    sim.promptCache.now = () => now;
    const model = bedrockModel(SONNET, {
      region: 'us-east-1',
      endpoint,
      max_tokens: 100,
      temperature: 0,
      prompt_caching: true,
    });
    const ask = async () =>
      (await model.complete(LONG_PROMPT, [{ role: 'user', text: 'hello' }], TOOL_SPECS, new AbortController().signal))
        .usage!;
    const written = await ask();
    expect(written.cacheWriteInputTokens).toBeGreaterThan(1_024);
    now += PROMPT_CACHE_TTL_MS - 1;
    expect(await ask()).toMatchObject({
      cacheReadInputTokens: written.cacheWriteInputTokens,
      cacheWriteInputTokens: 0,
    });
    now += PROMPT_CACHE_TTL_MS - 1; // a hit restarts the TTL
    expect((await ask()).cacheReadInputTokens).toBe(written.cacheWriteInputTokens);
    now += PROMPT_CACHE_TTL_MS + 1;
    expect(await ask()).toMatchObject({
      cacheReadInputTokens: 0,
      cacheWriteInputTokens: written.cacheWriteInputTokens,
    });
    // inputTokens is the rest of the input, as the service reports it
    expect(written.inputTokens).toBe(sim.replies[0].inputTokens);
  });
});

describe('support table and prices', () => {
  it('maps inference-profile ids to their foundation model', () => {
    expect(baseModelId(SONNET)).toBe(SONNET_46);
    expect(baseModelId(`us-gov.${SONNET_46}`)).toBe(SONNET_46);
    expect(promptCacheSupport(`global.${SONNET_46}`)?.minTokens).toBe(1_024);
    expect(promptCacheSupport(`eu.${NO_CACHE.slice(3)}`)).toBeNull();
  });

  it('a cache price left out charges those tokens as ordinary input', () => {
    const counts = { inputTokens: 1_000, outputTokens: 100, cacheReadInputTokens: 2_000, cacheWriteInputTokens: 500 };
    expect(tokenCostUsd({ input_per_mtok: 1, output_per_mtok: 5 }, counts)).toBeCloseTo(
      (1_000 + 100 * 5 + 2_000 + 500) / 1e6,
      12,
    );
    expect(tokenCostUsd({ input_per_mtok: 1, output_per_mtok: 5, cache_read_per_mtok: 0.1 }, counts)).toBeCloseTo(
      (1_000 + 100 * 5 + 2_000 * 0.1 + 500) / 1e6,
      12,
    );
  });
});
