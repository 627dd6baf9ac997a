// Memory modes (fresh, history, conversation), recall_all on or off, the
// context guard (trim, refuse) and Ollama's timings, through the real
// `ollama` client against OllamaSim, with every turn's agent built anew (as
// in a fresh Lambda), so what crosses turns can only come from the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { startExperiment } from '../core/engine/experiment.ts';
import { runTurn } from '../core/engine/turn.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { agents } from '../core/providers/agents.ts';
import { ContextOverflowError, contextWindow, fitToWindow } from '../core/providers/llm/context-guard.ts';
import { experimentConfigSchema } from '../core/config/experiment-config.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { estimateMessageTokens } from '../core/providers/llm/token-estimate.ts';
import type { ChatMessage } from '../core/providers/llm/chat-model.ts';
import { testDatabase, TRANSPORTS, type TestDatabase } from './support/db.ts';
import { FAST_RETRY as SHARED_RETRY, providerSims } from './support/provider-sims.ts';

const sims = providerSims();
const { ollama } = sims;
const MODEL = 'qwen2.5:7b';
const SONNET = 'us.anthropic.claude-sonnet-4-6';
const FAST_RETRY = { ...SHARED_RETRY, max_attempts: 2 };
const NO_WAIT = { [STATES.InvokeOllamaAgent]: 0, [STATES.InvokeBedrockAgent]: 0 };
const MAZE = { generator: 'medium', size: 15, seed: 3 };

interface WireMessage {
  role: string;
  content: string;
  tool_name?: string;
}
const chatRequests = () =>
  ollama.requests.filter((r) => r.path === '/api/chat').map((r) => r.body as { messages: WireMessage[]; tools: [] });
/** The turn a request belongs to, read from the "Turn N." of its newest turn-opening user message. */
const turnOf = (messages: WireMessage[]) =>
  Number(/Turn (\d+)\./.exec(messages.filter((m) => m.role === 'user').at(-1)?.content ?? '')?.[1] ?? NaN);

