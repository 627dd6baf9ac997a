// The OpenAI Chat Completions simulator, through the official `openai` client as the provider adapter uses it: the
// simulated model plays a maze from the observation text, tool calls arrive whole and streamed, usage is what the
// simulator recorded (prompt_tokens including cached_tokens, completion_tokens including reasoning_tokens), and each
// error reaches the client as the class and code OpenAI's would.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAISim } from '../simulators/openai-sim.ts';

const ROOT = join(import.meta.dirname, '..');

// The rays observation of test/observations.test.ts's maze (7x5), the agent at (2,2):
//   x 0123456
// y 0 ...#...
//   1 .#.#.#.
//   2 .#S..#G
//   3 .###.#.
//   4 .......
const SYSTEM = 'You are in a 2-D grid maze of 7x5 tiles. Find the goal G. Call one move tool per step.';
const OBSERVATION = `Turn 1. Actions taken so far: 0 of 100.
You are at (2,2).
north: ..
south: #
east: ..#
west: #
You may take up to 8 actions this turn.`;
// what the engine answers after two moves north (rays format): (2,1), then (2,0) at the top edge
const AFTER_NORTH = 'ok: moved north to (2,1)\nYou are at (2,1).\nnorth: .\nsouth: .#\neast: #\nwest: #';
const AFTER_NORTH_AGAIN = 'ok: moved north to (2,0)\nYou are at (2,0).\nnorth: \nsouth: ..#\neast: #\nwest: ..';

const TOOLS: ChatCompletionTool[] = ['move_north', 'move_south', 'move_east', 'move_west', 'recall_all'].map(
  (name) => ({
    type: 'function',
    function: {
      name,
      description: name.replace('_', ' '),
      parameters: { type: 'object', properties: { reasoning: { type: 'string' } }, required: [] },
    },
  }),
);
const START: ChatCompletionMessageParam[] = [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: OBSERVATION },
];
const MODEL = 'gpt-4.1-mini';
const QWEN = 'Qwen/Qwen2.5-7B-Instruct';

const sim = new OpenAISim();
let url = '';
let client: OpenAI;

beforeAll(async () => {
  url = await sim.listen();
  client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'k', maxRetries: 0 });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.requests.length = 0;
  sim.replies.length = 0;
  sim.faults = [];
  sim.always = undefined;
  sim.limits = {};
  sim.admitted.length = 0;
  sim.throttled.length = 0;
  sim.now = () => Date.now();
});

const ask = (over: Partial<ChatCompletionCreateParamsNonStreaming> = {}) =>
  client.chat.completions.create({ model: MODEL, messages: START, tools: TOOLS, ...over, stream: false });

