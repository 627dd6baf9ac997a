// LLM agents through the real `ollama` and Bedrock SDK clients, over HTTP,
// against local servers that speak those services' wire protocols.
import { createHash } from 'node:crypto';
import { ParameterCache } from '../core/config/parameters.ts';
import { fileSource } from '../core/config/file-source.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { PROMPTS } from '../core/config/prompts.ts';
import { TOOL_NAMES } from '../core/engine/tools.ts';
import type { Fault } from '../simulators/sim-server.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { FAST_RETRY, providerSims } from './support/provider-sims.ts';
import { parametersFile } from './support/parameters-file.ts';

let db: TestDatabase;
const sims = providerSims();
const { ollama, bedrock } = sims;
const SONNET = 'us.anthropic.claude-sonnet-4-6';
const NO_WAIT = { [STATES.InvokeOllamaAgent]: 0, [STATES.InvokeBedrockAgent]: 0 };
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

const runOllama = (config: Record<string, unknown> = {}, maze = { generator: 'medium', size: 15, seed: 3 }) =>
  runLocalExperiment(
    {
      agent: 'ollama',
      model: 'qwen2.5:7b',
      maze,
      config: { ollama: { host: sims.ollamaUrl }, retry: FAST_RETRY, ...config },
    },
    { db, retryIntervals: NO_WAIT },
  );
const runBedrock = (config: Record<string, unknown> = {}) =>
  runLocalExperiment(
    {
      agent: 'bedrock',
      model: SONNET,
      maze: { generator: 'medium', size: 15, seed: 3 },
      config: { bedrock: { endpoint: sims.bedrockUrl, region: 'us-west-2' }, retry: FAST_RETRY, ...config },
    },
    { db, retryIntervals: NO_WAIT },
  );

async function llmCalls(id: string | null) {
  return (
    await db.pool.query('SELECT * FROM llm_calls WHERE experiment_id = $1 ORDER BY turn_number, call_index', [id])
  ).rows;
}

describe.each([
  ['ollama (non-streaming)', () => runOllama(), ollama],
  ['ollama (streaming NDJSON)', () => runOllama({ ollama: { host: sims.ollamaUrl, stream: true } }), ollama],
  ['bedrock (Converse over HTTP/2)', () => runBedrock(), bedrock],
] as const)('%s', (_label, run, sim) => {
  it(
    'finds the goal on a 15x15 maze; tokens in the database are what the server sent; config and ' +
      'prompt are recorded',
    async () => {
      const { experimentId, summary } = await run();
      expect(summary).toMatchObject({ status: 'completed', goal_found: true });
      const calls = await llmCalls(experimentId);
      expect(calls.length).toBe(sim.replies.length);
      expect(calls.map((c) => [c.input_tokens, c.output_tokens])).toEqual(
        sim.replies.map((r) => [r.inputTokens, r.outputTokens]),
      );
      const turns = (
        await db.pool.query(
          'SELECT turn_number, input_tokens, output_tokens, llm_calls FROM turns WHERE experiment_id = $1 ' +
            'ORDER BY turn_number',
          [experimentId],
        )
      ).rows;
      for (const t of turns) {
        const mine = calls.filter((c) => c.turn_number === t.turn_number);
        expect(t.llm_calls).toBe(mine.length);
        expect(t.input_tokens).toBe(mine.reduce((n, c) => n + c.input_tokens, 0));
        expect(t.output_tokens).toBe(mine.reduce((n, c) => n + c.output_tokens, 0));
      }
      const exp = (
        await db.pool.query(
          'SELECT config, prompt_text, prompt_hash, prompt_version, model FROM experiments WHERE id = $1',
          [experimentId],
        )
      ).rows[0];
      expect(exp.prompt_version).toBe('v2'); // the default for new runs
      expect(exp.prompt_hash).toBe(createHash('sha256').update(exp.prompt_text).digest('hex'));
      expect(exp.config).toMatchObject({ recall_interval: 10, max_recall_actions: 50 });
      expect(exp.config).toMatchObject({ temperature: 0.2, max_output_tokens: 1024, model_seed: 'per_repeat' });
      if (sim === ollama) {
        expect(exp.config.ollama).toMatchObject({ num_ctx: 32768 });
        expect(exp.config.ollama).not.toHaveProperty('repeat_penalty');
      } else expect(exp.config.bedrock).toMatchObject({ region: 'us-west-2' });
    },
  );
});

