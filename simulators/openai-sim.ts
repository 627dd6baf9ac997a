// A local server speaking OpenAI's Chat Completions protocol (POST /v1/chat/completions, plain and streamed as
// server-sent events; GET /v1/models[/{id}]) with a simulated model that plays, as vLLM, llama.cpp or OpenAI answer
// the official `openai` client. Shapes follow the client's types (generated from OpenAI's OpenAPI spec) and OpenAI's
// docs (https://platform.openai.com/docs/api-reference/chat, .../docs/guides/error-codes); the behaviours it
// simulates, with their sources, are listed above its constants.
import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { pictureBytes, withPicturesRead } from './picture-reader.ts';
import {
  cutAtCap,
  SimServer,
  type Fault,
  type LoggedRequest,
  type SimOptions,
  type SimRateLimit,
} from './sim-server.ts';
import { tokensOf } from './sim-player.ts';

export interface OpenAISimOptions extends SimOptions {
  /** When set, every request must carry `Authorization: Bearer <apiKey>`; unset, any key or none (vLLM's default). */
  apiKey?: string;
  /** Models that reason unasked, at medium effort (OpenAI's default for o-series); default ['o4-mini']. */
  reasoningModels?: string[];
  /** Where reasoning text goes on the message and on stream deltas; null: nowhere, as OpenAI's own API. */
  reasoningField?: 'reasoning_content' | 'reasoning' | null;
}

// An image part costs the low-detail price (https://platform.openai.com/docs/guides/images-vision): images are not
// decoded to measure them. Prompt caching (https://platform.openai.com/docs/guides/prompt-caching) is automatic from
// 1024 prompt tokens: the longest prefix seen before for the model, in steps of 128, kept 10 minutes after its last
// use. Rate limits (.../docs/guides/rate-limits): 429 rate_limit_exceeded, type "requests" or "tokens", with the
// x-ratelimit-* headers. Usage: prompt_tokens INCLUDES cached_tokens, completion_tokens INCLUDES reasoning_tokens;
// streamed, usage comes only with include_usage, in a last chunk with empty choices before `data: [DONE]`.
// Reasoning text is not OpenAI's: vLLM returns reasoning_content (docs.vllm.ai/en/latest/features/
// reasoning_outputs.html), OpenRouter reasoning (reasoningField).
const IMAGE_TOKENS = 85;
const CACHE_MIN_TOKENS = 1024;
const CACHE_STEP_TOKENS = 128;
const CACHE_TTL_MS = 10 * 60_000;
/** Prefixes kept per model: enough for a few concurrent games, bounded so that a long sweep does not grow it. */
const CACHE_ENTRIES = 64;
/** Stands for an image in the prompt text: its digest, so that the cache tells images apart and bytes cost nothing. */
const IMAGE_MARK = 'sim-image:';
const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
/** How many times the sim thinks its thought at each effort: more effort, more reasoning tokens. */
const EFFORT_REPEATS: Record<string, number> = { low: 1, medium: 2, high: 4, xhigh: 8, max: 8 };
/** A 429 fault on a model without a configured limit plays a tier-1 account's limit (500 RPM, 200,000 TPM). */
const NOMINAL_LIMIT = { requests_per_minute: 500, tokens_per_minute: 200_000 };
/** `created` of every served model (Unix seconds): any fixed time, so that listings do not change between runs. */
const MODEL_CREATED = 1_700_000_000;
const RATE_LIMITS_URL = 'https://platform.openai.com/account/rate-limits';

type ErrorBody = { error: { message: string; type: string; param: string | null; code: string | null } };
const openaiError = (message: string, type: string, code: string | null, param: string | null = null): ErrorBody => ({
  error: { message, type, param, code },
});
const invalid = (message: string, param: string | null = null, code: string | null = null) =>
  openaiError(message, 'invalid_request_error', code, param);
const noSuchModel = (model: string) =>
  invalid(`The model \`${model}\` does not exist or you do not have access to it.`, null, 'model_not_found');