/** The error a call threw (the test fails if it threw none). */
async function thrown(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

/** A server of its own, for options the shared one does not have. */
async function withSim<T>(
  opts: ConstructorParameters<typeof OpenAISim>[0],
  fn: (c: OpenAI, s: OpenAISim) => Promise<T>,
) {
  const own = new OpenAISim(opts);
  const ownUrl = await own.listen();
  try {
    return await fn(new OpenAI({ baseURL: `${ownUrl}/v1`, apiKey: 'k', maxRetries: 0 }), own);
  } finally {
    await own.close();
  }
}

describe('the simulated model plays', () => {
  it('moves towards open tiles from the observation, as tool calls whose arguments are JSON strings', async () => {
    const res = await ask();
    expect(res.object).toBe('chat.completion');
    expect(res.id).toMatch(/^chatcmpl-/);
    const choice = res.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.refusal).toBeNull();
    const calls = (choice.message.tool_calls ?? []).map((c) => (c.type === 'function' ? c : null)!);
    // north is open for two tiles; south and west are walls: two calls per reply (callsPerReply), both north
    expect(calls.map((c) => c.function.name)).toEqual(['move_north', 'move_north']);
    for (const c of calls) {
      expect(c.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
      expect(c.type).toBe('function');
      expect(JSON.parse(c.function.arguments)).toEqual({ reasoning: 'heading north towards unexplored tiles' });
    }
    expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length);

    // the game goes on: the calls answered by id, the model turns west along the top row (east of (2,0) is a wall)
    const next = await ask({
      messages: [
        ...START,
        { role: 'assistant', content: null, tool_calls: calls },
        { role: 'tool', tool_call_id: calls[0].id, content: AFTER_NORTH },
        { role: 'tool', tool_call_id: calls[1].id, content: AFTER_NORTH_AGAIN },
      ],
    });
    const names = (next.choices[0].message.tool_calls ?? []).map((c) => (c.type === 'function' ? c.function.name : ''));
    expect(names[0]).toBe('move_west');
  });

  it('reads developer messages and text parts as system messages and strings: the maze size it states', async () => {
    // a corridor of 3x1 tiles, all of it in sight: nothing is left to explore, if the model knows the size
    const corridor = 'Turn 1. Actions taken so far: 0 of 10.\nYou are at (0,0).\nnorth: \nsouth: \neast: ..\nwest: ';
    const sized = await ask({
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'You are in a 2-D grid maze of 3x1 tiles.' }] },
        { role: 'user', content: [{ type: 'text', text: corridor }] },
      ],
    });
    expect(sized.choices[0].message.tool_calls).toBeUndefined();
    expect(sized.choices[0].message.content).toBe('Nothing left to explore.');
    // without it, the corridor might go on east
    const unsized = await ask({ messages: [{ role: 'user', content: [{ type: 'text', text: corridor }] }] });
    const names = (unsized.choices[0].message.tool_calls ?? []).map((c) =>
      c.type === 'function' ? c.function.name : '',
    );
    expect(names[0]).toBe('move_east');
  });

  it('usage is what the simulator recorded, and the fingerprint is the model’s across requests', async () => {
    const a = await ask({ seed: 7 });
    const b = await ask({ seed: 7 });
    const q = await ask({ model: QWEN, seed: 7 });
    expect(a.system_fingerprint).toMatch(/^fp_simulated_/);
    expect(b.system_fingerprint).toBe(a.system_fingerprint);
    expect(q.system_fingerprint).not.toBe(a.system_fingerprint);
    const u = a.usage!;
    expect(u.total_tokens).toBe(u.prompt_tokens + u.completion_tokens);
    expect(u.prompt_tokens_details).toEqual({ cached_tokens: 0, audio_tokens: 0 });
    expect(u.completion_tokens_details).toEqual({
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    });
    expect(sim.replies[0]).toEqual({
      model: MODEL,
      inputTokens: u.prompt_tokens,
      outputTokens: u.completion_tokens,
      cacheReadInputTokens: 0,
      reasoningTokens: 0,
      images: 0,
      fault: null,
    });
  });

  it('parallel_tool_calls false: one call per reply', async () => {
    expect((await ask()).choices[0].message.tool_calls).toHaveLength(2);
    const one = await ask({ parallel_tool_calls: false });
    expect(one.choices[0].message.tool_calls).toHaveLength(1);
    expect(one.choices[0].finish_reason).toBe('tool_calls');
  });

  it('tool_choice none: words, no call', async () => {
    const res = await ask({ tool_choice: 'none' });
    expect(res.choices[0].message.tool_calls).toBeUndefined();
    expect(res.choices[0].message.content).toMatch(/unexplored/);
    expect(res.choices[0].finish_reason).toBe('stop');
  });
});

