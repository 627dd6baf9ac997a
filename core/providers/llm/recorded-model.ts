// The flight recorder around a chat model: each call's request (by its parts, model-request.ts) and reply go with
// the call into the turn's log; on replay, recorded replies answer the same requests in order with no server, and
// the first request that differs from the recorded one stops the run, naming the call and the field.
import type { ExchangeRecord } from '../../engine/agent.ts';
import type { ToolSpec } from '../../engine/tools.ts';
import type { ChatMessage, ChatModel, ModelReply } from './chat-model.ts';
import { canonicalJson, recordRequest, requestDifference, sha256, type RequestManifest } from './model-request.ts';
import type { ModelIdentity, RecordedRequest } from './model-request.ts';

/** A replayed run asked what the recorded run did not: the run stops at that call. */
export class ReplayDivergenceError extends Error {
  override readonly name = 'ReplayDivergenceError';
  constructor(
    readonly turn: number | null,
    readonly callIndex: number | null,
    readonly field: string,
  ) {
    super(
      turn === null
        ? `replay diverged: the recorded run made no call here (${field})`
        : `replay diverged at turn ${turn}, call ${callIndex}: the request's ${field} differs from the recorded one`,
    );
  }
}

/** What the server reported of the model it serves, from a provenance record; null where it says nothing. */
export function modelVersionOf(provenance: unknown): string | null {
  const p = (provenance ?? {}) as { model_digest?: unknown; served_model?: { id?: unknown } | null };
  if (typeof p.model_digest === 'string') return p.model_digest;
  if (typeof p.served_model?.id === 'string') return p.served_model.id;
  return null;
}

const PROVENANCE_TIMEOUT_MS = 10_000;

type Who = Omit<ModelIdentity, 'version'>;

/** Where config.cache looks up recorded replies (core/store/exchange-cache-sql.ts). */
export interface ExchangeCache {
  /** The newest reply a model's server gave to `requestKey` within the scope and age; null when there is none. */
  reply(requestKey: string, q: CacheQuery): Promise<string | null>;
}

export interface CacheQuery {
  /** sweep: a run of the same sweep as `experimentId` (none when it is in no sweep); all: any run. */
  scope: 'sweep' | 'all';
  maxAgeHours: number;
  experimentId: string;
}

/** The cache a recording model asks before its server, when config.cache is on. */
export interface CacheUse {
  store: ExchangeCache;
  query: CacheQuery;
}

/**
 * `inner` with every call recorded. The version in each request's key is `version` when the run already has one
 * (its stored provenance), else what the model's provenance reports, asked once and shared with the run's own
 * provenance record (so a first turn asks the server once). With `cache`, a request answered before is answered so.
 */
export function recordingModel(inner: ChatModel, who: Who, version?: string | null, cache?: CacheUse): ChatModel {
  let provenance: Promise<Record<string, unknown>> | undefined;
  const ask = inner.provenance?.bind(inner);
  const provenanceOf = ask ? (signal: AbortSignal) => (provenance ??= ask(signal)) : undefined;
  let known: Promise<string | null> | undefined = version === undefined ? undefined : Promise.resolve(version);
  const versionNow = () =>
    (known ??= provenanceOf
      ? provenanceOf(AbortSignal.timeout(PROVENANCE_TIMEOUT_MS)).then(modelVersionOf, () => null)
      : Promise.resolve(null));
  return {
    provider: inner.provider,
    model: inner.model,
    async complete(system, messages, tools, signal): Promise<ModelReply> {
      const request = recordRequest({ ...who, version: await versionNow() }, system, messages, tools);
      const cached = cache ? await cache.store.reply(request.key, cache.query) : null;
      if (cached !== null) return withExchange(JSON.parse(cached) as ModelReply, request, 'cache');
      const reply = await inner.complete(system, messages, tools, signal);
      return withExchange(reply, request, 'model');
    },
    ...(provenanceOf ? { provenance: provenanceOf } : {}),
  };
}

/** The reply as stored: what the model answered, without the record itself. */
function storedReply(reply: ModelReply): string {
  const { exchange: _exchange, ...answered } = reply;
  return canonicalJson(answered);
}

function withExchange(reply: ModelReply, request: RecordedRequest, answeredBy: ExchangeRecord['answeredBy']) {
  const text = storedReply(reply);
  const exchange: ExchangeRecord = {
    requestKey: request.key,
    manifest: request.manifest,
    bodies: request.bodies,
    reply: text,
    replySha256: sha256(text),
    answeredBy,
  };
  return { ...reply, exchange };
}

/** One call of the recorded run, in order. */
export interface RecordedCall {
  turn: number;
  callIndex: number;
  manifest: RequestManifest;
  requestKey: string;
  reply: string;
}