const wrongKey = (key: string) =>
  invalid(
    `Incorrect API key provided: ${redact(key)}. You can find your API key at ` +
      'https://platform.openai.com/account/api-keys.',
    null,
    'invalid_api_key',
  );

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId(), ...headers });
  res.end(JSON.stringify(body));
};

const requestId = () => `req_${randomBytes(16).toString('hex')}`;
const alnum = (n: number) => randomBytes(n).toString('base64').replace(/[+/=]/g, 'x').slice(0, n);

/** A text's pieces as a stream carries them. */
const pieces = (text: string, size = 8): string[] => text.match(new RegExp(`.{1,${size}}`, 'gs')) ?? [];

/** A message's text: a string, or the text parts of an array (image parts are not text). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p) => p?.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n');
}

/** What a vision model reads of a message: its text, each picture (an image_url data URL) read after its caption. */
function seenOf(content: unknown): string {
  if (!Array.isArray(content)) return textOf(content);
  const pictures = content
    .filter((p) => p?.type === 'image_url' && typeof p.image_url?.url === 'string')
    .map((p) => pictureBytes(p.image_url.url as string));
  return withPicturesRead(textOf(content), pictures);
}

/** Durations as the x-ratelimit-reset-* headers give them: "120ms", "1.5s", "6m0s". */
function duration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole < 1000) return `${whole}ms`;
  const minutes = Math.floor(whole / 60_000);
  const seconds = (whole % 60_000) / 1000;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}

/** OpenAI's redaction of a key it refuses: the first 3 and last 4 characters. */
const redact = (key: string) =>
  key.length > 8 ? `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}` : '***';

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

const countOf = (text: string, mark: string) => text.split(mark).length - 1;

/** A chat reply as answered, before it is written. */
interface ChatReply {
  reasoning: string;
  text: string;
  calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  truncated: boolean;
  completionTokens: number;
  reasoningTokens: number;
  fault: Fault['kind'] | null;
}

export class OpenAISim extends SimServer {
  apiKey: string | undefined;
  readonly reasoningModels: string[];
  readonly reasoningField: 'reasoning_content' | 'reasoning' | null;
  /** The clock of the prompt cache; tests move it to expire entries. */
  now: () => number = () => Date.now();
  /** Per model: prompt texts seen lately (the cacheable prefixes), with when each expires. */
  private readonly cache = new Map<string, Array<{ text: string; expires: number }>>();

  constructor(opts: OpenAISimOptions = {}) {
    super(opts);
    this.apiKey = opts.apiKey;
    this.reasoningModels = opts.reasoningModels ?? ['o4-mini'];
    this.reasoningField = opts.reasoningField === undefined ? 'reasoning_content' : opts.reasoningField;
  }

  protected readonly simulatorName = 'openai';

  protected defaultModels() {
    return ['gpt-4.1-mini', 'o4-mini', 'Qwen/Qwen2.5-7B-Instruct'];
  }

  protected async handle(req: LoggedRequest, res: ServerResponse): Promise<void> {
    const refused = this.refusedKey(req);
    if (refused) return send(res, 401, refused);
    if (req.method === 'GET' && req.path === '/v1/models')
      return send(res, 200, { object: 'list', data: this.models.map((id) => this.modelObject(id)) });
    // ids may hold a '/' (Hugging Face names): the client sends it encoded, and the base class decodes the path
    if (req.method === 'GET' && req.path.startsWith('/v1/models/')) {
      const id = req.path.slice('/v1/models/'.length);
      if (!this.models.includes(id))
        return send(res, 404, invalid(`The model '${id}' does not exist`, 'model', 'model_not_found'));
      return send(res, 200, this.modelObject(id));
    }
    if (req.method === 'POST' && req.path === '/v1/chat/completions') return this.chat(req, res);
    return send(res, 404, invalid(`Invalid URL (${req.method} ${req.path})`));
  }

  private modelObject(id: string) {
    // owned_by names the simulator, never a real owner (OpenAI's "system", a Hugging Face organisation)
    return { id, object: 'model', created: MODEL_CREATED, owned_by: 'simulated' };
  }

