// Before each model call: does the prompt, with room for the reply, fit the model's context window? Ollama silently
// drops the start of a longer prompt (the system prompt first), so overflow is caught before the call (prompt-cut.ts
// flags one that gets through). Policy trim drops the oldest carried messages until the estimate fits; refuse throws
// ContextOverflowError. Estimates: token-estimate.ts, scaled by the run's calibration (calibration.ts) once it has one.
import type { ExperimentConfig } from '../../config/experiment-config.ts';
import type { PromptContext } from '../../engine/agent.ts';
import { lookupModel } from '../../config/model-table.ts';
import { outputCap } from './sampling.ts';
import type { LlmAgent } from '../llm-agents.ts';

/** A prompt that cannot fit its model's context window (refused, or nothing left to trim). Not retried. */
export class ContextOverflowError extends Error {
  override readonly name = 'ContextOverflowError';
  constructor(
    readonly estimate: number,
    readonly window: number,
    readonly provider: string,
    readonly model: string,
    trimmedAll: boolean,
  ) {
    // the window less the output cap kept free for the reply: a lower cap leaves the prompt more
    const fix =
      (provider === 'ollama'
        ? 'raise config.ollama.num_ctx (the model must support it)'
        : `set config.context_windows["${model}"] if the model's window is larger`) +
      ', lower max_output_tokens (kept free for the reply)';
    super(
      `the prompt for ${provider} model ${model} is about ${estimate} tokens (estimated as characters / 4, ` +
        `calibrated on the provider's reported count once one came), ` +
        `more than the ${window} its context window leaves for it` +
        (trimmedAll ? ' even with all carried memory dropped' : '') +
        `; ${fix}, lower memory_conversation_tokens or memory_history_actions` +
        (trimmedAll ? ', or lower max_actions_per_turn' : ', or use context_policy "trim"'),
    );
  }
}

/** The context window of a model in tokens; null when unknown (then nothing is guarded, and the record says so). */
export function contextWindow(provider: LlmAgent | 'human', model: string, config: ExperimentConfig): number | null {
  if (provider === 'ollama') return config.ollama.num_ctx;
  // a person reads the whole prompt, whatever its length (providers/human-agent.ts)
  if (provider === 'human') return null;
  // an inference profile's window is its model's
  return lookupModel(config.context_windows, model) ?? null;
}

/**
 * Tokens of the window kept for the reply, on every provider: the output cap shares the model's window (Bedrock's
 * maxTokens, OpenAI's max_completion_tokens, Ollama's num_predict within num_ctx). An OpenAI-compatible server
 * refuses a prompt that leaves no room for the cap (vLLM: a 400); Ollama would shift its context mid-reply, dropping
 * the prompt's start. A snapshot that sent no num_predict (before the shared cap) keeps none: nothing caps its reply.
 */
export function replyReserve(provider: LlmAgent | 'human', config: ExperimentConfig): number {
  return outputCap(provider, config) ?? 0;
}

export interface GuardTarget {
  provider: string;
  model: string;
  window: number | null;
  reserve: number;
  policy: ExperimentConfig['context_policy'];
  /** The prompt's estimate as it stands now (characters / 4). */
  estimate(): number;
  /** The estimate in the provider's tokens (the run's calibration); left out, the estimate itself. */
  scale?: (estimate: number) => number;
  /** Drops the oldest trimmable piece; returns how many messages or entries went (0: nothing left). */
  trimOldest(): number;
}

/** Trims (or refuses) until the prompt fits; returns what was sent, for the call's record. */
export function fitToWindow(t: GuardTarget): PromptContext {
  const scale = t.scale ?? ((n: number) => n);
  let estimate = t.estimate();
  const calibrated = (n: number) => (t.scale ? { calibrated: scale(n) } : {});
  if (t.window === null) return { estimate, ...calibrated(estimate), window: null, trimmed: 0 };
  const room = t.window - t.reserve;
  let trimmed = 0;
  while (scale(estimate) > room) {
    if (t.policy === 'refuse') throw new ContextOverflowError(scale(estimate), room, t.provider, t.model, false);
    const dropped = t.trimOldest();
    if (dropped === 0) throw new ContextOverflowError(scale(estimate), room, t.provider, t.model, true);
    trimmed += dropped;
    estimate = t.estimate();
  }
  return { estimate, ...calibrated(estimate), window: t.window, trimmed };
}