describe('streaming', () => {
  it('include_usage: the client reassembles the calls; the last chunk carries the recorded usage', async () => {
    const stream = client.chat.completions.stream({
      model: MODEL,
      messages: START,
      tools: TOOLS,
      reasoning_effort: 'low',
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const final = await stream.finalChatCompletion();
    const calls = final.choices[0].message.tool_calls ?? [];
    expect(calls.map((c) => c.function.name)).toEqual(['move_north', 'move_north']);
    for (const c of calls) expect(JSON.parse(c.function.arguments)).toHaveProperty('reasoning');
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    expect(final.choices[0].finish_reason).toBe('tool_calls');

    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0].choices[0].delta).toMatchObject({ role: 'assistant', content: '' });
    // each call opens with its id, type and name and empty arguments; fragments follow with the index only
    const deltas = chunks.flatMap((c) => c.choices.flatMap((ch) => ch.delta.tool_calls ?? []));
    expect(deltas.filter((d) => d.id).map((d) => [d.index, d.function])).toEqual([
      [0, { name: 'move_north', arguments: '' }],
      [1, { name: 'move_north', arguments: '' }],
    ]);
    expect(deltas.filter((d) => !d.id).every((d) => d.function?.name === undefined && d.type === undefined)).toBe(true);
    const reasoning = chunks
      .flatMap((c) => c.choices.map((ch) => (ch.delta as { reasoning_content?: string }).reasoning_content ?? ''))
      .join('');
    expect(reasoning).toMatch(/nearest unexplored tiles/);
    const finishing = chunks.at(-2)!;
    expect(finishing.choices).toEqual([{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }]);
    // every chunk but the last says usage null; the last has no choices and the usage
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    const usage = last.usage!;
    expect(final.usage).toEqual(usage);
    const recorded = sim.replies.at(-1)!;
    expect(usage.prompt_tokens - usage.prompt_tokens_details!.cached_tokens!).toBe(recorded.inputTokens);
    expect(usage.completion_tokens).toBe(recorded.outputTokens);
    expect(usage.completion_tokens_details!.reasoning_tokens).toBe(recorded.reasoningTokens);
    expect(recorded.reasoningTokens).toBeGreaterThan(0);
  });

  it('without include_usage: no usage at all, no empty-choices chunk', async () => {
    const stream = await client.chat.completions.create({ model: MODEL, messages: START, tools: TOOLS, stream: true });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.some((c) => 'usage' in c)).toBe(false);
    expect(chunks.every((c) => c.choices.length === 1)).toBe(true);
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe('tool_calls');
    expect(sim.replies).toHaveLength(1); // counted all the same
  });

  it('streams text: the pieces make the sentence, and the raw body ends with [DONE]', async () => {
    sim.faults = [{ kind: 'say', text: 'I choose the eastern corridor because it is open.' }];
    const raw = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: START, tools: TOOLS, stream: true }),
    });
    expect(raw.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const body = await raw.text();
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
    const events = body
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map((e) => JSON.parse(e.slice(6)) as ChatCompletionChunk);
    const pieces = events.map((e) => e.choices[0]?.delta.content ?? '').filter(Boolean);
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.join('')).toBe('I choose the eastern corridor because it is open.');
    expect(events.at(-1)!.choices[0].finish_reason).toBe('stop');
  });
});

describe('models', () => {
  it('lists the served models; an id with a slash is retrieved; an unknown one is model_not_found', async () => {
    const listed = [];
    for await (const m of client.models.list()) listed.push(m);
    expect(listed.map((m) => m.id)).toEqual(['gpt-4.1-mini', 'o4-mini', QWEN]);
    for (const m of listed)
      // owned by no one real: the simulator names itself
      expect(m).toEqual({ id: m.id, object: 'model', created: expect.any(Number), owned_by: 'simulated' });
    const qwen = await client.models.retrieve(QWEN);
    expect(qwen).toMatchObject({ id: QWEN, object: 'model', owned_by: 'simulated' });
    const err = await thrown(client.models.retrieve('gpt-nope'));
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err.code).toBe('model_not_found');
  });

  it('a chat with an unknown model: NotFoundError, code model_not_found, OpenAI’s wording', async () => {
    const err = await thrown(ask({ model: 'gpt-9' }));
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err.code).toBe('model_not_found');
    expect(err.type).toBe('invalid_request_error');
    expect(err.message).toBe('404 The model `gpt-9` does not exist or you do not have access to it.');
    expect(sim.replies).toHaveLength(0);
  });
});