  /** The 401 body when a key is required and the request's is missing or wrong; null when it may pass. */
  private refusedKey(req: LoggedRequest): ErrorBody | null {
    if (this.apiKey === undefined) return null;
    const header = req.headers.authorization;
    const given = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (given === this.apiKey) return null;
    if (!given)
      return invalid(
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer " +
          'auth (i.e. Authorization: Bearer YOUR_KEY).',
      );
    return wrongKey(given);
  }

  /** What OpenAI refuses with 400 before any model runs (the checks a client gets wrong most), or null. */
  private badRequest(body: any): ErrorBody | null {
    // OpenAI's reasoning models take no sampling parameters and no max_tokens, as OpenAI answers them
    // (openai/openai-python issue 2072 for temperature and top_p on o3-mini; "Use 'max_completion_tokens'
    // instead" for max_tokens): this simulator's own list (reasoningModels), not the project's rule.
    if (this.reasoningModels.includes(body.model)) {
      for (const param of ['temperature', 'top_p'])
        if (body[param] !== undefined && body[param] !== null && body[param] !== 1)
          return invalid(
            `Unsupported value: '${param}' does not support ${String(body[param])} with this model. Only the ` +
              'default (1) value is supported.',
            param,
            'unsupported_value',
          );
      if (body.max_tokens !== undefined && body.max_tokens !== null)
        return invalid(
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' " +
            'instead.',
          'max_tokens',
          'unsupported_parameter',
        );
    }
    const messages = body.messages;
    if (!Array.isArray(messages))
      return invalid("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
    if (messages.length === 0)
      return invalid(
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        'messages',
        'empty_array',
      );
    const effort = body.reasoning_effort;
    if (effort !== undefined && effort !== null && !(EFFORTS as readonly unknown[]).includes(effort))
      return invalid(
        `Invalid value: '${String(effort)}'. Supported values are: ${EFFORTS.map((e) => `'${e}'`).join(', ')}.`,
        'reasoning_effort',
        'invalid_value',
      );
    if (body.parallel_tool_calls !== undefined && !(Array.isArray(body.tools) && body.tools.length > 0))
      return invalid(
        "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.",
        'parallel_tool_calls',
      );
    // Each assistant message's tool calls must be answered, by id, by the tool messages right after it.
    let pending: { at: number; ids: Set<string> } | null = null;
    const unanswered = (p: { at: number; ids: Set<string> }) =>
      invalid(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each " +
          `'tool_call_id'. The following tool_call_ids did not have response messages: ${[...p.ids].join(', ')}`,
        `messages.[${p.at}].role`,
      );
    for (const [i, m] of messages.entries()) {
      if (m?.role === 'tool') {
        if (!pending?.ids.delete(m.tool_call_id))
          return invalid(
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with " +
              "'tool_calls'.",
            `messages.[${i}].role`,
          );
        continue;
      }
      if (pending && pending.ids.size > 0) return unanswered(pending);
      const calls: unknown = m?.role === 'assistant' ? m.tool_calls : undefined;
      pending = Array.isArray(calls) && calls.length > 0 ? { at: i, ids: new Set(calls.map((c) => c?.id)) } : null;
    }
    if (pending && pending.ids.size > 0) return unanswered(pending);
    return null;
  }

  /** Chat completions: parse -> validate (the API's errors) -> rate limits and faults -> answer -> write. */
  private async chat(req: LoggedRequest, res: ServerResponse): Promise<void> {
    if (!req.body || typeof req.body !== 'object')
      return send(res, 400, invalid('We could not parse the JSON body of your request.'));
    const body = req.body;
    const model: string = body.model;
    if (typeof model !== 'string') return send(res, 400, invalid('you must provide a model parameter'));
    if (!this.models.includes(model)) return send(res, 404, noSuchModel(model));
    const refused = this.badRequest(body);
    if (refused) return send(res, 400, refused);
    const { promptText, promptTokens, images } = this.countedPrompt(body);
    const admitted = this.admit(model, promptTokens);
    if (typeof admitted === 'string') return this.rateLimited(res, model, admitted, promptTokens);
    const fault = this.faultFor(body);
    if (!(await this.transport(fault, res))) return;
    if (fault?.kind === 'status') return this.statusFault(res, model, fault);
    const reply = this.answer(model, body, fault);
    const cachedTokens = this.cacheRead(model, promptText, promptTokens);
    admitted.tokens += reply.completionTokens;
    this.replies.push({
      model,
      inputTokens: promptTokens - cachedTokens,
      outputTokens: reply.completionTokens,
      cacheReadInputTokens: cachedTokens,
      reasoningTokens: reply.reasoningTokens,
      images,
      fault: reply.fault,
    });
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: reply.completionTokens,
      total_tokens: promptTokens + reply.completionTokens,
      prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: reply.reasoningTokens,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    };
    this.writeCompletion(res, model, body, reply, usage);
  }

