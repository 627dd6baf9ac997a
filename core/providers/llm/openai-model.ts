// Any OpenAI-compatible server (vLLM, llama.cpp, LM Studio, OpenAI, OpenRouter) over the official `openai` client:
// chat/completions with tools, results as role "tool" messages; the client's retries are off (ours log every retry).
// Shapes as the client's types give them: usage.prompt_tokens INCLUDES cached_tokens and completion_tokens INCLUDES
// reasoning_tokens; streamed usage comes only with include_usage, in a last chunk with no choices. Reasoning text is
// read from reasoning_content (vLLM, DeepSeek) or reasoning (OpenRouter). Provenance: GET {base_url}/models/{id}.
import type OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import {
  announcedSimulator,
  isTruncation,
  type ChatMessage,
  type ChatModel,
  type ModelReply,
  type ModelToolCall,
} from './chat-model.ts';
import type { ToolSpec } from '../../engine/tools.ts';
import type { TokenUsage } from '../../engine/agent.ts';
import { isTransientStatus, networkFailure, type Failure } from './retry.ts';
import type { OpenAIRequest } from './sampling.ts';

/** The client package, loaded with the first call: the CLI imports this module, and most runs call no such server. */
let sdk: typeof import('openai') | undefined;
export const openaiSdk = async (): Promise<typeof import('openai')> => (sdk ??= await import('openai'));

export interface OpenAISettings {
  base_url: string;
  stream: boolean;
}

function toWire(system: string, messages: ChatMessage[], toolsOffered: boolean): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [{ role: 'system', content: system }];
  for (const m of messages) {
    // pictures as image_url parts with a data URL (the chat API's vision input); text first, as the captions say
    if (m.role === 'user')
      out.push({
        role: 'user',
        content: m.images?.length
          ? [
              { type: 'text', text: m.text },
              ...m.images.map((i) => ({
                type: 'image_url' as const,
                image_url: { url: `data:image/png;base64,${Buffer.from(i.png).toString('base64')}` },
              })),
            ]
          : m.text,
      });
    else if (m.role === 'assistant') {
      // A call that offers no tools (a workflow's thinking step) carries the earlier tool traffic as text, as the
      // Bedrock adapter does: a tool message without tools offered is not accepted everywhere.
      if (!toolsOffered || m.calls.length === 0) {
        const calls = m.calls.map((c) => `${c.name} ${JSON.stringify(c.arguments ?? {})}`).join('\n');
        out.push({ role: 'assistant', content: [m.text, calls].filter(Boolean).join('\n') || '(no text)' });
      } else
        out.push({
          role: 'assistant',
          content: m.text || null,
          tool_calls: m.calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: JSON.stringify(c.arguments ?? {}) },
          })),
        });
    } else if (!toolsOffered)
      out.push({ role: 'user', content: m.results.map((r) => `${r.name}: ${r.content}`).join('\n') });
    else for (const r of m.results) out.push({ role: 'tool', tool_call_id: r.id, content: r.content });
  }
  return out;
}

function openaiTools(tools: ToolSpec[]): ChatCompletionTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** Arguments arrive as a JSON string; one that does not parse is kept as given (the schema check names it). */
function parsedArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The usage as Ariadne counts it: inputTokens the prompt less what was read from the cache (as Bedrock reports
 * inputTokens), the cache read apart, the output whole with its reasoning part reported beside it.
 */
function openaiUsage(u: CompletionUsage | null | undefined): TokenUsage | null {
  if (!u) return null;
  const cached = u.prompt_tokens_details?.cached_tokens;
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  return {
    inputTokens: u.prompt_tokens - (cached ?? 0),
    outputTokens: u.completion_tokens,
    ...(typeof cached === 'number' ? { cacheReadInputTokens: cached } : {}),
    ...(typeof reasoning === 'number' ? { reasoningTokens: reasoning } : {}),
  };
}

/** vLLM's and DeepSeek's reasoning_content, OpenRouter's reasoning: fields the OpenAI types do not name. */
function reasoningOf(message: unknown): string {
  const m = message as { reasoning_content?: unknown; reasoning?: unknown } | null | undefined;
  const text = m?.reasoning_content ?? m?.reasoning;
  return typeof text === 'string' ? text : '';
}

