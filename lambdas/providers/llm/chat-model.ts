// One model call, provider-neutral. Adapters translate to and from the wire
// (Ollama /api/chat, Bedrock Converse); the LLM agent speaks only this.
import type { ModelTimings, TokenUsage } from '../../engine/agent.ts';
import type { ToolSpec } from '../../engine/tools.ts';

export interface ModelToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

export type ChatMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; calls: ModelToolCall[] }
  | { role: 'tool'; results: Array<{ id: string; name: string; content: string; ok: boolean }> };

export interface ModelReply {
  text: string;
  calls: ModelToolCall[];
  /** Exactly as the service reported them; null when it reported none. */
  usage: TokenUsage | null;
  stopReason: string | null;
  /** Ollama's durations and counts; absent for providers that report none. */
  timings?: ModelTimings | null;
}

export interface ChatModel {
  readonly provider: 'ollama' | 'bedrock';
  readonly model: string;
  complete(system: string, messages: ChatMessage[], tools: ToolSpec[], signal: AbortSignal): Promise<ModelReply>;
}