  /**
   * The prompt as counted and cached: tools first (they lead the rendered prompt, so a growing conversation keeps
   * its prefix), then the messages, each image part standing as its digest.
   */
  private countedPrompt(body: any): { promptText: string; promptTokens: number; images: number } {
    const messages: any[] = body.messages;
    let images = 0;
    const counted = messages.map((m) =>
      Array.isArray(m?.content)
        ? {
            ...m,
            content: m.content.map((p: any) => {
              if (p?.type !== 'image_url') return p;
              images++;
              const url = String(p.image_url?.url ?? '');
              return {
                type: 'image_url',
                image_url: { url: IMAGE_MARK + createHash('sha256').update(url).digest('hex').slice(0, 16) },
              };
            }),
          }
        : m,
    );
    const promptText = JSON.stringify(body.tools ?? []) + JSON.stringify(counted);
    return { promptText, promptTokens: this.promptTokens(promptText) + IMAGE_TOKENS * images, images };
  }

  /** The model's reply: reasoning as the effort asks, the planned text and tool calls, cut at the output cap. */
  private answer(model: string, body: any, fault: Fault | null): ChatReply {
    const messages: any[] = body.messages;
    const offered: string[] = (Array.isArray(body.tools) ? body.tools : [])
      .filter((t: any) => t?.type === 'function' && typeof t.function?.name === 'string')
      .map((t: any) => t.function.name);
    // tool_choice "none" leaves the model only words; a named function, only that one
    const choice = body.tool_choice;
    const allowed =
      choice === 'none'
        ? []
        : typeof choice?.function?.name === 'string'
          ? offered.filter((n) => n === choice.function.name)
          : offered;
    const turn = {
      model,
      system: messages
        .filter((m) => m?.role === 'system' || m?.role === 'developer')
        .map((m) => textOf(m.content))
        .join('\n'),
      texts: messages.filter((m) => m?.role === 'user' || m?.role === 'tool').map((m) => seenOf(m.content)),
      tools: allowed,
      requestChars: JSON.stringify(body).length,
    };
    const planned = this.plan(turn, fault);
    let calls = planned.calls.map((c) => ({
      id: `call_${alnum(24)}`,
      type: 'function' as const,
      function: { name: c.name, arguments: JSON.stringify(c.arguments ?? {}) },
    }));
    if (body.parallel_tool_calls === false) calls = calls.slice(0, 1);

    // reasoning_effort asks for reasoning (none and minimal: none); reasoning models reason unasked at medium
    const effort: string | null = body.reasoning_effort ?? (this.reasoningModels.includes(model) ? 'medium' : null);
    const thought = this.thinkingFor(turn);
    const reasoning = Array.from({ length: EFFORT_REPEATS[effort ?? ''] ?? 0 }, () => thought).join(' ');
    const text = planned.text;
    // the calls as the model writes them (ids are the server's, not generated)
    const callsText = calls.length > 0 ? JSON.stringify(calls.map((c) => c.function)) : '';
    const cut = cutAtCap(
      { reasoning, text, calls, tokens: tokensOf(reasoning + text + callsText) },
      body.max_completion_tokens ?? body.max_tokens,
    );
    return {
      reasoning: cut.reasoning,
      text: cut.text,
      calls: cut.calls,
      truncated: cut.truncated,
      completionTokens: cut.tokens,
      reasoningTokens: cut.reasoning ? Math.min(cut.tokens, tokensOf(cut.reasoning)) : 0,
      fault: planned.fault,
    };
  }

