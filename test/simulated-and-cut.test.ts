// Runs a bundled simulator answered are marked simulated (each simulator announces itself on every reply, through
// the real ollama, openai and AWS SDK clients) and never pooled with real runs; a prompt the server cut to its
// context window is flagged per call, counted per run (summary --json truncated_calls) and per statistics group;
// the context guard keeps the output cap free on Ollama as on the other providers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { loadSweep } from '../lambdas/sweeps/sweep-spec.ts';
import { STATES } from '../lambdas/machine/states.ts';
import { OllamaSim, SIMULATED_VERSION, digestOf } from '../simulators/ollama-sim.ts';
import { sweepStatistics } from '../reports/sweep-statistics.ts';
import { paperTable } from '../reports/paper-table.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { bedrockRunner, FAST_RETRY, openaiSim, providerSims } from './support/provider-sims.ts';
import { cli } from './support/cli.ts';

const sims = providerSims();
const openai = openaiSim();
// a server that speaks Ollama's wire format and says nothing of what it is, as a real Ollama
const plain = new OllamaSim({ announce: false });
// a model whose tokenizer counts 4 tokens where the estimate counts 1: a prompt the guard lets through is cut
const dense = new OllamaSim({ tokenScale: 4 });
let plainUrl = '';
let denseUrl = '';
let db: TestDatabase;
beforeAll(async () => {
  plainUrl = await plain.listen();
  denseUrl = await dense.listen();
  db = await testDatabase();
});
afterAll(async () => {
  await plain.close();
  await dense.close();
  await db.drop();
});
const { ariadne } = cli(() => db);

const QWEN = 'qwen2.5:7b';
const MAZE = { generator: 'medium', size: 11, seed: 2 };
const NO_WAIT = {
  [STATES.InvokeOllamaAgent]: 0,
  [STATES.InvokeBedrockAgent]: 0,
  [STATES.InvokeOpenAIAgent]: 0,
};
const runOllama = (host: string, config: Record<string, unknown> = {}) =>
  runLocalExperiment(
    {
      agent: 'ollama',
      model: QWEN,
      maze: MAZE,
      config: { max_moves: 20, retry: FAST_RETRY, ...config, ollama: { host, ...(config.ollama ?? {}) } },
    },
    { db, retryIntervals: NO_WAIT },
  );
const summary = (id: string | null) => {
  const r = ariadne(['summary', String(id), '--json']);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Record<string, unknown>;
};
const callsOf = async (id: string | null) =>
  (
    await db.pool.query<{ simulator: string | null; prompt_truncated: boolean | null; prompt_eval_count: number }>(
      'SELECT simulator, prompt_truncated, prompt_eval_count FROM llm_calls WHERE experiment_id = $1',
      [id],
    )
  ).rows;

describe('a run a simulator answered is simulated', () => {
  it('on Ollama: every call names the simulator, the run is simulated, and its provenance says simulated', async () => {
    const { experimentId } = await runOllama(sims.ollamaUrl);
    const calls = await callsOf(experimentId);
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) expect(c.simulator).toBe('ollama');
    const s = summary(experimentId);
    expect(s).toMatchObject({ simulated: true, truncated_calls: 0 });
    expect(s.provenance).toMatchObject({
      model_digest: digestOf(QWEN),
      quantization_level: 'simulated',
      parameter_size: 'simulated',
      server_version: SIMULATED_VERSION, // 0.0.0-simulated
      simulator: 'ollama',
    });
    expect(String((s.provenance as { model_digest: string }).model_digest)).toMatch(/^simulated-/);
    const table = ariadne(['list', '--limit', '1']).stdout;
    expect(table).toMatch(/\| SIM ollama/);
    expect(table).toMatch(/SIM: a bundled simulator/);
    const listed = JSON.parse(ariadne(['list', '--limit', '1', '--format', 'json']).stdout) as unknown[];
    expect(listed).toMatchObject([{ experiment_id: experimentId, simulated: true }]);
  });

  it('on Bedrock (the AWS SDK client, HTTP/2) and on an OpenAI-compatible server (the openai client)', async () => {
    const bedrock = await bedrockRunner(
      sims,
      () => db,
      MAZE,
    )('anthropic.claude-3-7-sonnet-20250219-v1:0', {
      max_moves: 12,
    });
    expect(summary(bedrock.experimentId)).toMatchObject({ simulated: true });
    expect(new Set((await callsOf(bedrock.experimentId)).map((c) => c.simulator))).toEqual(new Set(['bedrock']));
    for (const stream of [false, true]) {
      const run = await runLocalExperiment(
        {
          agent: 'openai',
          model: 'gpt-4.1-mini',
          maze: MAZE,
          config: { max_moves: 12, openai: { base_url: openai.url, stream }, retry: FAST_RETRY },
        },
        { db, retryIntervals: NO_WAIT },
      );
      expect(summary(run.experimentId)).toMatchObject({ simulated: true });
      expect(new Set((await callsOf(run.experimentId)).map((c) => c.simulator))).toEqual(new Set(['openai']));
      const owned = (summary(run.experimentId).provenance as { served_model: { owned_by: string } }).served_model;
      expect(owned.owned_by).toBe('simulated');
    }
  });

  it('a server that does not announce itself (a real one) leaves the run real', async () => {
    const { experimentId } = await runOllama(plainUrl);
    const calls = await callsOf(experimentId);
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) expect(c.simulator).toBeNull();
    expect(summary(experimentId)).toMatchObject({ simulated: false });
    expect(ariadne(['list', '--limit', '1']).stdout).not.toMatch(/SIM/);
    const listed = JSON.parse(ariadne(['list', '--limit', '1', '--format', 'json']).stdout) as unknown[];
    expect(listed).toMatchObject([{ experiment_id: experimentId, simulated: false }]);
  });
});

