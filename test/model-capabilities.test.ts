// Claude models from Opus 4.7 on refuse what older ones took (sampling parameters, manual thinking budgets) and
// some think unasked, their output cap counting that thinking (model-table.ts capabilities, model-settings.ts).
// Over the Bedrock simulator, whose per-model rules (simulators/bedrock-model-rules.ts) are written apart from the
// table: a run on such a model sends nothing it refuses, records what it left out, and has room to think; a config
// that sets a refused value is refused at start, naming the field, the value, the model and the fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { DEFAULT_CONFIG } from '../core/config/experiment-config.ts';
import { bedrockInference } from '../core/providers/llm/sampling.ts';
import { MODEL_TABLE, modelCapabilities } from '../core/config/model-table.ts';
import { THINKING_MODEL_MAX_TOKENS } from '../core/config/model-settings.ts';
import { claudeRequestRules } from '../simulators/bedrock-model-rules.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { bedrockRunner, providerSims } from './support/provider-sims.ts';

const sims = providerSims();
const { bedrock } = sims;
const SONNET_5 = 'us.anthropic.claude-sonnet-5';
const OPUS_47 = 'global.anthropic.claude-opus-4-7';
const MAZE = { generator: 'medium', size: 15, seed: 3 };

describe('the model table agrees with the simulator written from the models pages', () => {
  it.each(Object.keys(MODEL_TABLE))('%s', (model) => {
    const caps = modelCapabilities(model);
    const rules = claudeRequestRules(model);
    expect(caps.sampling).toBe(!(rules?.refusesSampling ?? false));
    expect(caps.manual_thinking).toBe(!(rules?.refusesManualThinking ?? false));
    expect(caps.thinks_by_default).toBe(rules?.thinksByDefault ?? false);
  });
});

describe('what such a model is sent (sampling.ts)', () => {
  it('no temperature or top_p to a model that refuses them, each left-out value said with its reason', () => {
    const config = { ...DEFAULT_CONFIG, top_p: 0.9 };
    expect(bedrockInference(config, SONNET_5)).toEqual({
      maxTokens: 1024,
      notSent: [
        'temperature 0.2 not sent: the model refuses sampling parameters',
        'top_p 0.9 not sent: the model refuses sampling parameters',
      ],
      thinksByDefault: true,
    });
    // a model without a record gets both, as before
    expect(bedrockInference(config, 'anthropic.claude-sonnet-4-6')).toEqual({
      maxTokens: 1024,
      temperature: 0.2,
      topP: 0.9,
    });
  });

  it('an older snapshot carrying a thinking budget does not send it to a model that refuses budgets', () => {
    const config = { ...DEFAULT_CONFIG, bedrock: { ...DEFAULT_CONFIG.bedrock, reasoning_budget_tokens: 2048 } };
    const sent = bedrockInference(config, OPUS_47);
    expect(sent.reasoningBudgetTokens).toBeUndefined();
    expect(sent.notSent).toContain('reasoning_budget_tokens 2048 not sent: the model refuses manual thinking budgets');
  });
});

