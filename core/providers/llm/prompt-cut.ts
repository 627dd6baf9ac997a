// Was the prompt cut to the server's context window? Ollama drops the start of a prompt longer than num_ctx without
// an error and reports prompt_eval_count as what it kept: with the llama runner exactly num_ctx (its log line
// "truncating input prompt" ... new=num_ctx; no response field says so: https://github.com/ollama/ollama/issues/8386),
// so a reported count that reaches num_ctx is a cut. An OpenAI-compatible server that accepts a prompt at its window
// answers finish_reason "length" with nothing left for the reply, and LM Studio answers 200 with the prompt's tokens
// at the window; vLLM, OpenAI and llama.cpp refuse a prompt past it with a 400 instead: an error, classified in
// openai-model.ts, never a cut. Bedrock Converse refuses a too-long input (ValidationException): an error too.
// Known gap: Ollama's newer runner keeps about num_ctx / 2 of an over-long prompt
// (https://github.com/ollama/ollama/issues/17427); that count is below the window, and only the call's estimate_off
// flag hints at it.
import type { TokenUsage } from '../../engine/agent.ts';

/** The prompt tokens the server reported: input plus what was read from or written to its cache. */
export const reportedPromptTokens = (u: TokenUsage | null | undefined): number | null =>
  u ? u.inputTokens + (u.cacheReadInputTokens ?? 0) + (u.cacheWriteInputTokens ?? 0) : null;

/**
 * `window`: the context window the guard used (Ollama's num_ctx as sent; config.context_windows otherwise); null
 * when unknown, and then nothing can be told (false).
 */
export function promptWasCut(
  window: number | null,
  reply: { usage?: TokenUsage | null; stopReason?: string | null },
): boolean {
  const prompt = reportedPromptTokens(reply.usage);
  if (window === null || prompt === null) return false;
  if (prompt >= window) return true;
  // the reply stopped at the window, not at its own cap: the prompt left it no room
  return reply.stopReason === 'length' && prompt + (reply.usage?.outputTokens ?? 0) >= window;
}