describe('cost and environment', () => {
  it('prices each turn from the per-model table in config', async () => {
    const prices = { [SONNET]: { input_per_mtok: 3, output_per_mtok: 15 } };
    const { experimentId } = await runBedrock({ prices });
    const turns = (
      await db.pool.query('SELECT input_tokens, output_tokens, cost_usd FROM turns WHERE experiment_id = $1', [
        experimentId,
      ])
    ).rows;
    expect(turns.length).toBeGreaterThan(0);
    for (const t of turns) expect(t.cost_usd).toBeCloseTo((t.input_tokens * 3 + t.output_tokens * 15) / 1e6, 6);
    const { experimentId: unpriced } = await runBedrock({ prices: {} });
    const none = (
      await db.pool.query('SELECT count(*)::int AS n FROM turns WHERE experiment_id = $1 AND cost_usd IS NOT NULL', [
        unpriced,
      ])
    ).rows[0];
    expect(none.n).toBe(0); // no price, no guess
  });

  it(
    'takes the Ollama host from OLLAMA_HOST when neither input nor parameters name one, keeping the ' +
      'other Ollama parameters',
    async () => {
      process.env.OLLAMA_HOST = sims.ollamaUrl.replace('http://', '');
      const file = parametersFile(['/ariadne/config/ollama/num_ctx: 4096']);
      try {
        const { experimentId, summary } = await runLocalExperiment(
          {
            agent: 'ollama',
            model: 'qwen2.5:7b',
            maze: { generator: 'light', size: 11, seed: 1 },
            config: { retry: FAST_RETRY },
          },
          { db, retryIntervals: NO_WAIT, parameters: new ParameterCache(fileSource(file)) },
        );
        expect(summary).toMatchObject({ goal_found: true });
        const exp = (await db.pool.query('SELECT config FROM experiments WHERE id = $1', [experimentId])).rows[0];
        expect(exp.config.ollama.host).toBe(sims.ollamaUrl);
        expect(exp.config.ollama.num_ctx).toBe(4096);
      } finally {
        delete process.env.OLLAMA_HOST;
      }
    },
  );
});

describe('parameters', () => {
  it(
    'defaults, prompt versions and secrets come from the parameters; the request still wins; secrets ' + 'stay out',
    async () => {
      const file = parametersFile([
        '/ariadne/config/max_moves: 777',
        '/ariadne/config/vision_range: 2',
        '/ariadne/config/ollama/num_ctx: 8192',
        '/ariadne/prompts/study/v3: "Maze {width}x{height}. Find the goal; {success_text}."',
        '/ariadne-secrets/ollama_api_key: key-from-parameters-99',
      ]);
      const parameters = new ParameterCache(fileSource(file));
      const { experimentId } = await runLocalExperiment(
        {
          agent: 'ollama',
          model: 'qwen2.5:7b',
          promptVersion: 'study/v3',
          maze: { generator: 'light', size: 11, seed: 1 },
          config: { ollama: { host: sims.ollamaUrl }, retry: FAST_RETRY, vision_range: 3 },
        },
        { db, parameters, retryIntervals: NO_WAIT },
      );
      const exp = (
        await db.pool.query('SELECT config, prompt_text, prompt_version, prompt_hash FROM experiments WHERE id = $1', [
          experimentId,
        ])
      ).rows[0];
      expect(exp.config).toMatchObject({
        max_moves: 777,
        vision_range: 3,
        temperature: 0.2,
        ollama: { num_ctx: 8192, host: sims.ollamaUrl },
      });
      expect(exp.prompt_version).toBe('study/v3');
      expect(exp.prompt_text).toBe('Maze 11x11. Find the goal; the goal tile comes into your view.');
      expect(exp.prompt_hash).toBe(createHash('sha256').update(exp.prompt_text).digest('hex'));
      const chats = ollama.requests.filter((r) => r.path === '/api/chat');
      expect(chats[0].body.messages[0].content).toBe(exp.prompt_text);
      expect(chats.every((r) => r.headers.authorization === 'Bearer key-from-parameters-99')).toBe(true);
      expect(JSON.stringify(exp)).not.toContain('key-from-parameters');
    },
  );
});