describe.each(TRANSPORTS)('over %s', (transport) => {
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
        agent: 'ollama',
        model: MODEL,
        maze: MAZE,
        config: { ollama: { host: sims.ollamaUrl }, retry: FAST_RETRY, max_moves: 60, ...config },
      },
      { db, retryIntervals: NO_WAIT },
    );
  /** A run that may fail (runLocalExperiment throws, carrying the experiment and its summary). */
  const runToEnd = (config: Record<string, unknown>) =>
    run(config).catch((e: { name?: string; experimentId: string; summary: { status: string } | null }) => {
      if (e.name !== 'ExperimentFailedError') throw e;
      return { experimentId: e.experimentId, summary: e.summary! };
    });
  const rows = async (sql: string, params: unknown[]) => (await db.pool.query(sql, params)).rows;

  it('history mode opens each turn with the last N executed actions, their outcomes and positions', async () => {
    const { experimentId } = await run({ memory: 'history', memory_history_actions: 3 });
    const actions = await rows(
      `SELECT turn_number, step_number, tool, success, outcome, to_x, to_y FROM actions
       WHERE experiment_id = $1 AND executed ORDER BY step_number`,
      [experimentId],
    );
    const openers = chatRequests().filter((b) => b.messages.length === 2); // system + the turn's first message
    expect(openers.length).toBeGreaterThan(2);
    for (const { messages } of openers) {
      const turn = turnOf(messages);
      const expected = actions
        .filter((a) => a.turn_number < turn)
        .slice(-3)
        .map(
          (a) => `#${a.step_number} ${a.tool} ${a.success ? 'ok' : `blocked (${a.outcome})`} -> (${a.to_x},${a.to_y})`,
        );
      const first = messages[1].content;
      if (expected.length === 0) expect(first).not.toContain('Your last');
      else expect(first).toContain(`Your last ${expected.length} actions`);
      for (const line of expected) expect(first).toContain(line);
      expect(first.split('\n').filter((l) => l.startsWith('#'))).toHaveLength(expected.length);
    }
  });

  it('fresh mode (the default) carries nothing: each turn starts from the observation alone', async () => {
    const { experimentId } = await run({});
    const requests = chatRequests();
    expect(requests.filter((b) => turnOf(b.messages) > 1).length).toBeGreaterThan(0);
    for (const { messages } of requests) {
      // one turn-opening message (this turn's), never an earlier turn's, and no history block
      expect(messages.filter((m) => /^Turn \d+\./m.test(m.content))).toHaveLength(1);
      expect(messages[1].content).not.toContain('Your last');
    }
    const [exp] = await rows('SELECT agent_memory FROM experiments WHERE id = $1', [experimentId]);
    expect(exp.agent_memory).toBeNull();
  });

  it('conversation mode resumes the stored conversation in the next invocation, turn by turn', async () => {
    const started = await startExperiment(
      {
        agent: 'ollama',
        provider: 'ollama',
        model: MODEL,
        maze: { kind: 'generated', spec: { generator: 'medium', width: 15, height: 15, seed: 3 } },
        config: { ollama: { host: sims.ollamaUrl }, retry: FAST_RETRY, memory: 'conversation' },
      },
      new PgStore(db),
    );
    const id = started.experimentId;
    // a new store and new agents per turn: nothing is held in memory between the two invocations
    await runTurn(id, 1, { store: new PgStore(db), agents });
    const [after1] = await rows('SELECT agent_memory FROM experiments WHERE id = $1', [id]);
    const stored = after1.agent_memory.conversation as ChatMessage[];
    expect(stored[0]).toMatchObject({ role: 'user' });
    expect((stored[0] as { text: string }).text).toContain('Turn 1.');
    expect(stored.at(-1)?.role).toBe('tool'); // the turn's last calls, answered with their results

    const before = chatRequests().length;
    await runTurn(id, 2, { store: new PgStore(db), agents });
    const [first2] = chatRequests().slice(before);
    expect(turnOf(first2.messages)).toBe(2);
    const turn1 = chatRequests().slice(0, before).at(-1)!.messages.slice(1);
    // turn 2 starts with all of turn 1 (its requests' messages, then the last reply and its results)
    expect(first2.messages.slice(1, 1 + turn1.length)).toEqual(turn1);
    expect(first2.messages.at(-1)?.content).toContain('Turn 2.');
    expect(first2.messages.filter((m) => m.role === 'tool').length).toBeGreaterThan(
      turn1.filter((m) => m.role === 'tool').length,
    );
  });

  it('conversation mode stores a conversation bounded by memory_conversation_tokens, from a user message', async () => {
    const { experimentId } = await run({ memory: 'conversation', memory_conversation_tokens: 1_500 });
    const [exp] = await rows('SELECT agent_memory, turns_completed FROM experiments WHERE id = $1', [experimentId]);
    expect(exp.turns_completed).toBeGreaterThan(3);
    const conv = exp.agent_memory.conversation as ChatMessage[];
    expect(conv.length).toBeGreaterThan(0);
    expect(conv[0].role).toBe('user');
    expect(conv.reduce((n, m) => n + estimateMessageTokens(m), 0)).toBeLessThanOrEqual(1_500);
    expect((conv[0] as { text: string }).text).not.toContain('Turn 1.'); // the oldest went
  });

  it('trim keeps every prompt estimate within num_ctx, less the output cap, by dropping the oldest', async () => {
    const { experimentId, summary } = await run({
      memory: 'conversation',
      max_output_tokens: 256,
      ollama: { host: sims.ollamaUrl, num_ctx: 2_048 },
    });
    expect(summary?.status).not.toBe('failed');
    const calls = await rows(
      'SELECT prompt_estimate, context_window, context_trimmed FROM llm_calls WHERE experiment_id = $1',
      [experimentId],
    );
    expect(calls.length).toBeGreaterThan(5);
    for (const c of calls) {
      expect(c.context_window).toBe(2_048);
      expect(c.prompt_estimate).toBeLessThanOrEqual(2_048 - 256);
    }
    expect(calls.some((c) => c.context_trimmed > 0)).toBe(true);
  });

  it('refuse fails the experiment with ContextOverflowError naming the estimate, the window and the fix', async () => {
    const { summary } = (await runToEnd({
      context_policy: 'refuse',
      max_output_tokens: 64,
      ollama: { host: sims.ollamaUrl, num_ctx: 320 },
    })) as {
      summary: { status: string; failure_reason: string };
    };
    expect(summary.status).toBe('failed');
    expect(summary.failure_reason).toMatch(/ContextOverflowError/);
    expect(summary.failure_reason).toMatch(/about \d+ tokens .* the 256 its context window/);
    expect(summary.failure_reason).toContain('num_ctx');
    expect(ollama.requests.filter((r) => r.path === '/api/chat')).toHaveLength(0); // refused before the call
  });

  it('recall_tool false leaves recall_all out of the tools and the prompt, and refuses a call to it', async () => {
    ollama.faults = [{ kind: 'script', calls: ['recall_all'] }];
    const { experimentId } = await run({ recall_tool: false, max_moves: 8 });
    for (const b of chatRequests()) {
      expect(b.tools.map((t: { function: { name: string } }) => t.function.name)).not.toContain('recall_all');
      expect(b.messages[0].content).not.toContain('recall');
    }
    const [first] = await rows(
      'SELECT tool, outcome FROM actions WHERE experiment_id = $1 ORDER BY turn_number, call_index LIMIT 1',
      [experimentId],
    );
    expect(first).toEqual({ tool: 'recall_all', outcome: 'unknown_tool' });
    const [exp] = await rows('SELECT prompt_text FROM experiments WHERE id = $1', [experimentId]);
    expect(exp.prompt_text).not.toContain('recall_all');

    ollama.requests.length = 0;
    await run({ max_moves: 8 }); // on by default
    const [on] = chatRequests();
    expect(on.tools.map((t: { function: { name: string } }) => t.function.name)).toContain('recall_all');
    expect(on.messages[0].content).toContain('recall_all');
  });

  it("stores Ollama's timings per call, and the context_usage view shows tokens per second", async () => {
    const { experimentId } = await run({ max_moves: 16 });
    const calls = await rows(
      `SELECT l.input_tokens, l.output_tokens, l.total_duration_ns, l.load_duration_ns, l.prompt_eval_count,
              l.prompt_eval_duration_ns, l.eval_count, l.eval_duration_ns, u.prompt_tokens_per_second,
              u.eval_tokens_per_second
       FROM llm_calls l JOIN context_usage u USING (experiment_id, turn_number, call_index)
       WHERE experiment_id = $1 ORDER BY turn_number, call_index`,
      [experimentId],
    );
    expect(calls.length).toBe(ollama.replies.length);
    calls.forEach((c, i) => {
      const sent = ollama.replies[i];
      // the sim's durations: 1 ms per prompt token, 25 ms per generated one, 20 ms to load, 5 ms more in total
      expect(c).toMatchObject({ prompt_eval_count: sent.inputTokens, eval_count: sent.outputTokens });
      expect(Number(c.prompt_eval_duration_ns)).toBe(sent.inputTokens * 1_000_000);
      expect(Number(c.eval_duration_ns)).toBe(sent.outputTokens * 25_000_000);
      expect(Number(c.load_duration_ns)).toBe(20_000_000);
      expect(Number(c.total_duration_ns)).toBe(20_000_000 + sent.inputTokens * 1e6 + sent.outputTokens * 25e6 + 5e6);
      expect(Number(c.prompt_tokens_per_second)).toBe(1000);
      expect(Number(c.eval_tokens_per_second)).toBe(40);
    });
  });

  it('context_usage shows prompt tokens next to the window and flags an Ollama prompt cut at num_ctx', async () => {
    const usage = (id: string | null) =>
      rows('SELECT * FROM context_usage WHERE experiment_id = $1 ORDER BY turn_number, call_index', [id]);
    // one action per turn and one turn: the turn's one call is committed whatever the window
    const one = { max_moves: 1, max_actions_per_turn: 1, max_turns: 1 };
    const wide = await usage((await run(one)).experimentId);
    expect(wide[0]).toMatchObject({ provider: 'ollama', context_window: 32_768, at_window: false, memory: 'fresh' });
    expect(wide[0].prompt_tokens).toBe(ollama.replies[0].inputTokens);
    // The estimate (chars/4 of the text) is below what the sim counts (chars/4 of the wire JSON): a window
    // between the two passes the guard, and the server cuts the prompt, as Ollama does, to num_ctx.
    const estimate = wide[0].prompt_estimate as number;
    const reported = wide[0].prompt_tokens as number;
    // the guard keeps the output cap (16) free: the window must hold the estimate and the cap
    const cap = 16;
    expect(reported).toBeGreaterThan(estimate + cap + 1);
    const numCtx = Math.floor((estimate + cap + reported) / 2);
    const cutRun = await run({ ...one, max_output_tokens: cap, ollama: { host: sims.ollamaUrl, num_ctx: numCtx } });
    const cut = await usage(cutRun.experimentId);
    expect(cut[0]).toMatchObject({ prompt_tokens: numCtx, context_window: numCtx, at_window: true });
    expect(Number(cut[0].window_used)).toBe(1);
    // the call's own flag (migration 029) says the same
    const flags = await rows('SELECT prompt_truncated FROM llm_calls WHERE experiment_id = $1 ORDER BY call_index', [
      cutRun.experimentId,
    ]);
    expect(flags[0].prompt_truncated).toBe(true);
  });
});

