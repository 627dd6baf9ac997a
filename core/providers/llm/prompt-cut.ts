// Was the prompt cut to the server's context window? Some servers cut without an error (Ollama drops the start of a
// prompt past num_ctx; LM Studio and some OpenAI-compatible servers answer at the window), so a cut is read from the
// reported prompt tokens; servers that refuse a long prompt raise an error instead (openai-model.ts, Converse's
// ValidationException), never a cut. Each server's behaviour, and the known gap, is on promptWasCut.
import type { TokenUsage } from '../../engine/agent.ts';

/** The prompt tokens the server reported: input plus what was read from or written to its cache. */
export const reportedPromptTokens = (u: TokenUsage | null | undefined): number | null =>
  u ? u.inputTokens + (u.cacheReadInputTokens ?? 0) + (u.cacheWriteInputTokens ?? 0) : null;

/**
 * Ollama reports prompt_eval_count as what it kept: with the llama runner exactly num_ctx (its log says "truncating
 * input prompt"; no response field does: https://github.com/ollama/ollama/issues/8386), so a count that reaches
 * num_ctx is a cut. An OpenAI-compatible server that accepts a prompt at its window answers finish_reason "length"
 * with nothing left for the reply; LM Studio answers 200 with the prompt's tokens at the window. Known gap: Ollama's
 * newer runner keeps about num_ctx / 2 (https://github.com/ollama/ollama/issues/17427), below the window; only the
 * call's estimate_off flag hints at it.
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
