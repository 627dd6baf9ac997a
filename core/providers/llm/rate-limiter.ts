// Providers' rate limits (config.rate_limits) kept before each model call, shared by every experiment running at
// once: the budget is a token bucket per "provider:model" in the database (store/rate-limit-sql.ts implements the
// port below), since each turn is its own process on AWS. A call reserves 1 request and its estimated tokens in
// one statement, sleeps until its reservation is due (no polling: callers queue in the bucket's debt), and corrects
// the estimate with the tokens the provider reports.
import type { ChatMessage, ChatModel, ModelReply } from './chat-model.ts';
import type { ToolSpec } from '../../engine/tools.ts';

export interface RateLimit {
  requests_per_minute?: number;
  tokens_per_minute?: number;
  window_seconds: number;
}

/** One bucket's shape: capacities and refill rates per millisecond of both levels. */
export interface BucketSpec {
  bucket: string;
  requestCapacity: number;
  requestsPerMs: number;
  tokenCapacity: number;
  tokensPerMs: number;
}

export interface BucketLevels {
  granted: boolean;
  /** The levels after the statement (refilled, and reserved from when granted): below zero, reserved ahead. */
  requests: number;
  tokens: number;
}

/** What the database does for the limiter, each method one atomic statement. */
export interface RateLimitStore {
  /**
   * Reserves `requests` and `tokens` if the bucket refills them within `maxWaitMs` (its levels may go below zero);
   * otherwise reserves nothing.
   */
  reserve(spec: BucketSpec, requests: number, tokens: number, maxWaitMs: number): Promise<BucketLevels>;
  /** Puts `tokens` back (a negative number takes more), never above the capacity. */
  giveBack(spec: BucketSpec, tokens: number): Promise<void>;
}

/** The bucket waited for longer than a call may wait: transient, so the retries (then the Task's) take over. */
export class RateLimitWaitError extends Error {
  override readonly name = 'RateLimitWaitError';
  constructor(
    readonly bucket: string,
    readonly maxWaitMs: number,
  ) {
    super(
      `bucket ${bucket} is reserved further ahead than the ${maxWaitMs} ms a call may wait ` +
        '(or the call is larger than the limit allows in that time)',
    );
  }
}

/** A dimension left out of a limit: large enough never to bind, finite for both SQL transports. */
const UNLIMITED = 1e15;

/**
 * Of the limit per window, the bucket refills 85% evenly and holds at most 10% as a burst: at most 95% of the limit
 * goes out in any window, so a provider counting over a sliding window (as Bedrock and the simulators do) is not
 * exceeded even when the time from reserving to the provider counting the request varies by 5% of a window, while
 * a steady sweep still runs at 85% of the limit.
 */
const REFILL_SHARE = 0.85;
const BURST_SHARE = 0.1;

/** The limit for a model: its own entry, else its provider's "provider:*"; none means unlimited. */
export function rateLimitFor(
  limits: Readonly<Record<string, RateLimit>>,
  provider: string,
  model: string,
): RateLimit | null {
  return limits[`${provider}:${model}`] ?? limits[`${provider}:*`] ?? null;
}

export function bucketSpec(bucket: string, limit: RateLimit): BucketSpec {
  const windowMs = limit.window_seconds * 1000;
  const dimension = (perWindow: number | undefined) =>
    perWindow === undefined
      ? { capacity: UNLIMITED, perMs: UNLIMITED }
      : { capacity: Math.max(1, perWindow * BURST_SHARE), perMs: (perWindow * REFILL_SHARE) / windowMs };
  const r = dimension(limit.requests_per_minute);
  const t = dimension(limit.tokens_per_minute);
  return {
    bucket,
    requestCapacity: r.capacity,
    requestsPerMs: r.perMs,
    tokenCapacity: t.capacity,
    tokensPerMs: t.perMs,
  };
}

/** How long until a granted reservation is due: until both levels are back at zero. */
function msUntilDue(spec: BucketSpec, levels: BucketLevels): number {
  return Math.max(0, -levels.requests / spec.requestsPerMs, -levels.tokens / spec.tokensPerMs);
}

/** Tokens a call may use before it is made: its prompt at ~4 characters a token, and its whole output allowance. */
function estimateTokens(system: string, messages: ChatMessage[], tools: ToolSpec[], maxOutput: number): number {
  const chars = system.length + JSON.stringify(messages).length + JSON.stringify(tools).length;
  return Math.ceil(chars / 4) + maxOutput;
}

export interface RateLimitOptions {
  store: RateLimitStore;
  limit: RateLimit;
  /** The output tokens a call may produce at most (Bedrock's max_tokens), counted until the reply says. */
  maxOutputTokens: number;
  /** The longest a call waits for the bucket; then RateLimitWaitError. */
  maxWaitMs: number;
  sleep?: (ms: number) => Promise<void>;
}

/** A chat model whose calls first take from the shared bucket of their provider and model. */
export function rateLimitedModel(model: ChatModel, opts: RateLimitOptions): ChatModel {
  const spec = bucketSpec(`${model.provider}:${model.model}`, opts.limit);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const acquire = async (tokens: number, signal: AbortSignal) => {
    const levels = await opts.store.reserve(spec, 1, tokens, opts.maxWaitMs);
    if (!levels.granted) throw new RateLimitWaitError(spec.bucket, opts.maxWaitMs);
    const due = msUntilDue(spec, levels);
    if (due > 0) await sleep(Math.ceil(due));
    signal.throwIfAborted();
  };
  return {
    provider: model.provider,
    model: model.model,
    async complete(system, messages, tools, signal): Promise<ModelReply> {
      const estimate = estimateTokens(system, messages, tools, opts.maxOutputTokens);
      await acquire(estimate, signal);
      const reply = await model.complete(system, messages, tools, signal);
      if (reply.usage && opts.limit.tokens_per_minute !== undefined) {
        const used = reply.usage.inputTokens + reply.usage.outputTokens;
        if (used !== estimate) await opts.store.giveBack(spec, estimate - used);
      }
      return reply;
    },
  };
}
