// A model request as a record: its parts (parameters, system prompt, tools, each message) stored once each by the
// sha256 of their canonical JSON, and a key over the provider, the model, the version the server reported and the
// parts' hashes, so two requests share a key only when every byte the model is asked is the same.
import { createHash } from 'node:crypto';
import type { ToolSpec } from '../../engine/tools.ts';
import type { ChatMessage } from './chat-model.ts';

/** What identifies a request beyond its parts: who answers it. */
export interface ModelIdentity {
  provider: string;
  model: string;
  /** What the server reported of the model it serves (Ollama's digest, the served model id); null: nothing. */
  version: string | null;
  /** The sampling and output settings sent with every call (providers/llm/sampling.ts), as sent. */
  parameters: unknown;
}

/** A request by the hashes of its parts: what is stored with each call and compared on replay. */
export interface RequestManifest {
  provider: string;
  model: string;
  version: string | null;
  parameters: string;
  system: string;
  tools: string;
  messages: string[];
}

export interface RecordedRequest {
  key: string;
  manifest: RequestManifest;
  /** Each part's canonical JSON by its hash. */
  bodies: Map<string, string>;
}

/** JSON with object keys sorted, so equal values have equal text whatever order their keys were built in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A message as recorded: a picture by its hash (its pixels are in observation_pictures), the rest as sent. */
function messagePart(m: ChatMessage): unknown {
  if (m.role !== 'user' || !m.images) return m;
  return { ...m, images: m.images.map((i) => ({ sha256: i.sha256 })) };
}

/**
 * Parts already hashed, by the object sent: an agent sends a turn's earlier messages and its tool list again with
 * every call, as the same objects, which it never changes once sent; hashing each once keeps recording a call's cost
 * to its new messages.
 */
const hashedParts = new WeakMap<object, { hash: string; text: string }>();

/** The request a call makes, by its parts. */
export function recordRequest(
  who: ModelIdentity,
  system: string,
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[],
): RecordedRequest {
  const bodies = new Map<string, string>();
  const part = (value: unknown) => {
    const text = canonicalJson(value);
    const hash = sha256(text);
    bodies.set(hash, text);
    return hash;
  };
  const sent = (object: object, value: () => unknown) => {
    let known = hashedParts.get(object);
    if (!known) {
      const text = canonicalJson(value());
      known = { hash: sha256(text), text };
      hashedParts.set(object, known);
    }
    bodies.set(known.hash, known.text);
    return known.hash;
  };
  const manifest: RequestManifest = {
    provider: who.provider,
    model: who.model,
    version: who.version,
    parameters: part(who.parameters ?? null),
    system: part(system),
    tools: sent(tools, () => tools),
    messages: messages.map((m) => sent(m, () => messagePart(m))),
  };
  return { key: sha256(canonicalJson(manifest)), manifest, bodies };
}

/** The first place two values differ, as a path below `at` (e.g. `messages[3].text`); null when they are equal. */
function firstDifference(at: string, a: unknown, b: unknown): string | null {
  if (canonicalJson(a) === canonicalJson(b)) return null;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return at;
  if (Array.isArray(a) !== Array.isArray(b)) return at;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = firstDifference(`${at}[${i}]`, a[i], b[i]);
      if (d) return d;
    }
    return `${at}.length`;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (const k of [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort()) {
    const d = firstDifference(`${at}.${k}`, ra[k], rb[k]);
    if (d) return d;
  }
  return at;
}

/**
 * The first field where request `now` differs from the `recorded` one, named as a researcher reads a request
 * (`system`, `parameters.temperature`, `messages[2].text`); null when they are the same request. `body` gives a
 * recorded part's text by its hash.
 */
export function requestDifference(
  recorded: RequestManifest,
  now: RecordedRequest,
  body: (hash: string) => string | undefined,
): string | null {
  const m = now.manifest;
  for (const field of ['provider', 'model', 'version'] as const) if (recorded[field] !== m[field]) return field;
  const parsed = (hash: string, own: Map<string, string>) => {
    const text = own.get(hash) ?? body(hash);
    return text === undefined ? hash : (JSON.parse(text) as unknown);
  };
  const empty = new Map<string, string>();
  for (const field of ['parameters', 'system', 'tools'] as const) {
    if (recorded[field] !== m[field])
      return firstDifference(field, parsed(recorded[field], empty), parsed(m[field], now.bodies));
  }
  const n = Math.max(recorded.messages.length, m.messages.length);
  for (let i = 0; i < n; i++) {
    const [a, b] = [recorded.messages[i], m.messages[i]];
    if (a === b) continue;
    if (a === undefined || b === undefined) return 'messages.length';
    return firstDifference(`messages[${i}]`, parsed(a, empty), parsed(b, now.bodies));
  }
  return null;
}