describe('hosted Ollama', () => {
  it('sends OLLAMA_API_KEY as a bearer token and stores it nowhere', async () => {
    process.env.OLLAMA_API_KEY = 'sk-test-very-secret-4242';
    try {
      const { experimentId } = await runOllama({}, { generator: 'light', size: 11, seed: 1 });
      const chats = ollama.requests.filter((r) => r.path === '/api/chat');
      expect(chats.length).toBeGreaterThan(0);
      for (const req of chats) expect(req.headers.authorization).toBe('Bearer sk-test-very-secret-4242');
      const dump = JSON.stringify(
        (
          await db.pool.query(
            `SELECT e.*, (SELECT json_agg(a) FROM actions a WHERE a.experiment_id = e.id) AS a,
        (SELECT json_agg(l) FROM llm_calls l WHERE l.experiment_id = e.id) AS l FROM experiments e WHERE e.id = $1`,
            [experimentId],
          )
        ).rows,
      );
      expect(dump).toContain('qwen2.5:7b');
      expect(dump).not.toContain('very-secret');
    } finally {
      delete process.env.OLLAMA_API_KEY;
    }
  });
});

describe('what the engine sends', () => {
  it('ollama: tool schemas, the system prompt of the configured version, and each tool result in order', async () => {
    const { experimentId } = await runOllama();
    const exp = (await db.pool.query('SELECT prompt_text, agent_seed FROM experiments WHERE id = $1', [experimentId]))
      .rows[0];
    const chats = ollama.requests.filter((r) => r.path === '/api/chat');
    expect(chats.length).toBeGreaterThan(2);
    for (const req of chats) {
      expect(req.body.model).toBe('qwen2.5:7b');
      // provider parity: the shared temperature and output cap, the run's seed, and no repeat_penalty
      expect(req.body.options).toEqual({ num_ctx: 32768, temperature: 0.2, num_predict: 1024, seed: exp.agent_seed });
      expect(req.body.tools.map((t: any) => t.function.name)).toEqual(TOOL_NAMES);
      expect(req.body.tools[0]).toMatchObject({
        type: 'function',
        function: { parameters: { type: 'object', properties: { reasoning: { type: 'string' } } } },
      });
      expect(req.body.messages[0]).toEqual({ role: 'system', content: exp.prompt_text });
      expect(req.body.messages[0].content.startsWith(PROMPTS.v2.slice(0, PROMPTS.v2.indexOf('{')))).toBe(true);
    }
    // A follow-up request carries the assistant's calls and then one tool message per call, in order,
    // matching the logged actions.
    const followUp = chats.find((r) => r.body.messages.some((m: any) => m.role === 'tool'))!;
    const msgs = followUp.body.messages;
    const assistant = msgs.findIndex((m: any) => m.role === 'assistant');
    const calls = msgs[assistant].tool_calls.map((c: any) => c.function.name);
    const tools = msgs.slice(assistant + 1).filter((m: any) => m.role === 'tool');
    expect(tools.map((m: any) => m.tool_name)).toEqual(calls);
    const actions = (
      await db.pool.query(
        'SELECT tool, to_x, to_y FROM actions WHERE experiment_id = $1 ORDER BY turn_number, call_index LIMIT $2',
        [experimentId, calls.length],
      )
    ).rows;
    // each result names the position after its call (the default rays format: "You are at (x,y).")
    const positions = tools.map((m: any) => /You are at \((\d+),(\d+)\)/.exec(m.content)!.slice(1).map(Number));
    expect(positions).toEqual(actions.map((a) => [a.to_x, a.to_y]));
  });

  it('bedrock: toolConfig, system blocks, and toolResult blocks answering each toolUseId in order', async () => {
    await runBedrock();
    const conv = bedrock.requests.filter((r) => r.path === `/model/${SONNET}/converse`);
    expect(conv.length).toBeGreaterThan(2);
    for (const req of conv) {
      // the tools, then the cache point Sonnet 4.6 takes after them (bedrock-caching.ts)
      expect(req.body.toolConfig.tools.filter((t: any) => t.toolSpec).map((t: any) => t.toolSpec.name)).toEqual(
        TOOL_NAMES,
      );
      expect(req.body.toolConfig.tools[0].toolSpec.inputSchema.json).toMatchObject({ type: 'object' });
      expect(req.body.system[0].text.startsWith(PROMPTS.v2.slice(0, PROMPTS.v2.indexOf('{')))).toBe(true);
      expect(req.body.inferenceConfig).toEqual({ maxTokens: 1024, temperature: 0.2 });
      expect(req.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=sim\/\d{8}\/us-west-2\/bedrock\/aws4_request/,
      );
    }
    const followUp = conv.find((r) => r.body.messages.length >= 3)!;
    const [, assistant, results] = followUp.body.messages;
    const ids = assistant.content.filter((b: any) => b.toolUse).map((b: any) => b.toolUse.toolUseId);
    expect(results.role).toBe('user');
    expect(results.content.map((b: any) => b.toolResult.toolUseId)).toEqual(ids);
  });
});