describe('a prompt cut to the context window', () => {
  it('is flagged per call and counted in summary --json truncated_calls, apart from output cuts', async () => {
    // the guard's estimate fits 2,048 less the 128 kept for the reply; the server counts 4 times as many tokens
    const { experimentId } = await runOllama(denseUrl, {
      max_output_tokens: 128,
      max_moves: 6,
      ollama: { num_ctx: 2048 },
    });
    const calls = await callsOf(experimentId);
    expect(calls.length).toBeGreaterThan(0);
    // as Ollama does, the server kept num_ctx tokens and reported that many: each such call flagged, no other
    for (const c of calls) expect(c.prompt_truncated).toBe(c.prompt_eval_count >= 2048);
    const cut = calls.filter((c) => c.prompt_truncated).length;
    expect(cut).toBeGreaterThan(0);
    const s = summary(experimentId);
    expect(s).toMatchObject({ truncated_calls: cut, simulated: true });
    // the output cap cut none of them: the older flag counts replies, not prompts
    expect((s.model_calls as { truncated_calls: number }).truncated_calls).toBe(0);
  });

  it('the guard keeps room for the reply on Ollama: a prompt that fits num_ctx but not beside the cap', async () => {
    // a first prompt of some 650 tokens fits 2,048, but not the 148 a cap of 1,900 leaves: refused before any call
    const before = sims.ollama.requests.filter((r) => r.path === '/api/chat').length;
    await expect(
      runOllama(sims.ollamaUrl, { max_output_tokens: 1900, context_policy: 'refuse', ollama: { num_ctx: 2048 } }),
    ).rejects.toThrow(/more than the 148 its context window leaves for it.*lower max_output_tokens/);
    expect(sims.ollama.requests.filter((r) => r.path === '/api/chat').length).toBe(before);
    // a cap that fills num_ctx leaves no prompt at all: refused at start, naming the fix
    await expect(runOllama(sims.ollamaUrl, { max_output_tokens: 2048, ollama: { num_ctx: 2048 } })).rejects.toThrow(
      /config\.max_output_tokens 2048 with ollama\.num_ctx 2048: .*lower max_output_tokens or raise ollama\.num_ctx/,
    );
    // with a cap that leaves room, the same prompt is sent
    const { experimentId } = await runOllama(sims.ollamaUrl, { max_output_tokens: 512, ollama: { num_ctx: 2048 } });
    expect((await callsOf(experimentId)).length).toBeGreaterThan(0);
  });
});

describe('a sweep with simulated and real runs', () => {
  it('splits its groups by simulated (never one row of both), counts cut prompts per group, and says so', async () => {
    const spec = (repeats: number, host: string) =>
      loadSweep(
        `sweep: mixed
agents:
  - { agent: ollama, model: "${QWEN}", label: qwen }
mazes: { generators: [medium], sizes: [11], seeds: [1, 2] }
config:
  max_moves: 8
  max_output_tokens: 128
  ollama: { host: "${host}", num_ctx: 2048 }
  retry: ${JSON.stringify(FAST_RETRY)}
repeats: ${repeats}
`,
        'test',
      );
    // the same host for both: first the simulator answers, then (the sweep grown) a server that does not announce
    const sim = new OllamaSim({ tokenScale: 4 });
    const url = await sim.listen();
    try {
      await runLocalSweep(spec(1, url), { db, retryIntervals: NO_WAIT });
      sim.announce = false;
      await runLocalSweep(spec(2, url), { db, retryIntervals: NO_WAIT });
    } finally {
      await sim.close();
    }
    const s = await sweepStatistics(db.pool, 'mixed', { by: ['label'] });
    expect(s.factors).toEqual(['label', 'simulated']);
    expect(s.groups.map((g) => [g.factors, g.runs, g.simulatedRuns])).toEqual([
      [{ label: 'qwen', simulated: false }, 2, 0],
      [{ label: 'qwen', simulated: true }, 2, 2],
    ]);
    // every call of these runs had its prompt cut (the server counts 4 tokens for each estimated one)
    for (const g of s.groups) expect(g.promptTruncatedRuns).toBe(2);
    const notes = paperTable('mixed', s).notes.join(' ');
    expect(notes).toMatch(/4 runs had a prompt cut to the server's context window/);
    expect(notes).toMatch(/Rows with simulated true \(2 runs\)/);
    // the default factors split the same way, and stats --json carries both counts
    const json = JSON.parse(ariadne(['stats', 'mixed', '--json']).stdout) as {
      factors: string[];
      groups: Array<{ promptTruncatedRuns: number; simulatedRuns: number }>;
    };
    expect(json.factors).toContain('simulated');
    expect(json.groups.map((g) => [g.simulatedRuns, g.promptTruncatedRuns])).toEqual([
      [0, 2],
      [2, 2],
    ]);
  });
});