  /** The completion, whole (chat.completion) or streamed (chat.completion.chunk events), with rate-limit headers. */
  private writeCompletion(res: ServerResponse, model: string, body: any, reply: ChatReply, usage: object): void {
    const { reasoning, text, calls } = reply;
    const finish = reply.truncated ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop';
    const id = `chatcmpl-${alnum(29)}`;
    const created = Math.floor(Date.now() / 1000);
    // constant per model, so that a client can record which backend served a seeded run
    const fingerprint = `fp_simulated_${createHash('sha256').update(model).digest('hex').slice(0, 8)}`;
    const head = (object: string) => ({ id, object, created, model, system_fingerprint: fingerprint });
    const field = reasoning ? this.reasoningField : null;
    const limit = this.limits[model];
    const headers = limit ? this.limitHeaders(model, limit) : {};

    if (body.stream !== true) {
      const message = {
        role: 'assistant',
        content: calls.length > 0 && !text ? null : text,
        refusal: null,
        annotations: [],
        ...(field ? { [field]: reasoning } : {}),
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      };
      return send(
        res,
        200,
        {
          ...head('chat.completion'),
          choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
          usage,
        },
        headers,
      );
    }
    // Streamed: the role first, then reasoning, text and each call (its id and name, then its arguments in
    // fragments), the finish reason with an empty delta, and the usage only when stream_options asks for it.
    const withUsage = body.stream_options?.include_usage === true;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': requestId(),
      ...headers,
    });
    const event = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      event({
        ...head('chat.completion.chunk'),
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
        ...(withUsage ? { usage: null } : {}),
      });
    chunk({ role: 'assistant', content: '', refusal: null });
    if (field) for (const piece of pieces(reasoning)) chunk({ [field]: piece });
    for (const piece of pieces(text)) chunk({ content: piece });
    for (const [index, call] of calls.entries()) {
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      });
      for (const piece of pieces(call.function.arguments))
        chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
    chunk({}, finish);
    if (withUsage) event({ ...head('chat.completion.chunk'), choices: [], usage });
    res.end('data: [DONE]\n\n');
  }

  /**
   * Tokens of the prompt read from the cache: the longest prefix shared with a recent prompt of the model, counted
   * whole tokens in (chars/4, with tokenScale; an image inside it counts its 85), in steps of 128 from 1024.
   * Prompts of 1024 tokens or more are kept for the next requests; a hit keeps its prefix 10 minutes more.
   */
  private cacheRead(model: string, text: string, promptTokens: number): number {
    const now = this.now();
    const live = (this.cache.get(model) ?? []).filter((e) => e.expires > now && e.text !== text);
    let best: { entry: { text: string; expires: number }; chars: number } | null = null;
    for (const entry of (this.cache.get(model) ?? []).filter((e) => e.expires > now)) {
      const chars = commonPrefix(entry.text, text);
      if (!best || chars > best.chars) best = { entry, chars };
    }
    const shared = best ? best.chars : 0;
    const prefixTokens =
      Math.floor(Math.floor(shared / 4) * this.tokenScale) + IMAGE_TOKENS * countOf(text.slice(0, shared), IMAGE_MARK);
    const within = Math.min(prefixTokens, promptTokens);
    const cached = within >= CACHE_MIN_TOKENS ? Math.floor(within / CACHE_STEP_TOKENS) * CACHE_STEP_TOKENS : 0;
    if (best && cached > 0) best.entry.expires = now + CACHE_TTL_MS;
    if (promptTokens >= CACHE_MIN_TOKENS) live.push({ text, expires: now + CACHE_TTL_MS });
    this.cache.set(model, live.slice(-CACHE_ENTRIES));
    return cached;
  }

  /** The x-ratelimit-* headers of a limited model: what its window holds now. */
  private limitHeaders(model: string, limit: SimRateLimit): Record<string, string> {
    const now = Date.now();
    const windowMs = (limit.window_seconds ?? 60) * 1000;
    const recent = this.admitted.filter((r) => r.model === model && r.at > now - windowMs);
    // the window is back to full once the newest request in it has left
    const reset = duration(recent.length > 0 ? recent[recent.length - 1].at + windowMs - now : 0);
    const headers: Record<string, string> = {};
    if (limit.requests_per_minute !== undefined) {
      headers['x-ratelimit-limit-requests'] = String(limit.requests_per_minute);
      headers['x-ratelimit-remaining-requests'] = String(Math.max(0, limit.requests_per_minute - recent.length));
      headers['x-ratelimit-reset-requests'] = reset;
    }
    if (limit.tokens_per_minute !== undefined) {
      const used = recent.reduce((n, r) => n + r.tokens, 0);
      headers['x-ratelimit-limit-tokens'] = String(limit.tokens_per_minute);
      headers['x-ratelimit-remaining-tokens'] = String(Math.max(0, limit.tokens_per_minute - used));
      headers['x-ratelimit-reset-tokens'] = reset;
    }
    return headers;
  }

  /** 429 past a limit: OpenAI's wording, with how long until the oldest request in the window leaves it. */
  private rateLimited(res: ServerResponse, model: string, reason: 'requests' | 'tokens', tokens: number) {
    const limit = this.limits[model] ?? NOMINAL_LIMIT;
    const now = Date.now();
    const windowMs = (limit.window_seconds ?? 60) * 1000;
    const recent = this.admitted.filter((r) => r.model === model && r.at > now - windowMs);
    const wait = duration(recent.length > 0 ? recent[0].at + windowMs - now : 1000);
    const [name, max, used, requested] =
      reason === 'requests'
        ? ['requests per min (RPM)', limit.requests_per_minute, recent.length, 1]
        : ['tokens per min (TPM)', limit.tokens_per_minute, recent.reduce((n, r) => n + r.tokens, 0), tokens];
    return send(
      res,
      429,
      openaiError(
        `Rate limit reached for ${model} in organization org-sim on ${name}: Limit ${max}, Used ${used}, ` +
          `Requested ${requested}. Please try again in ${wait}. Visit ${RATE_LIMITS_URL} to learn more.`,
        reason,
        'rate_limit_exceeded',
      ),
      this.limitHeaders(model, limit),
    );
  }

  /** A status fault as OpenAI words it: 429 as an RPM limit reached, 5xx its server errors, 4xx a refusal. */
  private statusFault(res: ServerResponse, model: string, fault: Extract<Fault, { kind: 'status' }>) {
    const status = fault.status;
    if (status === 429) {
      const limit = this.limits[model] ?? NOMINAL_LIMIT;
      const rpm = limit.requests_per_minute ?? NOMINAL_LIMIT.requests_per_minute;
      return send(
        res,
        429,
        openaiError(
          `Rate limit reached for ${model} in organization org-sim on requests per min (RPM): Limit ${rpm}, ` +
            `Used ${rpm}, Requested 1. Please try again in 1s. Visit ${RATE_LIMITS_URL} to learn more.`,
          'requests',
          'rate_limit_exceeded',
        ),
        {
          ...this.limitHeaders(model, { ...NOMINAL_LIMIT, ...limit }),
          'x-ratelimit-remaining-requests': '0',
          'x-ratelimit-reset-requests': '1s',
        },
      );
    }
    if (status === 503)
      return send(
        res,
        503,
        openaiError('The engine is currently overloaded, please try again later.', 'server_error', null),
      );
    if (status >= 500)
      return send(
        res,
        status,
        openaiError('The server had an error while processing your request. Sorry about that!', 'server_error', null),
      );
    if (status === 401) return send(res, 401, wrongKey('sk-sim-fault'));
    if (status === 404) return send(res, 404, noSuchModel(model));
    return send(res, status, invalid(`The request was refused (simulated HTTP ${status}).`));
  }
}