describe('errors', () => {
  it('with apiKey set: a wrong or missing key is 401 on every path, the right key passes', async () => {
    await withSim({ apiKey: 'sk-sim-secret-1234' }, async (wrong, own) => {
      const models = await thrown(wrong.models.list());
      expect(models).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(models.code).toBe('invalid_api_key');
      const chat = await thrown(wrong.chat.completions.create({ model: MODEL, messages: START }));
      expect(chat).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(chat.message).toMatch(/^401 Incorrect API key provided: /);
      const none = await fetch(new URL('/v1/models', wrong.baseURL));
      expect(none.status).toBe(401);
      const right = new OpenAI({ baseURL: wrong.baseURL, apiKey: 'sk-sim-secret-1234', maxRetries: 0 });
      const res = await right.chat.completions.create({ model: MODEL, messages: START, tools: TOOLS });
      expect(res.choices[0].finish_reason).toBe('tool_calls');
      expect(own.replies).toHaveLength(1);
    });
    // unset (vLLM without --api-key): any key passes
    expect((await ask()).choices).toHaveLength(1);
  });

  it('a 429 fault: RateLimitError, rate_limit_exceeded, with the x-ratelimit headers', async () => {
    sim.faults = [{ kind: 'status', status: 429 }];
    const err = await thrown(ask());
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.code).toBe('rate_limit_exceeded');
    expect(err.type).toBe('requests');
    expect(err.message).toMatch(/Rate limit reached for gpt-4.1-mini .* on requests per min \(RPM\)/);
    expect(err.headers.get('x-ratelimit-limit-requests')).toBe('500');
    expect(err.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(err.headers.get('x-ratelimit-reset-requests')).toBe('1s');
    expect(err.headers.get('x-ratelimit-limit-tokens')).toBe('200000');
    expect((await ask()).choices[0].finish_reason).toBe('tool_calls'); // the next one passes
  });

  it('past a requests limit: 429 type requests, the headers counting down on the way', async () => {
    sim.limits[MODEL] = { requests_per_minute: 2, tokens_per_minute: 1_000_000 };
    const first = await ask().withResponse();
    expect(first.response.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect(first.response.headers.get('x-ratelimit-limit-tokens')).toBe('1000000');
    const second = await ask().withResponse();
    expect(second.response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(second.response.headers.get('x-ratelimit-reset-requests')).toMatch(/^(1m0s|\d+(\.\d+)?s)$/);
    const err = await thrown(ask());
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.type).toBe('requests');
    expect(err.message).toMatch(/on requests per min \(RPM\): Limit 2, Used 2, Requested 1\. Please try again in/);
    expect(err.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(sim.throttled.map((t) => t.reason)).toEqual(['requests']);
    // another model is not limited
    expect((await ask({ model: QWEN })).choices).toHaveLength(1);
  });

  it('past a tokens limit: 429 type tokens', async () => {
    sim.limits[MODEL] = { tokens_per_minute: 50 };
    const err = await thrown(ask());
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.type).toBe('tokens');
    expect(err.message).toMatch(/on tokens per min \(TPM\): Limit 50, Used 0, Requested \d+/);
    expect(err.headers.get('x-ratelimit-limit-tokens')).toBe('50');
  });

  it('500 and 503 faults: InternalServerError, server_error', async () => {
    sim.faults = [
      { kind: 'status', status: 500 },
      { kind: 'status', status: 503 },
    ];
    const err = await thrown(ask());
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.status).toBe(500);
    expect(err.type).toBe('server_error');
    expect(err.message).toBe('500 The server had an error while processing your request. Sorry about that!');
    const overloaded = await thrown(ask());
    expect(overloaded).toBeInstanceOf(OpenAI.InternalServerError);
    expect(overloaded.status).toBe(503);
  });

  it('reset: the client sees a connection error', async () => {
    sim.faults = [{ kind: 'reset' }];
    expect(await thrown(ask())).toBeInstanceOf(OpenAI.APIConnectionError);
  });

  it('refuses with 400 what OpenAI refuses: tool messages out of place, unanswered calls, bad values', async () => {
    const orphan = await thrown(ask({ messages: [...START, { role: 'tool', tool_call_id: 'call_x', content: 'ok' }] }));
    expect(orphan).toBeInstanceOf(OpenAI.BadRequestError);
    expect(orphan.param).toBe('messages.[2].role');
    const call = { id: 'call_a', type: 'function' as const, function: { name: 'move_north', arguments: '{}' } };
    const unanswered = await thrown(
      ask({ messages: [...START, { role: 'assistant', content: null, tool_calls: [call] }, START[1]] }),
    );
    expect(unanswered).toBeInstanceOf(OpenAI.BadRequestError);
    expect(unanswered.message).toMatch(/did not have response messages: call_a$/);
    const parallel = await thrown(ask({ tools: undefined, parallel_tool_calls: false }));
    expect(parallel.param).toBe('parallel_tool_calls');
    const effort = await thrown(ask({ reasoning_effort: 'extreme' as never }));
    expect(effort).toBeInstanceOf(OpenAI.BadRequestError);
    expect(effort.code).toBe('invalid_value');
    expect(sim.replies).toHaveLength(0);
  });
});

