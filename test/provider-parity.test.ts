// Provider parity over both providers' simulators, through the real `ollama` and
// Bedrock SDK clients and both database transports: what is sent for sampling and the output cap, per-repeat
// seeds, truncation flagged and counted, reasoning stored, the provenance record, and strict_tool_calls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { DEFAULT_CONFIG, experimentConfigSchema } from '../core/config/experiment-config.ts';
import { bedrockInference, ollamaOptions } from '../core/providers/llm/sampling.ts';
import { digestOf, SIMULATED_VERSION } from '../simulators/ollama-sim.ts';
import { testDatabase, TRANSPORTS, type TestDatabase } from './support/db.ts';
import { bedrockRunner, FAST_RETRY, providerSims } from './support/provider-sims.ts';

const sims = providerSims();
const { ollama, bedrock } = sims;
const QWEN = 'qwen2.5:7b';
const SONNET_46 = 'anthropic.claude-sonnet-4-6';
const NO_WAIT = { [STATES.InvokeOllamaAgent]: 0, [STATES.InvokeBedrockAgent]: 0 };
const MAZE = { generator: 'medium', size: 15, seed: 3 };

describe('what each provider is sent (sampling.ts)', () => {
  it('the shared defaults reach both: one temperature, one output cap, no repeat_penalty, no top_p', () => {
    expect(ollamaOptions(DEFAULT_CONFIG, 77)).toEqual({ temperature: 0.2, num_predict: 1024, seed: 77 });
    expect(bedrockInference(DEFAULT_CONFIG)).toEqual({ maxTokens: 1024, temperature: 0.2 });
    const set = experimentConfigSchema.parse({ temperature: 0.7, top_p: 0.9, max_output_tokens: 300 });
    expect(ollamaOptions(set, 1)).toEqual({ temperature: 0.7, top_p: 0.9, num_predict: 300, seed: 1 });
    expect(bedrockInference(set)).toEqual({ maxTokens: 300, temperature: 0.7, topP: 0.9 });
  });

  it('the old provider keys still parse and win for their provider; model_seed none sends no seed', () => {
    const c = experimentConfigSchema.parse({
      ollama: { temperature: 0.9, repeat_penalty: 1.3 },
      bedrock: { temperature: 0.1, max_tokens: 2000 },
      model_seed: 'none',
    });
    expect(ollamaOptions(c, 5)).toEqual({ temperature: 0.9, num_predict: 1024, repeat_penalty: 1.3 });
    expect(bedrockInference(c)).toEqual({ maxTokens: 2000, temperature: 0.1 });
  });

  it('a snapshot from before parity sends what it ran with: repeat_penalty 1.4, no cap or seed on Ollama', () => {
    const old = {
      ...DEFAULT_CONFIG,
      ollama: { host: 'http://127.0.0.1:11434', num_ctx: 32768, temperature: 0.2, repeat_penalty: 1.4, stream: false },
      bedrock: { region: 'us-east-1', max_tokens: 1024, temperature: 0.2, prompt_caching: true },
    } as Record<string, unknown>;
    for (const key of ['temperature', 'top_p', 'max_output_tokens', 'model_seed', 'strict_tool_calls']) delete old[key];
    const snapshot = old as unknown as typeof DEFAULT_CONFIG;
    expect(ollamaOptions(snapshot, 42)).toEqual({ temperature: 0.2, repeat_penalty: 1.4 });
    expect(bedrockInference(snapshot)).toEqual({ maxTokens: 1024, temperature: 0.2 });
  });

  it('extended thinking on Bedrock sends no temperature or top_p (Claude refuses them beside thinking)', () => {
    const c = experimentConfigSchema.parse({
      top_p: 0.5,
      max_output_tokens: 3000,
      bedrock: { reasoning_budget_tokens: 1024 },
    });
    expect(bedrockInference(c)).toEqual({ maxTokens: 3000, reasoningBudgetTokens: 1024 });
  });
});

