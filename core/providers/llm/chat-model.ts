// One model call, provider-neutral. Adapters translate to and from the wire
// (Ollama /api/chat, Bedrock Converse, OpenAI chat completions); the LLM agent speaks only this.
import type { ExchangeRecord, ModelTimings, TokenUsage } from '../../engine/agent.ts';
import type { ToolSpec } from '../../engine/tools.ts';
import type { LlmAgent } from '../llm-agents.ts';

export interface ModelToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** A picture the model is shown (the image observation format): PNG bytes and the hash of its pixels. */
export interface ModelImage {
  png: Uint8Array;
  sha256: string;
}

export type ChatMessage =
  // images follow the text, one after each of its caption lines, in order (observations/image.ts)
  | { role: 'user'; text: string; images?: ModelImage[] }
  | { role: 'assistant'; text: string; calls: ModelToolCall[]; reasoning?: ModelReasoning | null }
  | { role: 'tool'; results: Array<{ id: string; name: string; content: string; ok: boolean }> };

/**
 * What a model returned as its reasoning (Ollama message.thinking, Bedrock reasoningContent blocks, an
 * OpenAI-compatible server's reasoning_content or reasoning).
 */
interface ModelReasoning {
  text: string;
  /** Bedrock's reasoningText.signature: sent back unmodified with the reply (ReasoningTextBlock, API reference). */
  signature?: string;
}

/** Stop reasons that mean the output cap cut the reply: Ollama done_reason, Bedrock stopReason, finish_reason. */
const TRUNCATION = new Set(['length', 'max_tokens']);

export const isTruncation = (stopReason: string | null): boolean => stopReason !== null && TRUNCATION.has(stopReason);

export interface ModelReply {
  text: string;
  calls: ModelToolCall[];
  /** Exactly as the service reported them; null when it reported none. */
  usage: TokenUsage | null;
  stopReason: string | null;
  /** The output cap cut the reply (stop reason max_tokens or length). */
  truncated?: boolean;
  /** Ollama's durations and counts; absent for providers that report none. */
  timings?: ModelTimings | null;
  /** The reasoning the model returned; null when it returned none. */
  reasoning?: ModelReasoning | null;
  /** The bundled simulator that answered, as it announced itself (SIMULATOR_HEADER); null or absent: none did. */
  simulator?: string | null;
  /** The call's record, set by the flight recorder (recorded-model.ts). */
  exchange?: ExchangeRecord;
}

/**
 * The response header by which a bundled simulator (simulators/) names itself on every reply: a real server sends
 * none, so a run answered by a simulator is marked simulated and never pooled with real runs.
 */
export const SIMULATOR_HEADER = 'x-ariadne-simulator';

/** The announcement in a response's headers (a Fetch Headers or a plain record, as each client gives them). */
export function announcedSimulator(headers: Headers | Record<string, string | undefined> | undefined): string | null {
  if (!headers) return null;
  const value = headers instanceof Headers ? headers.get(SIMULATOR_HEADER) : headers[SIMULATOR_HEADER];
  return typeof value === 'string' && value !== '' ? value : null;
}

export interface ChatModel {
  /** 'human': a person answers in the model's place (providers/human-agent.ts). */
  readonly provider: LlmAgent | 'human';
  readonly model: string;
  complete(system: string, messages: ChatMessage[], tools: ToolSpec[], signal: AbortSignal): Promise<ModelReply>;
  /**
   * Where the answers come from, stored once per experiment: Ollama's server version, model digest, quantization,
   * parameter size and template hash; Bedrock's model or inference profile and Region; what is sent for sampling
   * and whether a seed can reach the model.
   */
  provenance?(signal: AbortSignal): Promise<Record<string, unknown>>;
}
