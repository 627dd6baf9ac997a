// Runs a bundled simulator answered are marked simulated (each simulator announces itself on every reply, through
// the real ollama, openai and AWS SDK clients) and never pooled with real runs; a prompt the server cut to its
// context window is flagged per call, counted per run (summary --json truncated_calls) and per statistics group;
// the context guard keeps the output cap free on Ollama as on the other providers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { STATES } from '../core/machine/states.ts';
import { OllamaSim, SIMULATED_VERSION, digestOf } from '../simulators/ollama-sim.ts';
import { sweepStatistics } from '../reports/sweep-statistics.ts';
import { paperTable } from '../reports/paper-table.ts';
import { loadReport } from '../reports/report-data.ts';
import { reportHtml } from '../reports/report-page.ts';
import { startViewer } from '../viewer/server.ts';
import { exportedExperiments } from '../results/sweep-export.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { bedrockRunner, FAST_RETRY, openaiSim, providerSims } from './support/provider-sims.ts';
import { cli } from './support/cli.ts';
import { OpenAISim } from '../simulators/openai-sim.ts';
import { promptWasCut } from '../core/providers/llm/prompt-cut.ts';

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
const summary = async (id: string | null) => {
  const r = await ariadne(['summary', String(id), '--json']);
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
    const s = await summary(experimentId);
    expect(s).toMatchObject({ simulated: true, truncated_calls: 0 });
    expect(s.provenance).toMatchObject({
      model_digest: digestOf(QWEN),
      quantization_level: 'simulated',
      parameter_size: 'simulated',
      server_version: SIMULATED_VERSION, // 0.0.0-simulated
      simulator: 'ollama',
    });
    expect(String((s.provenance as { model_digest: string }).model_digest)).toMatch(/^simulated-/);
    const table = (await ariadne(['list', '--limit', '1'])).stdout;
    expect(table).toMatch(/\| SIM ollama/);
    expect(table).toMatch(/SIM: a bundled simulator/);
    const listed = JSON.parse((await ariadne(['list', '--limit', '1', '--format', 'json'])).stdout) as unknown[];
    expect(listed).toMatchObject([{ experiment_id: experimentId, simulated: true }]);
    // the viewer's run page reads the mark with the run, and each call's simulator with its turn
    const viewer = await startViewer({ db, source: 'test', pollMs: 1000 });
    try {
      const get = async (path: string) => (await fetch(new URL(path, viewer.url))).json();
      expect(await get(`/api/experiments/${experimentId}`)).toMatchObject({ simulated: true });
      const { turns } = (await get(`/api/experiments/${experimentId}/turns`)) as {
        turns: Array<{ calls: Array<{ simulator: string }> }>;
      };
      expect(turns[0].calls[0]).toMatchObject({ simulator: 'ollama', prompt_truncated: false });
      const { rows } = (await get('/api/experiments')) as { rows: Array<{ experiment_id: string }> };
      expect(rows.find((r) => r.experiment_id === experimentId)).toMatchObject({ simulated: true });
    } finally {
      await viewer.close();
    }
  });

  it('on Bedrock (the AWS SDK client, HTTP/2) and on an OpenAI-compatible server (the openai client)', async () => {
    const bedrock = await bedrockRunner(
      sims,
      () => db,
      MAZE,
    )('us.anthropic.claude-sonnet-4-6', {
      max_moves: 12,
    });
    expect(await summary(bedrock.experimentId)).toMatchObject({ simulated: true });
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
      expect(await summary(run.experimentId)).toMatchObject({ simulated: true });
      expect(new Set((await callsOf(run.experimentId)).map((c) => c.simulator))).toEqual(new Set(['openai']));
      const owned = ((await summary(run.experimentId)).provenance as { served_model: { owned_by: string } })
        .served_model;
      expect(owned.owned_by).toBe('simulated');
    }
  });

  it('a server that does not announce itself (a real one) leaves the run real', async () => {
    const { experimentId } = await runOllama(plainUrl);
    const calls = await callsOf(experimentId);
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) expect(c.simulator).toBeNull();
    expect(await summary(experimentId)).toMatchObject({ simulated: false });
    expect((await ariadne(['list', '--limit', '1'])).stdout).not.toMatch(/SIM/);
    const listed = JSON.parse((await ariadne(['list', '--limit', '1', '--format', 'json'])).stdout) as unknown[];
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
    const s = await summary(experimentId);
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

describe('on an OpenAI-compatible server', () => {
  const runOpenAI = (baseUrl: string, config: Record<string, unknown> = {}) =>
    runLocalExperiment(
      {
        agent: 'openai',
        model: 'gpt-4.1-mini',
        maze: MAZE,
        config: { max_moves: 6, openai: { base_url: baseUrl }, retry: FAST_RETRY, ...config },
      },
      { db, retryIntervals: NO_WAIT },
    );

  it('a prompt the server counts at its window (as LM Studio answers one) is flagged', async () => {
    const sim = new OpenAISim({ tokenScale: 4 });
    const url = `${await sim.listen()}/v1`;
    try {
      const { experimentId } = await runOpenAI(url, {
        max_output_tokens: 128,
        context_windows: { 'gpt-4.1-mini': 2048 },
      });
      const cut = (await callsOf(experimentId)).filter((c) => c.prompt_truncated).length;
      expect(cut).toBeGreaterThan(0);
      expect(await summary(experimentId)).toMatchObject({ truncated_calls: cut, simulated: true });
    } finally {
      await sim.close();
    }
  });

  it('a reply stopped by a full window is a cut prompt; one stopped by its own cap is not', () => {
    const usage = (prompt: number, output: number) => ({ inputTokens: prompt, outputTokens: output });
    expect(promptWasCut(4096, { usage: usage(3900, 196), stopReason: 'length' })).toBe(true);
    expect(promptWasCut(4096, { usage: usage(1000, 196), stopReason: 'length' })).toBe(false);
    expect(promptWasCut(4096, { usage: usage(3900, 100), stopReason: 'stop' })).toBe(false);
    // cache reads are part of the prompt the server holds
    expect(promptWasCut(4096, { usage: { ...usage(96, 10), cacheReadInputTokens: 4000 }, stopReason: 'stop' })).toBe(
      true,
    );
    expect(promptWasCut(null, { usage: usage(9999, 1), stopReason: 'length' })).toBe(false);
  });

  it('a real server (no announcement) refusing a prompt past its window: a real run, the fix named', async () => {
    // vLLM's answer to a prompt past max_model_len (its OpenAI-style error body), from a plain server that speaks the
    // wire format
    const server: Server = createServer((req, res) => {
      req.resume();
      res.writeHead(req.method === 'POST' ? 400 : 200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          req.method === 'POST'
            ? {
                error: {
                  message:
                    "This model's maximum context length is 2048 tokens. However, you requested 3100 tokens " +
                    '(2076 in the messages, 1024 in the completion). Please reduce the length of the messages or ' +
                    'completion.',
                  type: 'BadRequestError',
                  param: null,
                  code: 400,
                },
              }
            : { id: 'gpt-4.1-mini', object: 'model', created: 0, owned_by: 'vllm' },
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      await expect(runOpenAI(url)).rejects.toThrow(/maximum context length.*fix: .*config\.context_windows/);
      const { rows } = await db.pool.query<{ id: string; simulated: boolean }>(
        "SELECT id, simulated FROM experiments WHERE provider = 'openai' AND config #>> '{openai,base_url}' = $1",
        [url],
      );
      expect(rows).toHaveLength(1);
      expect(await summary(rows[0].id)).toMatchObject({ simulated: false, status: 'failed' });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
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
    const json = JSON.parse((await ariadne(['stats', 'mixed', '--json'])).stdout) as {
      factors: string[];
      groups: Array<{ promptTruncatedRuns: number; simulatedRuns: number }>;
    };
    expect(json.factors).toContain('simulated');
    expect(json.groups.map((g) => [g.simulatedRuns, g.promptTruncatedRuns])).toEqual([
      [0, 2],
      [2, 2],
    ]);
    // the sweep report's rows are split the same way, and its notes say what they rest on
    const report = await loadReport(db.pool, 'mixed');
    expect(report.factors).toContain('simulated');
    const html = reportHtml(report, () => null);
    expect(html).toMatch(/<ul class="note" id="provenance">.*4 runs had a prompt cut.*Rows with simulated true/);
    // and the export carries both per run, for an analysis outside Ariadne
    const exported: Array<Record<string, unknown>> = [];
    for await (const page of exportedExperiments(db.pool, 'mixed')) exported.push(...page);
    expect(exported.map((r) => [r.repeat, r.simulated, Number(r.prompt_truncated_calls) > 0]).sort()).toEqual([
      [1, true, true],
      [1, true, true],
      [2, false, true],
      [2, false, true],
    ]);
  });
});