/** A streamed reply put together: text and reasoning in order, tool calls by their index. */
function assembleStream(chunks: ChatCompletionChunk[]) {
  let text = '';
  let reasoning = '';
  let finish: string | null = null;
  let usage: CompletionUsage | null = null;
  const calls = new Map<number, { id: string; name: string; args: string }>();
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      text += choice.delta.content ?? '';
      reasoning += reasoningOf(choice.delta);
      for (const d of choice.delta.tool_calls ?? []) {
        const call = calls.get(d.index) ?? { id: '', name: '', args: '' };
        call.id ||= d.id ?? '';
        call.name += d.function?.name ?? '';
        call.args += d.function?.arguments ?? '';
        calls.set(d.index, call);
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  const ordered = [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
  return { text, reasoning, finish, usage, calls: ordered };
}

/**
 * `request`: what sampling.ts settles for the experiment (the shared settings, the seed, reasoning_effort,
 * parallel_tool_calls); `apiKey`: the secret, never stored with the run (servers without keys take any).
 */
export function openaiModel(
  model: string,
  settings: OpenAISettings,
  apiKey: string | undefined,
  request: OpenAIRequest,
): ChatModel {
  // what is sent; what is not (notSent) is for the provenance
  const { notSent: _notSent, ...sent } = request;
  // The client refuses to start without a key; a local server that checks none takes any.
  let client: OpenAI | undefined;
  const connect = async () =>
    (client ??= new (await openaiSdk()).default({
      baseURL: settings.base_url,
      apiKey: apiKey || 'none',
      maxRetries: 0,
    }));
  return {
    provider: 'openai',
    model,
    async complete(system, messages, tools, signal): Promise<ModelReply> {
      const body = completionBody(model, sent, system, messages, tools);
      const { reply, simulator } = settings.stream
        ? await completeStreamed(await connect(), body, signal)
        : await completeWhole(await connect(), body, signal);
      return readReply(reply, simulator);
    },
    provenance: async (signal) => openaiProvenance(await connect(), model, settings, request, signal),
  };
}

function completionBody(
  model: string,
  sent: Omit<OpenAIRequest, 'notSent'>,
  system: string,
  messages: ChatMessage[],
  tools: ToolSpec[],
): ChatCompletionCreateParamsBase {
  return {
    model,
    messages: toWire(system, messages, tools.length > 0),
    ...(tools.length > 0 ? { tools: openaiTools(tools) } : {}),
    ...sent,
    // parallel_tool_calls means nothing without tools, and servers refuse it then
    ...(tools.length === 0 ? { parallel_tool_calls: undefined } : {}),
  };
}

/** A reply as read off the wire, before its calls' arguments are parsed. */
type WireReply = ReturnType<typeof assembleStream>;

// withResponse(): the raw response beside the parsed one, for a simulator's announcement (SIMULATOR_HEADER)
async function completeStreamed(client: OpenAI, body: ChatCompletionCreateParamsBase, signal: AbortSignal) {
  const { data: stream, response } = await client.chat.completions
    .create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal })
    .withResponse();
  const simulator = announcedSimulator(response.headers);
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return { reply: assembleStream(chunks), simulator };
}

async function completeWhole(
  client: OpenAI,
  body: ChatCompletionCreateParamsBase,
  signal: AbortSignal,
): Promise<{ reply: WireReply; simulator: string | null }> {
  const { data: res, response } = await client.chat.completions
    .create({ ...body, stream: false }, { signal })
    .withResponse();
  const simulator = announcedSimulator(response.headers);
  const choice = res.choices[0];
  const functionCalls = (choice?.message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [c] : []));
  const reply = {
    text: choice?.message.content ?? '',
    reasoning: reasoningOf(choice?.message),
    finish: choice?.finish_reason ?? null,
    usage: res.usage ?? null,
    calls: functionCalls.map((c) => ({ id: c.id, name: c.function.name, args: c.function.arguments })),
  };
  return { reply, simulator };
}

function readReply(reply: WireReply, simulator: string | null): ModelReply {
  const calls: ModelToolCall[] = reply.calls.map((c, i) => ({
    // some servers send no ids; the next request must still pair each result with its call
    id: c.id || `call_${i}`,
    name: c.name,
    arguments: parsedArguments(c.args),
  }));
  return {
    text: reply.text,
    calls,
    usage: openaiUsage(reply.usage),
    stopReason: reply.finish,
    truncated: isTruncation(reply.finish),
    reasoning: reply.reasoning ? { text: reply.reasoning } : null,
    simulator,
  };
}