describe('tokens', () => {
  it('max_completion_tokens cuts: finish_reason length, no tool call, completion_tokens the cap', async () => {
    const whole = await ask();
    expect(whole.usage!.completion_tokens).toBeGreaterThan(5);
    const cut = await ask({ max_completion_tokens: 5 });
    expect(cut.choices[0].finish_reason).toBe('length');
    expect(cut.choices[0].message.tool_calls).toBeUndefined();
    expect(cut.usage!.completion_tokens).toBe(5);
    expect(sim.replies.at(-1)!.outputTokens).toBe(5);
    // the legacy max_tokens the same
    const legacy = await ask({ max_tokens: 5 });
    expect(legacy.choices[0].finish_reason).toBe('length');
  });

  it('reasoning_effort: more effort, more reasoning_tokens, counted inside completion_tokens', async () => {
    const none = await ask({ model: QWEN });
    const low = await ask({ model: QWEN, reasoning_effort: 'low' });
    const high = await ask({ model: QWEN, reasoning_effort: 'high' });
    const reasoningOf = (r: ChatCompletion) => r.usage!.completion_tokens_details!.reasoning_tokens!;
    const textOf = (r: ChatCompletion) => (r.choices[0].message as { reasoning_content?: string }).reasoning_content;
    expect(reasoningOf(none)).toBe(0);
    expect(textOf(none)).toBeUndefined();
    expect(reasoningOf(low)).toBeGreaterThan(0);
    expect(reasoningOf(high)).toBeGreaterThan(3 * reasoningOf(low));
    expect(textOf(low)).toMatch(/nearest unexplored tiles/);
    expect(high.usage!.completion_tokens).toBeGreaterThan(reasoningOf(high));
    expect(high.usage!.completion_tokens - reasoningOf(high)).toBeCloseTo(none.usage!.completion_tokens, -1);
    expect(sim.replies.map((r) => r.reasoningTokens)).toEqual([0, reasoningOf(low), reasoningOf(high)]);
    // a reasoning model reasons unasked (medium), and not at all with none
    expect(reasoningOf(await ask({ model: 'o4-mini' }))).toBeGreaterThan(reasoningOf(low));
    expect(reasoningOf(await ask({ model: 'o4-mini', reasoning_effort: 'none' }))).toBe(0);
  });

  it('reasoningField null (OpenAI): no reasoning text, the tokens counted; "reasoning" (OpenRouter)', async () => {
    await withSim({ reasoningField: null }, async (c) => {
      const res = await c.chat.completions.create({ model: 'o4-mini', messages: START, tools: TOOLS });
      expect(res.choices[0].message).not.toHaveProperty('reasoning_content');
      expect(res.choices[0].message).not.toHaveProperty('reasoning');
      expect(res.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(0);
    });
    await withSim({ reasoningField: 'reasoning' }, async (c) => {
      const res = await c.chat.completions.create({ model: 'o4-mini', messages: START, tools: TOOLS });
      expect(res.choices[0].message).toHaveProperty('reasoning', expect.stringMatching(/unexplored/));
      expect(res.choices[0].message).not.toHaveProperty('reasoning_content');
    });
  });

  describe('prompt caching', () => {
    // about 1,500 tokens of instructions every request repeats, then a short question that changes
    const RULE = 'Walls block moves and sight; open tiles can be walked; recall costs an action. ';
    const LONG = `${SYSTEM}\n${RULE.repeat(75)}`;
    const longAsk = (question: string, model = MODEL) =>
      ask({
        model,
        messages: [
          { role: 'system', content: LONG },
          { role: 'user', content: `${OBSERVATION}\n${question}` },
        ],
      });

    it('a request sharing a long prefix reads it from the cache, in steps of 128, inside prompt_tokens', async () => {
      const first = await longAsk('Where next?');
      expect(first.usage!.prompt_tokens).toBeGreaterThan(1500);
      expect(first.usage!.prompt_tokens_details!.cached_tokens).toBe(0);
      const second = await longAsk('And now?');
      const cached = second.usage!.prompt_tokens_details!.cached_tokens!;
      expect(cached).toBeGreaterThanOrEqual(1024);
      expect(cached % 128).toBe(0);
      expect(cached).toBeLessThanOrEqual(second.usage!.prompt_tokens);
      // the shared prefix is all but the last words: the cache holds all of it the 128-steps allow
      expect(second.usage!.prompt_tokens - cached).toBeLessThan(128 + 10);
      expect(sim.replies.at(-1)).toMatchObject({
        inputTokens: second.usage!.prompt_tokens - cached,
        cacheReadInputTokens: cached,
      });
      // per model: another model has not seen it
      expect((await longAsk('And now?', QWEN)).usage!.prompt_tokens_details!.cached_tokens).toBe(0);
    });

    it('a short prompt never caches', async () => {
      await ask();
      const again = await ask();
      expect(again.usage!.prompt_tokens).toBeLessThan(1024);
      expect(again.usage!.prompt_tokens_details!.cached_tokens).toBe(0);
    });

    it('a cached prefix lasts 10 minutes after its last use', async () => {
      const t0 = Date.now();
      sim.now = () => t0;
      await longAsk('one');
      sim.now = () => t0 + 9 * 60_000;
      expect((await longAsk('two')).usage!.prompt_tokens_details!.cached_tokens).toBeGreaterThan(0);
      // each use keeps it 10 minutes more: 9 minutes after the last, still there
      sim.now = () => t0 + 18 * 60_000;
      expect((await longAsk('three')).usage!.prompt_tokens_details!.cached_tokens).toBeGreaterThan(0);
      sim.now = () => t0 + 29 * 60_000;
      expect((await longAsk('four')).usage!.prompt_tokens_details!.cached_tokens).toBe(0);
    });
  });

  it('image parts are accepted and cost 85 prompt tokens each, whatever their size', async () => {
    const image = (url: string) => ({ type: 'image_url' as const, image_url: { url, detail: 'low' as const } });
    const big = `data:image/png;base64,${'iVBORw0KGgo'.repeat(2000)}`;
    const withImages = (...urls: string[]) =>
      ask({
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: [{ type: 'text', text: OBSERVATION }, ...urls.map(image)] },
        ],
      });
    const small = await withImages('https://example.com/maze.png');
    const large = await withImages(big);
    expect(large.usage!.prompt_tokens).toBe(small.usage!.prompt_tokens); // the bytes are not text
    const two = await withImages(big, big);
    const extra = two.usage!.prompt_tokens - large.usage!.prompt_tokens;
    // 85 for the image, and a few for the part that names it
    expect(extra).toBeGreaterThanOrEqual(85);
    expect(extra).toBeLessThan(85 + 25);
    expect(sim.replies.map((r) => r.images)).toEqual([1, 1, 2]);
    // the model still reads the text part
    expect((two.choices[0].message.tool_calls ?? []).length).toBe(2);
  });
});