describe('faults', () => {
  it('two 429s then success: the run completes and the two retries are logged', async () => {
    ollama.faults = [
      { kind: 'status', status: 429 },
      { kind: 'status', status: 429 },
    ];
    const { experimentId, summary } = await runOllama();
    expect(summary).toMatchObject({ status: 'completed', goal_found: true });
    const first = (await llmCalls(experimentId))[0];
    expect(first.retries).toHaveLength(2);
    expect(first.retries.map((r: any) => r.status)).toEqual([429, 429]);
    expect(first.retries[0].error).toMatch(/too many requests/);
  });

  // with no wait for an outage (provider-outage.test.ts waits them out): the turn's retries, then the end
  const NO_OUTAGE_WAIT = { provider_outage_wait_minutes: 0 };
  it.each([
    ['ollama', () => runOllama(NO_OUTAGE_WAIT), ollama, /ProviderTransientError: ollama model "qwen2.5:7b": 500 /],
    [
      'bedrock',
      () => runBedrock(NO_OUTAGE_WAIT),
      bedrock,
      /ProviderTransientError: bedrock model "us\.anthropic\.claude-sonnet-4-6": 500 InternalServerException/,
    ],
  ] as const)(
    'endless 500s from %s finalize the experiment failed, naming provider, model and status',
    async (_p, run, sim, reason) => {
      sim.always = { kind: 'status', status: 500 };
      await expect(run()).rejects.toThrow(/500 .*gave up after 4 attempts/);
      const { rows } = await db.pool.query(
        "SELECT status, stop_reason, failure_reason FROM experiments WHERE status = 'failed' ORDER BY " +
          'created_at DESC LIMIT 1',
      );
      expect(rows[0].status).toBe('failed');
      expect(rows[0].failure_reason).toMatch(reason);
      // the handler's attempts times the state machine's: every one reached the server
      const modelCalls = sim.requests.filter((r) => r.path === '/api/chat' || r.path.endsWith('/converse'));
      expect(modelCalls.length).toBe(FAST_RETRY.max_attempts * 3);
    },
  );

  it('an unknown model is a permanent error: failed at once, with provider, model and status', async () => {
    const run = runLocalExperiment(
      {
        agent: 'ollama',
        model: 'no-such-model:1b',
        maze: { generator: 'medium', size: 15, seed: 3 },
        config: { ollama: { host: sims.ollamaUrl }, retry: FAST_RETRY },
      },
      { db, retryIntervals: NO_WAIT },
    );
    await expect(run).rejects.toThrow(/ollama model "no-such-model:1b": 404 model 'no-such-model:1b' not found/);
    expect(ollama.requests.filter((r) => r.path === '/api/chat')).toHaveLength(1);
    const { rows } = await db.pool.query("SELECT failure_reason FROM experiments WHERE model = 'no-such-model:1b'");
    expect(rows[0].failure_reason).toMatch(/^ProviderPermanentError: ollama model "no-such-model:1b": 404 /);
  });

  it.each<[string, Fault, (rows: any[]) => void]>([
    [
      'a malformed tool call',
      { kind: 'malformed' },
      (rows) => {
        expect(rows.slice(0, 2).map((r) => [r.tool, r.outcome])).toEqual([
          ['teleport', 'unknown_tool'],
          ['move_north', 'invalid_arguments'],
        ]);
        expect(rows[1].message).toMatch(/reasoning/);
      },
    ],
    [
      'a tool call written as JSON in the text',
      { kind: 'text-embedded' },
      (rows) => {
        expect(rows[0]).toMatchObject({ parsed_from_text: true, executed: true });
        expect(rows[0].assistant_text).toMatch(/```json/);
      },
    ],
  ])('%s is logged and the run goes on to the goal', async (_label, fault, check) => {
    ollama.faults = [fault];
    const { experimentId, summary } = await runOllama();
    expect(summary).toMatchObject({ status: 'completed', goal_found: true });
    check(
      (
        await db.pool.query('SELECT * FROM actions WHERE experiment_id = $1 ORDER BY turn_number, call_index', [
          experimentId,
        ])
      ).rows,
    );
  });

  it.each([
    ['a text-only reply', { kind: 'text-only' } satisfies Fault, 'no_tool_calls'],
    ['an empty reply', { kind: 'empty' } satisfies Fault, 'empty_reply'],
  ])('%s ends the turn with its reason and the run goes on', async (_label, fault, reason) => {
    bedrock.faults = [fault];
    const { experimentId, summary } = await runBedrock();
    expect(summary).toMatchObject({ status: 'completed', goal_found: true });
    const first = (
      await db.pool.query(
        'SELECT stop_reason, actions_executed FROM turns WHERE experiment_id = $1 ORDER BY turn_number LIMIT 1',
        [experimentId],
      )
    ).rows[0];
    expect(first).toEqual({ stop_reason: reason, actions_executed: 0 });
  });

  it.each([
    [
      'a reply slower than the timeout',
      () => {
        ollama.faults = [{ kind: 'slow', ms: 1_500 }];
      },
      'timeout',
    ],
    [
      'a connection reset',
      () => {
        ollama.faults = [{ kind: 'reset' }];
      },
      /ECONNRESET|network|UND_ERR_SOCKET/,
    ],
  ])('%s is retried', async (_label, arrange, status) => {
    arrange();
    const { experimentId, summary } = await runOllama({ retry: { ...FAST_RETRY, timeout_ms: 500 } });
    expect(summary).toMatchObject({ status: 'completed', goal_found: true });
    const first = (await llmCalls(experimentId))[0];
    expect(first.retries).toHaveLength(1);
    expect(String(first.retries[0].status)).toMatch(status);
  });
});

describe('Ollama on AWS', () => {
  it('in Lambda, a loopback Ollama host is refused before anything is written, naming the setting', async () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'ariadne-start-experiment';
    try {
      const before = Number((await db.pool.query('SELECT count(*) AS n FROM experiments')).rows[0].n);
      await expect(runOllama({ ollama: { host: 'http://127.0.0.1:11434' } })).rejects.toThrow(
        /config\.ollama\.host http:\/\/127\.0\.0\.1:11434 is this Lambda function itself.*ariadne\/config\/ollama/,
      );
      await expect(runOllama({ ollama: { host: 'localhost:11434' } })).rejects.toThrow(/is this Lambda function/);
      expect(Number((await db.pool.query('SELECT count(*) AS n FROM experiments')).rows[0].n)).toBe(before);
    } finally {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    }
  });

  it('on a laptop the same host is fine (it is where Ollama runs)', async () => {
    const r = await runOllama({ ollama: { host: sims.ollamaUrl } });
    expect(r.summary?.status).toBe('completed');
  });
});
