// Ollama over the official `ollama` client: POST /api/chat with tools,
// tool results as role "tool" messages. Works with a local server or hosted
// Ollama (bearer API key from OLLAMA_API_KEY, never stored with the run).
import { Ollama, type Message, type Tool } from 'ollama';
import type { ChatMessage, ChatModel, ModelReply } from './chat-model.ts';
import type { ToolSpec } from '../../engine/tools.ts';
import type { ModelTimings } from '../../engine/agent.ts';
import { isTransientStatus, networkFailure, type Failure } from './retry.ts';

export interface OllamaSettings {
  host: string;
  num_ctx: number;
  temperature: number;
  repeat_penalty: number;
  stream: boolean;
}

function toWire(system: string, messages: ChatMessage[]): Message[] {
  const out: Message[] = [{ role: 'system', content: system }];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.text });
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

export function ollamaModel(model: string, settings: OllamaSettings, apiKey = process.env.OLLAMA_API_KEY): ChatModel {
  const client = (signal: AbortSignal) =>
    new Ollama({
      host: settings.host,
      headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : undefined,
      // The client has no timeout of its own: every request carries the attempt's signal.
      fetch: (input, init) => fetch(input, { ...init, signal }),
    });
  return {
    provider: 'ollama',
    model,
    async complete(system, messages, tools, signal): Promise<ModelReply> {
      const request = {
        model,
        messages: toWire(system, messages),
        tools: ollamaTools(tools),
        options: {
          num_ctx: settings.num_ctx,
          temperature: settings.temperature,
          repeat_penalty: settings.repeat_penalty,
        },
      };
      let content = '';
      const calls: ModelReply['calls'] = [];
      let final: OllamaFinal = {};
      if (settings.stream) {
        for await (const part of await client(signal).chat({ ...request, stream: true })) {
          content += part.message?.content ?? '';
          for (const c of part.message?.tool_calls ?? [])
            calls.push({ id: `call_${calls.length}`, name: c.function.name, arguments: c.function.arguments });
          if (part.done) final = part;
        }
      } else {
        const res = await client(signal).chat({ ...request, stream: false });
        content = res.message?.content ?? '';
        for (const c of res.message?.tool_calls ?? [])
          calls.push({ id: `call_${calls.length}`, name: c.function.name, arguments: c.function.arguments });
        final = res;
      }
      const usage =
        typeof final.prompt_eval_count === 'number' || typeof final.eval_count === 'number'
          ? { inputTokens: final.prompt_eval_count ?? 0, outputTokens: final.eval_count ?? 0 }
          : null;
      return { text: content, calls, usage, stopReason: final.done_reason ?? null, timings: timingsOf(final) };
    },
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