describe('faults', () => {
  it('text-embedded: the call written as JSON in the text, no tool_calls', async () => {
    sim.faults = [{ kind: 'text-embedded' }];
    const res = await ask();
    const message = res.choices[0].message;
    expect(message.tool_calls).toBeUndefined();
    expect(res.choices[0].finish_reason).toBe('stop');
    const json = /```json\n(.*)\n```/.exec(message.content ?? '');
    expect(JSON.parse(json![1])).toMatchObject({ name: 'move_north', arguments: { reasoning: expect.any(String) } });
    expect(sim.replies[0].fault).toBe('text-embedded');
  });

  it('malformed, script, say, empty, text-only and slow arrive as their wire shapes', async () => {
    sim.faults = [
      { kind: 'malformed' },
      { kind: 'script', calls: ['move_south', 'move_south', 'move_south'] },
      { kind: 'say', text: 'explore' },
      { kind: 'empty' },
      { kind: 'text-only' },
      { kind: 'slow', ms: 150 },
    ];
    const names = (r: ChatCompletion) =>
      (r.choices[0].message.tool_calls ?? []).map((c) => (c.type === 'function' ? c.function : null));
    expect(names(await ask())).toEqual([
      { name: 'teleport', arguments: '{"to":"goal"}' },
      { name: 'move_north', arguments: '{"reasoning":42}' },
    ]);
    expect(names(await ask()).map((f) => f!.name)).toEqual(['move_south', 'move_south', 'move_south']);
    expect((await ask()).choices[0].message.content).toBe('explore');
    const empty = await ask();
    expect(empty.choices[0].message.content).toBe('');
    expect(empty.choices[0].finish_reason).toBe('stop');
    expect((await ask()).choices[0].message.content).toMatch(/thinking about where to go/);
    const t = Date.now();
    expect((await ask()).choices[0].finish_reason).toBe('tool_calls');
    expect(Date.now() - t).toBeGreaterThanOrEqual(140);
    expect(sim.replies.map((r) => r.fault)).toEqual(['malformed', 'script', 'say', 'empty', 'text-only', 'slow']);
  });
});