describe('runs over the Bedrock simulator', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase({ transport: 'pg' });
    for (const m of [SONNET_5, OPUS_47]) if (!bedrock.models.includes(m)) bedrock.models.push(m);
  });
  afterAll(async () => {
    await db.drop();
  });
  const run = bedrockRunner(sims, () => db, MAZE);

  it('the simulator refuses temperature and manual thinking on Opus 4.7, as Bedrock does', async () => {
    const client = new BedrockRuntimeClient({ region: 'us-west-2', endpoint: sims.bedrockUrl, maxAttempts: 1 });
    const messages = [{ role: 'user' as const, content: [{ text: 'hello' }] }];
    await expect(
      client.send(
        new ConverseCommand({ modelId: OPUS_47, messages, inferenceConfig: { maxTokens: 100, temperature: 0.2 } }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException', message: '`temperature` is deprecated for this model.' });
    await expect(
      client.send(
        new ConverseCommand({
          modelId: OPUS_47,
          messages,
          inferenceConfig: { maxTokens: 4000 },
          additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it("the simulator refuses disabled thinking on Opus 4.7, an adaptive-only model of AWS's page", async () => {
    const client = new BedrockRuntimeClient({ region: 'us-west-2', endpoint: sims.bedrockUrl, maxAttempts: 1 });
    const messages = [{ role: 'user' as const, content: [{ text: 'hello' }] }];
    const converse = (type: string) =>
      client.send(
        new ConverseCommand({
          modelId: OPUS_47,
          messages,
          inferenceConfig: { maxTokens: 100 },
          additionalModelRequestFields: { thinking: { type } },
        }),
      );
    await expect(converse('disabled')).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(converse('adaptive')).resolves.toMatchObject({ stopReason: 'end_turn' });
  });

  it('the simulator takes reasoning back only as it gave it, text and signature', async () => {
    const client = new BedrockRuntimeClient({ region: 'us-west-2', endpoint: sims.bedrockUrl, maxAttempts: 1 });
    const ask = { role: 'user' as const, content: [{ text: 'hello' }] };
    const first = await client.send(
      new ConverseCommand({ modelId: SONNET_5, messages: [ask], inferenceConfig: { maxTokens: 4000 } }),
    );
    const reply = first.output!.message!;
    const reasoning = reply.content!.find((b) => b.reasoningContent)!.reasoningContent!.reasoningText!;
    const sendBack = (text: string) =>
      client.send(
        new ConverseCommand({
          modelId: SONNET_5,
          inferenceConfig: { maxTokens: 4000 },
          messages: [
            ask,
            { role: 'assistant', content: [{ reasoningContent: { reasoningText: { ...reasoning, text } } }] },
            { role: 'user', content: [{ text: 'and now?' }] },
          ],
        }),
      );
    await expect(sendBack(`${reasoning.text!} (edited)`)).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(sendBack(reasoning.text!)).resolves.toBeDefined();
  });

  it('Sonnet 5 on shared defaults: no sampling sent, room to think, reasoning kept, the record says so', async () => {
    const { experimentId, summary } = await run(SONNET_5);
    expect(summary?.status).toBe('completed');
    const converse = bedrock.requests.filter((r) => r.path.endsWith('/converse'));
    expect(converse.length).toBeGreaterThan(0);
    for (const r of converse) {
      expect(r.body.inferenceConfig).toEqual({ maxTokens: THINKING_MODEL_MAX_TOKENS });
      expect(r.body.additionalModelRequestFields?.thinking).toBeUndefined();
    }
    const e = (await db.pool.query('SELECT * FROM experiments WHERE id = $1', [experimentId])).rows[0];
    expect(e.config.max_output_tokens).toBe(THINKING_MODEL_MAX_TOKENS);
    expect(e.provenance).toMatchObject({
      base_model_id: 'anthropic.claude-sonnet-5',
      not_sent: ['temperature 0.2 not sent: the model refuses sampling parameters'],
      thinking: 'the model default (adaptive, no thinking field sent)',
    });
    const calls = (await db.pool.query('SELECT * FROM llm_calls WHERE experiment_id = $1', [experimentId])).rows;
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) {
      expect(c.reasoning_text).toMatch(/^Position and view read/);
      expect(c.truncated).toBe(false);
    }
  });

  it('a set output cap is kept for a model that thinks by default', async () => {
    const { experimentId } = await run(SONNET_5, { max_output_tokens: 4000 });
    const e = (await db.pool.query('SELECT config FROM experiments WHERE id = $1', [experimentId])).rows[0];
    expect(e.config.max_output_tokens).toBe(4000);
  });

  it.each([
    [{ temperature: 0.5 }, {}, /config\.temperature 0\.5: global\.anthropic\.claude-opus-4-7 refuses sampling/],
    [{ top_p: 0.9 }, {}, /config\.top_p 0\.9: .*remove top_p from the experiment's config/],
    [{}, { temperature: 0 }, /config\.bedrock\.temperature 0: .*refuses sampling/],
    [{}, { reasoning_budget_tokens: 2048 }, /config\.bedrock\.reasoning_budget_tokens 2048: .*refuses manual/],
  ])('a config setting what Opus 4.7 refuses is refused at start, nothing written: %j %j', async (c, b, message) => {
    const before = (await db.pool.query('SELECT count(*)::int AS n FROM experiments')).rows[0].n;
    const sent = bedrock.requests.length;
    await expect(run(OPUS_47, c, b)).rejects.toMatchObject({ name: 'InvalidInputError', message });
    expect((await db.pool.query('SELECT count(*)::int AS n FROM experiments')).rows[0].n).toBe(before);
    expect(bedrock.requests.length).toBe(sent);
  });
});