describe('bedrock', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('takes the window from config.context_windows (defaults for the priced models) and never flags it', async () => {
    const { experimentId } = await runLocalExperiment(
      {
        agent: 'bedrock',
        model: SONNET,
        maze: MAZE,
        config: { bedrock: { endpoint: sims.bedrockUrl, region: 'us-west-2' }, retry: FAST_RETRY, max_moves: 8 },
      },
      { db, retryIntervals: NO_WAIT },
    );
    const usage = (await db.pool.query('SELECT * FROM context_usage WHERE experiment_id = $1', [experimentId])).rows;
    expect(usage.length).toBeGreaterThan(0);
    for (const u of usage) {
      expect(u).toMatchObject({ provider: 'bedrock', context_window: 1_000_000, at_window: false });
      expect(u.prompt_tokens).toBeGreaterThan(0);
      expect(u.total_duration_ns).toBeNull();
    }
  });
});

describe('the context guard', () => {
  const target = (policy: 'trim' | 'refuse', pieces: number[]) => ({
    provider: 'ollama',
    model: MODEL,
    window: 1_000,
    reserve: 100,
    policy,
    estimate: () => pieces.reduce((a, b) => a + b, 0),
    trimOldest: () => (pieces.length > 1 ? (pieces.shift(), 1) : 0),
  });

  it('trims the oldest pieces until the estimate fits the window less the reply reserve', () => {
    expect(fitToWindow(target('trim', [400, 300, 200, 100]))).toEqual({ estimate: 600, window: 1_000, trimmed: 1 });
    expect(fitToWindow(target('trim', [100, 200]))).toEqual({ estimate: 300, window: 1_000, trimmed: 0 });
  });

  it('refuses with a typed, named error under refuse, and under trim when nothing is left to drop', () => {
    const refused = (() => {
      try {
        fitToWindow(target('refuse', [400, 300, 200, 100]));
      } catch (e) {
        return e;
      }
    })();
    expect(refused).toBeInstanceOf(ContextOverflowError);
    expect(refused).toMatchObject({ name: 'ContextOverflowError', estimate: 1_000, window: 900 });
    expect(() => fitToWindow(target('trim', [5_000]))).toThrow(/even with all carried memory dropped/);
  });
});