describe('ariadne sim openai', () => {
  it('serves the protocol with --api-key, prints the run line, and stops when interrupted', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'bin/ariadne.ts', 'sim', 'openai', '--port', '0', '--api-key', 'sk-local'],
      { cwd: ROOT },
    );
    let out = '';
    const served = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        if (/--openai-base-url \S+/.test(out)) resolve(out);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const base = /simulated openai at (\S+) serving gpt-4.1-mini, o4-mini, Qwen\/Qwen2.5-7B-Instruct/.exec(served)![1];
    // the command prefix depends on how the tests were started (npm run, npx): the rest does not
    expect(served).toMatch(/^try: OPENAI_API_KEY=sk-local \S.* run --provider openai /m);
    expect(served).toContain(`--provider openai --model gpt-4.1-mini --openai-base-url ${base}/v1\n`);
    const keyed = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'sk-local', maxRetries: 0 });
    expect((await keyed.models.retrieve(QWEN)).id).toBe(QWEN);
    const other = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'sk-other', maxRetries: 0 });
    expect(await thrown(other.models.list())).toBeInstanceOf(OpenAI.AuthenticationError);
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', resolve);
      child.kill('SIGINT');
    });
    expect(code).toBe(0);
  });

  it('refuses --api-key for the other services, naming the flag, the value and the fix', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'bin/ariadne.ts', 'sim', 'ollama', '--port', '0', '--api-key', 'sk-local'],
      { cwd: ROOT },
    );
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(err).toMatch(/--api-key "sk-local" is for the openai service only .*drop it, or serve openai/);
  });
});