/** The server's record of the model and what is sent. */
async function openaiProvenance(
  client: OpenAI,
  model: string,
  settings: OpenAISettings,
  request: OpenAIRequest,
  signal: AbortSignal,
) {
  const { notSent, ...sent } = request;
  const listed = await client.models
    .retrieve(model, { signal })
    .withResponse()
    .then(({ data: m, response }) => ({
      model: m as unknown as Record<string, unknown>,
      simulator: announcedSimulator(response.headers),
    }))
    .catch((e: unknown) => ({ error: String(e) }));
  return {
    provider: 'openai',
    model,
    base_url: settings.base_url,
    // the server's own record of the model: OpenAI's owned_by and created; vLLM adds root and max_model_len
    served_model: 'model' in listed ? listed.model : null,
    request_sent: { ...sent, stream: settings.stream },
    ...(notSent ? { not_sent: notSent } : {}),
    seed:
      sent.seed !== undefined
        ? {
            sent: true,
            value: sent.seed,
            note: "the run's agent seed, as `seed`: OpenAI documents determinism as best effort",
          }
        : { sent: false, note: 'model_seed is none' },
    errors: 'error' in listed ? [listed.error] : [],
    ...('simulator' in listed && listed.simulator ? { simulator: listed.simulator } : {}),
  };
}

/** Fixes for the permanent answers a researcher can act on, by status. */
const FIXES: Record<number, string> = {
  401: 'ariadne secret set openai_api_key (locally: $OPENAI_API_KEY or the parameters file)',
  403: 'the key may not use this model or endpoint; check its project and model permissions',
  404: 'check the model id with GET {base_url}/models (ariadne run checks it first) and config.openai.base_url',
};

/**
 * A prompt past the server's window, refused rather than cut: OpenAI's code context_length_exceeded, vLLM's "This
 * model's maximum context length is N tokens", llama.cpp's exceed_context_size_error.
 */
function isContextLengthError(err: { status?: number; code?: unknown; type?: unknown; message: string }): boolean {
  return (
    err.status === 400 &&
    (err.code === 'context_length_exceeded' ||
      err.type === 'exceed_context_size_error' ||
      /maximum context length|exceeds the available context size/i.test(err.message))
  );
}

const CONTEXT_FIX =
  'the prompt is longer than the server\'s context window: set config.context_windows["<model>"] to the ' +
  "server's window (vLLM --max-model-len, llama.cpp --ctx-size) so the guard trims or refuses before the call, or " +
  'lower memory_conversation_tokens or memory_history_actions';

/**
 * `ctx`: the model and base URL called, named in the message. 408, 409, 429 and 5xx are transient (OpenAI's
 * client retries the same: 408, 409, 429 and >= 500); the rest is permanent, with the fix where there is one.
 */
export function classifyOpenAIError(err: unknown, ctx?: { model: string; baseUrl: string }): Failure {
  // the client's errors, once it was loaded (before, none of them could have been thrown)
  const api = sdk;
  if (api && (err instanceof api.APIUserAbortError || err instanceof api.APIConnectionTimeoutError))
    return { transient: true, status: 'timeout', message: 'no reply within the timeout' };
  if (api && err instanceof api.APIConnectionError)
    return (
      networkFailure(err.cause) ?? {
        transient: true,
        status: 'network',
        message: (err.cause as Error | undefined)?.message ?? err.message,
      }
    );
  if (api && err instanceof api.APIError && typeof err.status === 'number') {
    const status = err.status;
    const where = ctx ? ` (model ${ctx.model} at ${ctx.baseUrl})` : '';
    const transient = isTransientStatus(status) || status === 409;
    const fix = transient
      ? ''
      : isContextLengthError(err)
        ? `; fix: ${CONTEXT_FIX}`
        : FIXES[status]
          ? `; fix: ${FIXES[status]}`
          : '';
    return { transient, status, message: `${err.code ?? err.type ?? 'error'}: ${err.message}${where}${fix}` };
  }
  const net = networkFailure(err);
  if (net) return net;
  const e = err as { name?: string; message?: string };
  // a stream cut mid-reply by the attempt's signal
  if (e?.name === 'AbortError') return { transient: true, status: 'timeout', message: 'no reply within the timeout' };
  return { transient: false, status: 'error', message: `${e?.name ?? 'Error'}: ${e?.message ?? String(err)}` };
}
