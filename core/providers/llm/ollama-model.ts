// Ollama over the official `ollama` client: POST /api/chat with tools, tool results as role "tool" messages; a local
// server or hosted Ollama (bearer key from OLLAMA_API_KEY, never stored with the run). Wire formats as Ollama's API
// reference gives them (https://docs.ollama.com/api/chat, .../capabilities/thinking): options.seed and sampling,
// `think` and message.thinking, done_reason "length". Provenance from /api/version, /api/tags (digests) and /api/show.
import { createHash } from 'node:crypto';
import type { ChatResponse, Message, Ollama, Tool } from 'ollama';
import { announcedSimulator, isTruncation, type ChatMessage, type ChatModel, type ModelReply } from './chat-model.ts';
import type { ToolSpec } from '../../engine/tools.ts';
import type { ModelTimings } from '../../engine/agent.ts';
import { isTransientStatus, networkFailure, type Failure } from './retry.ts';
import type { OllamaOptions } from './sampling.ts';
import { envString } from '../../config/environment.ts';

export interface OllamaSettings {
  host: string;
  num_ctx: number;
  temperature?: number;
  repeat_penalty?: number;
  think?: boolean | 'low' | 'medium' | 'high';
  stream: boolean;
}

function toWire(system: string, messages: ChatMessage[]): Message[] {
  const out: Message[] = [{ role: 'system', content: system }];
  for (const m of messages) {
    // pictures as base64 in the message's `images` (https://docs.ollama.com/capabilities/vision)
    if (m.role === 'user')
      out.push({
        role: 'user',
        content: m.text,
        ...(m.images?.length ? { images: m.images.map((i) => Buffer.from(i.png).toString('base64')) } : {}),
      });
    else if (m.role === 'assistant')
      out.push({
        role: 'assistant',
        content: m.text,
        tool_calls: m.calls.map((c) => ({
          function: { name: c.name, arguments: (c.arguments ?? {}) as Record<string, unknown> },
        })),
      });
    else for (const r of m.results) out.push({ role: 'tool', content: r.content, tool_name: r.name });
  }
  return out;
}