describe('the settings', () => {
  const sweep = (settings: string) =>
    loadSweep(
      [
        'sweep: memory-modes',
        'agents: [{ agent: ollama, model: qwen2.5:7b }]',
        'mazes: { generators: [medium], sizes: [15], seeds: [1] }',
        `settings: ${settings}`,
        'repeats: 1',
      ].join('\n'),
    );

  it('are sweepable: each memory mode and recall_tool value is a cell with its resolved config', () => {
    const { cells } = sweep('{ memory: [fresh, history, conversation], recall_tool: [true, false] }');
    expect(cells).toHaveLength(6);
    const resolved = cells.map((c) => experimentConfigSchema.parse(c.config));
    expect(resolved.map((c) => [c.memory, c.recall_tool])).toEqual([
      ['fresh', true],
      ['fresh', false],
      ['history', true],
      ['history', false],
      ['conversation', true],
      ['conversation', false],
    ]);
    expect(resolved[0]).toMatchObject({ memory_history_actions: 20, context_policy: 'trim' });
    expect(() => sweep('{ memory: [forever] }')).toThrow(/memory/);
  });

  it('take a Bedrock window from context_windows, also through an inference profile', () => {
    const config = experimentConfigSchema.parse({ context_windows: { 'acme.model-v1': 8_192 } });
    expect(contextWindow('bedrock', 'acme.model-v1', config)).toBe(8_192);
    expect(contextWindow('bedrock', SONNET, config)).toBe(1_000_000); // the defaults stay (merged), through a profile
    expect(contextWindow('bedrock', 'unknown.model', config)).toBeNull();
    expect(contextWindow('ollama', MODEL, config)).toBe(config.ollama.num_ctx);
  });
});