/** A recorded run's calls, answered in order; shared by every turn's agent of the replaying run. */
export class ReplayScript {
  private next = 0;
  constructor(
    /** The version the recorded run's server reported (its requests' keys hold it). */
    readonly version: string | null,
    private readonly calls: readonly RecordedCall[],
    private readonly body: (hash: string) => string | undefined,
    readonly provenance: Record<string, unknown> | null,
    /** The recorded run's belief probes, by the turn they followed: each reply as stored (JSON of a ModelReply). */
    private readonly probes: ReadonlyMap<number, string> = new Map(),
  ) {}

  /** The recorded reply to `request`, or ReplayDivergenceError naming where it differs from the recorded one. */
  answer(request: RecordedRequest): ModelReply {
    const expected = this.calls[this.next];
    if (!expected) throw new ReplayDivergenceError(null, null, `the recorded run ended after ${this.next} calls`);
    if (expected.requestKey !== request.key) {
      const field = requestDifference(expected.manifest, request, this.body) ?? 'key';
      throw new ReplayDivergenceError(expected.turn, expected.callIndex, field);
    }
    this.next++;
    return JSON.parse(expected.reply) as ModelReply;
  }

  /** The recorded run's answer to the belief probe after `turn`; null when it asked none there. */
  probeAfter(turn: number): ModelReply | null {
    const reply = this.probes.get(turn);
    return reply === undefined ? null : (JSON.parse(reply) as ModelReply);
  }

  /** The same record with a cursor of its own past the first `n` calls: a turn's, after the calls committed. */
  from(n: number): ReplayScript {
    const script = new ReplayScript(this.version, this.calls, this.body, this.provenance, this.probes);
    script.next = n;
    return script;
  }
}

/** A model that never calls a server: each request, made with this run's settings (`who`), answered from a record. */
function answeredFromRecord(
  script: ReplayScript | Promise<ReplayScript>,
  who: Who & { provider: ChatModel['provider'] },
  answer: (recorded: ReplayScript, request: RecordedRequest) => ModelReply,
): ChatModel {
  return {
    provider: who.provider,
    model: who.model,
    async complete(system: string, messages: ChatMessage[], tools: ToolSpec[], signal: AbortSignal) {
      signal.throwIfAborted();
      const recorded = await script;
      const request = recordRequest({ ...who, version: recorded.version }, system, messages, tools);
      return withExchange(answer(recorded, request), request, 'replay');
    },
  };
}

/** Each request answered from `script` when it is the recorded run's request (answeredFromRecord). */
export function replayingModel(
  script: ReplayScript | Promise<ReplayScript>,
  who: Who & { provider: ChatModel['provider'] },
): ChatModel {
  return {
    ...answeredFromRecord(script, who, (recorded, request) => recorded.answer(request)),
    provenance: async () => ({ ...((await script).provenance ?? {}), replayed: true }),
  };
}

/**
 * The belief probe after `turn` of a replayed run, answered with the recorded run's answer to it (no server is
 * asked); a run that asked none there stops the probe, never the run (engine/turn.ts keeps it as failed).
 */
export function replayedProbeModel(
  script: ReplayScript | Promise<ReplayScript>,
  who: Who & { provider: ChatModel['provider'] },
  turn: number,
): ChatModel {
  return answeredFromRecord(script, who, (recorded) => {
    const reply = recorded.probeAfter(turn);
    if (!reply) throw new ReplayDivergenceError(null, null, `it asked no belief probe after turn ${turn}`);
    return reply;
  });
}

/** A call of a fork's prefix: the parent's reply, and how many of its calls to keep (null: all). */
export interface PrefixCall {
  reply: string;
  keep: number | null;
}

/** The parent's replies up to the fork point, given in order to the fork's first calls. */
export class ForkPrefix {
  constructor(
    private readonly calls: readonly PrefixCall[],
    /** The first call not yet answered: past those the fork committed (a turn tried again asks again). */
    private next = 0,
  ) {}

  take(): PrefixCall | null {
    return this.calls[this.next++] ?? null;
  }
}

/**
 * A fork's model: its first calls are answered with the parent's replies up to the fork point (the reply that
 * crosses it cut after the fork's step), whatever this run asks, so it reaches the parent's state; then `live`.
 */
export function forkingModel(prefix: ForkPrefix | Promise<ForkPrefix>, live: ChatModel, who: Who): ChatModel {
  return {
    provider: live.provider,
    model: live.model,
    async complete(system, messages, tools, signal) {
      const next = (await prefix).take();
      if (!next) return live.complete(system, messages, tools, signal);
      const reply = JSON.parse(next.reply) as ModelReply;
      const kept = next.keep === null ? reply : { ...reply, calls: reply.calls.slice(0, next.keep) };
      return withExchange(kept, recordRequest({ ...who, version: null }, system, messages, tools), 'replay');
    },
    ...(live.provenance ? { provenance: live.provenance.bind(live) } : {}),
  };
}