/** The fields of the last (done) reply this adapter reads. */
interface OllamaFinal {
  done_reason?: string;
  total_duration?: number;
  load_duration?: number;
  prompt_eval_count?: number;
  prompt_eval_duration?: number;
  eval_count?: number;
  eval_duration?: number;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Ollama's timings as reported (ns); null when the reply carried none of them. */
function timingsOf(f: OllamaFinal): ModelTimings | null {
  const t = {
    totalDurationNs: num(f.total_duration),
    loadDurationNs: num(f.load_duration),
    promptEvalCount: num(f.prompt_eval_count),
    promptEvalDurationNs: num(f.prompt_eval_duration),
    evalCount: num(f.eval_count),
    evalDurationNs: num(f.eval_duration),
  };
  return Object.values(t).some((v) => v !== null) ? t : null;
}

function ollamaTools(tools: ToolSpec[]): Tool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/**
 * `options`: what sampling.ts settles for the experiment (the shared settings, the seed); left out (tools and
 * tests that build a model alone), the section's own temperature and repeat_penalty are sent as given.
 */
export function ollamaModel(
  model: string,
  settings: OllamaSettings,
  apiKey = envString('OLLAMA_API_KEY'),
  options?: OllamaOptions,
): ChatModel {
  const sent: OllamaOptions = options ?? {
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(settings.repeat_penalty !== undefined ? { repeat_penalty: settings.repeat_penalty } : {}),
  };
  const client = ollamaClient(settings.host, apiKey);
  return {
    provider: 'ollama',
    model,
    async complete(system, messages, tools, signal): Promise<ModelReply> {
      const request = chatRequest(model, settings, sent, system, messages, tools);
      let simulator: string | null = null;
      const c = await client(signal, (s) => (simulator = s));
      const collected = settings.stream
        ? await collectStream(await c.chat({ ...request, stream: true }))
        : collectReply(await c.chat({ ...request, stream: false }));
      return readReply(collected, simulator);
    },
    provenance: (signal) => ollamaProvenance(client, model, settings, sent, signal),
  };
}

/**
 * A client for one attempt. `heard`: told of each response's simulator announcement (the client gives no headers
 * of its own). The package is loaded with the first call: the CLI imports this module, most runs call no Ollama.
 */
type OllamaClient = (signal: AbortSignal, heard?: (simulator: string | null) => void) => Promise<Ollama>;

let ollamaModule: Promise<typeof import('ollama')> | undefined;
const ollamaPackage = () => (ollamaModule ??= import('ollama'));

function ollamaClient(host: string, apiKey: string | undefined): OllamaClient {
  return async (signal, heard) =>
    new (await ollamaPackage()).Ollama({
      host,
      headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : undefined,
      // The client has no timeout of its own: every request carries the attempt's signal.
      fetch: async (input, init) => {
        const res = await fetch(input, { ...init, signal });
        heard?.(announcedSimulator(res.headers));
        return res;
      },
    });
}

function chatRequest(
  model: string,
  settings: OllamaSettings,
  sent: OllamaOptions,
  system: string,
  messages: ChatMessage[],
  tools: ToolSpec[],
) {
  return {
    model,
    messages: toWire(system, messages),
    tools: ollamaTools(tools),
    options: { num_ctx: settings.num_ctx, ...sent },
    ...(settings.think !== undefined ? { think: settings.think } : {}),
  };
}

/** A reply's text, thinking and tool calls, whole or gathered from its parts, with its last (done) part. */
interface Collected {
  content: string;
  thinking: string;
  calls: ModelReply['calls'];
  final: OllamaFinal;
}

async function collectStream(parts: AsyncIterable<ChatResponse>): Promise<Collected> {
  const got: Collected = { content: '', thinking: '', calls: [], final: {} };
  for await (const part of parts) {
    got.content += part.message?.content ?? '';
    got.thinking += part.message?.thinking ?? '';
    addCalls(got.calls, part);
    if (part.done) got.final = part;
  }
  return got;
}

function collectReply(res: ChatResponse): Collected {
  const calls: ModelReply['calls'] = [];
  addCalls(calls, res);
  return { content: res.message?.content ?? '', thinking: res.message?.thinking ?? '', calls, final: res };
}

/** Ollama gives its tool calls no ids: they are numbered in the order they came. */
function addCalls(calls: ModelReply['calls'], part: ChatResponse): void {
  for (const c of part.message?.tool_calls ?? [])
    calls.push({ id: `call_${calls.length}`, name: c.function.name, arguments: c.function.arguments });
}

function readReply({ content, thinking, calls, final }: Collected, simulator: string | null): ModelReply {
  const usage =
    typeof final.prompt_eval_count === 'number' || typeof final.eval_count === 'number'
      ? { inputTokens: final.prompt_eval_count ?? 0, outputTokens: final.eval_count ?? 0 }
      : null;
  const stopReason = final.done_reason ?? null;
  return {
    text: content,
    calls,
    usage,
    stopReason,
    truncated: isTruncation(stopReason),
    timings: timingsOf(final),
    reasoning: thinking ? { text: thinking } : null,
    simulator,
  };
}

/** The server's version, the model's digest, details and template, and what is sent. */
async function ollamaProvenance(
  client: OllamaClient,
  model: string,
  settings: OllamaSettings,
  sent: OllamaOptions,
  signal: AbortSignal,
) {
  let simulator: string | null = null;
  const c = await client(signal, (s) => (simulator ??= s));
  const [version, tags, show] = await Promise.all([
    c.version().catch((e: unknown) => ({ error: String(e) })),
    c.list().catch((e: unknown) => ({ error: String(e), models: [] })),
    c.show({ model }).catch((e: unknown) => ({ error: String(e) })),
  ]);
  const listed = tags.models.find((m) => m.name === model || m.model === model);
  const details = 'details' in show ? show.details : undefined;
  return {
    provider: 'ollama',
    model,
    server_version: 'version' in version ? version.version : null,
    model_digest: listed?.digest ?? null,
    quantization_level: details?.quantization_level ?? listed?.details.quantization_level ?? null,
    parameter_size: details?.parameter_size ?? listed?.details.parameter_size ?? null,
    family: details?.family ?? null,
    template_sha256: 'template' in show ? createHash('sha256').update(show.template).digest('hex') : null,
    // the model's own Modelfile parameters: what applies where Ariadne sends nothing
    model_parameters: 'parameters' in show ? show.parameters : null,
    options_sent: {
      num_ctx: settings.num_ctx,
      ...sent,
      ...(settings.think !== undefined ? { think: settings.think } : {}),
    },
    seed:
      sent.seed !== undefined
        ? { sent: true, value: sent.seed, note: "the run's agent seed, as options.seed" }
        : { sent: false, note: 'model_seed is none (or the run predates per-repeat seeds)' },
    errors: [version, tags, show].flatMap((r) => ('error' in r ? [r.error] : [])),
    ...(simulator ? { simulator } : {}),
  };
}

export function classifyOllamaError(err: unknown): Failure {
  const net = networkFailure(err);
  if (net) return net;
  const e = err as { name?: string; status_code?: number; error?: string; message?: string };
  if (typeof e?.status_code === 'number')
    return { transient: isTransientStatus(e.status_code), status: e.status_code, message: e.error ?? e.message ?? '' };
  return { transient: false, status: 'error', message: e?.message ?? String(err) };
}