describe.each(TRANSPORTS)('over %s', (transport) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase({ transport });
  });
  afterAll(async () => {
    await db.drop();
  });

  const runOllama = (config: Record<string, unknown> = {}) =>
    runLocalExperiment(
      {
        agent: 'ollama',
        model: QWEN,
        maze: MAZE,
        config: { ollama: { host: sims.ollamaUrl }, retry: FAST_RETRY, ...config },
      },
      { db, retryIntervals: NO_WAIT },
    );
  const bedrockRun = bedrockRunner(sims, () => db, MAZE);
  const runBedrock = (config: Record<string, unknown> = {}, bedrockConfig: Record<string, unknown> = {}) =>
    bedrockRun(`us.${SONNET_46}`, config, bedrockConfig);
  const experiment = async (id: string | null) =>
    (await db.pool.query('SELECT * FROM experiments WHERE id = $1', [id])).rows[0];
  const calls = async (id: string | null) =>
    (await db.pool.query('SELECT * FROM llm_calls WHERE experiment_id = $1 ORDER BY turn_number, call_index', [id]))
      .rows;
  const modelCalls = async (id: string | null) =>
    (await db.pool.query('SELECT * FROM experiment_model_calls WHERE experiment_id = $1', [id])).rows[0];

  it('both providers are sent the same sampling and cap; Ollama gets the run seed, each repeat its own', async () => {
    const config = { temperature: 0.6, top_p: 0.8, max_output_tokens: 700 };
    const a = await runOllama(config);
    const b = await runOllama(config);
    const seeds: number[] = [];
    for (const id of [a.experimentId, b.experimentId]) {
      const e = await experiment(id);
      seeds.push(e.agent_seed);
      const sent = ollama.requests
        .filter((r) => r.path === '/api/chat' && r.body.options.seed === e.agent_seed)
        .map((r) => r.body.options);
      expect(sent.length).toBe((await calls(id)).length);
      for (const o of sent)
        expect(o).toEqual({ num_ctx: 32768, temperature: 0.6, top_p: 0.8, num_predict: 700, seed: e.agent_seed });
    }
    expect(seeds[0]).not.toBe(seeds[1]);
    await runBedrock(config);
    const converse = bedrock.requests.filter((r) => r.path.endsWith('/converse'));
    expect(converse.length).toBeGreaterThan(0);
    for (const r of converse) expect(r.body.inferenceConfig).toEqual({ maxTokens: 700, temperature: 0.6, topP: 0.8 });
  });

  it('stores a provenance record at the first turn: Ollama from /api/version, /api/tags and /api/show', async () => {
    const { experimentId } = await runOllama();
    const p = (await experiment(experimentId)).provenance;
    const show = ollama.requests.find((r) => r.path === '/api/show');
    expect(show?.body.model).toBe(QWEN);
    const template = `{{- range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>{{ end }} (${QWEN})`;
    expect(p).toMatchObject({
      provider: 'ollama',
      model: QWEN,
      // the simulator says what it is: nothing in its record passes for a real model's
      server_version: SIMULATED_VERSION,
      model_digest: digestOf(QWEN),
      quantization_level: 'simulated',
      parameter_size: 'simulated',
      simulator: 'ollama',
      template_sha256: createHash('sha256').update(template).digest('hex'),
      seed: { sent: true, value: (await experiment(experimentId)).agent_seed },
      errors: [],
    });
    // asked once, at the first turn, however many turns ran
    expect(ollama.requests.filter((r) => r.path === '/api/version')).toHaveLength(1);
  });

  it('stores a provenance record for Bedrock: the inference profile, its model, the Region, and no seed', async () => {
    const profile = `us.${SONNET_46}`;
    if (!bedrock.models.includes(profile)) bedrock.models.push(profile);
    const { experimentId } = await runLocalExperiment(
      {
        agent: 'bedrock',
        model: profile,
        maze: MAZE,
        config: { bedrock: { endpoint: sims.bedrockUrl, region: 'us-west-2' }, retry: FAST_RETRY },
      },
      { db, retryIntervals: NO_WAIT },
    );
    expect((await experiment(experimentId)).provenance).toMatchObject({
      provider: 'bedrock',
      model_id: `us.${SONNET_46}`,
      base_model_id: SONNET_46,
      inference_profile: `us.${SONNET_46}`,
      region: 'us-west-2',
      seed: { sent: false },
    });
  });

  it.each([
    ['ollama', 'length'],
    ['bedrock', 'max_tokens'],
  ] as const)('%s: a reply cut by the output cap is flagged truncated and counted', async (provider, reason) => {
    const long = { kind: 'say' as const, text: 'I am weighing every corridor of this maze in turn. '.repeat(16) };
    const sim = provider === 'ollama' ? ollama : bedrock;
    sim.faults = [long];
    const run = provider === 'ollama' ? runOllama : runBedrock;
    const { experimentId } = await run({ max_output_tokens: 120 });
    const rows = await calls(experimentId);
    expect(rows[0]).toMatchObject({ stop_reason: reason, truncated: true, output_tokens: 120 });
    expect(rows.slice(1).every((r) => r.truncated === false)).toBe(true);
    expect((await modelCalls(experimentId)).truncated_calls).toBe(1);
  });

  it('ollama: think asks for the reasoning, which is stored with its estimated tokens', async () => {
    const { experimentId } = await runOllama({ ollama: { host: sims.ollamaUrl, think: true, stream: true } });
    const rows = await calls(experimentId);
    expect(ollama.requests.filter((r) => r.path === '/api/chat').every((r) => r.body.think === true)).toBe(true);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.reasoning_text).toMatch(/^Position and view read; 5 tools offered/);
      expect(r.reasoning_tokens).toBeGreaterThan(0);
    }
    expect((await modelCalls(experimentId)).reasoning_calls).toBe(rows.length);
    // not asked, none
    const plain = await runOllama();
    expect((await calls(plain.experimentId)).every((r) => r.reasoning_text === null)).toBe(true);
  });

  it('bedrock: extended thinking returns reasoningContent, stored, and sent back signed with its reply', async () => {
    const { experimentId, summary } = await runBedrock({ max_output_tokens: 3000 }, { reasoning_budget_tokens: 1024 });
    expect(summary?.status).toBe('completed');
    const rows = await calls(experimentId);
    for (const r of rows) expect(r.reasoning_text).toMatch(/^Position and view read/);
    const conv = bedrock.requests.filter((r) => r.path.endsWith('/converse'));
    expect(conv[0].body.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 1024 } });
    expect(conv[0].body.inferenceConfig).toEqual({ maxTokens: 3000 });
    // a follow-up within a turn carries the reasoning block first in the assistant message, with its signature
    const followUp = conv.find((r) => r.body.messages.length >= 3)!;
    const first = followUp.body.messages[1].content[0];
    expect(first.reasoningContent.reasoningText.signature).toMatch(/^[A-Za-z0-9+/=]{20,}$/);
  });

  it('strict_tool_calls: a tool call written in the reply text is not executed but logged as invalid', async () => {
    ollama.faults = [{ kind: 'text-embedded' }];
    const { experimentId } = await runOllama({ strict_tool_calls: true });
    const { rows } = await db.pool.query(
      'SELECT * FROM actions WHERE experiment_id = $1 ORDER BY turn_number, call_index',
      [experimentId],
    );
    expect(rows[0]).toMatchObject({
      parsed_from_text: true,
      executed: true,
      step_number: 1,
      outcome: 'invalid_arguments',
      from_x: rows[0].to_x,
      from_y: rows[0].to_y,
    });
    expect(rows[0].message).toMatch(/written as JSON in the reply text.*strict_tool_calls/);
    expect(await modelCalls(experimentId)).toMatchObject({
      strict_tool_calls: true,
      text_tool_calls: 1,
      strict_refused: 1,
    });
    // lenient (the default): the same reply is executed
    ollama.faults = [{ kind: 'text-embedded' }];
    const lenient = await runOllama();
    const first = (
      await db.pool.query(
        'SELECT outcome FROM actions WHERE experiment_id = $1 ORDER BY turn_number, call_index LIMIT 1',
        [lenient.experimentId],
      )
    ).rows[0];
    expect(first.outcome).not.toBe('invalid_arguments');
    expect(await modelCalls(lenient.experimentId)).toMatchObject({ text_tool_calls: 1, strict_refused: 0 });
  });
});
