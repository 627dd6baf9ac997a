// What each provider is sent for sampling and the output cap: the shared settings (temperature, top_p,
// max_output_tokens), a provider's own key where the config sets one, and nothing a provider would add on its own
// behalf (no repeat_penalty unless set). A config snapshot from before provider parity lacks the shared keys: it
// then sends exactly what it sent when it ran (ollama.temperature and repeat_penalty 1.4, no num_predict;
// bedrock.max_tokens and temperature), so an old run resumes as it started.
import type { ExperimentConfig } from '../../config/experiment-config.ts';
import { modelCapabilities } from '../../config/model-table.ts';
import type { LlmAgent } from '../llm-agents.ts';

/** A snapshot's field, which a snapshot written before the field existed lacks (the type says it is always set). */
const stored = <T>(value: T): T | undefined => value;

/** Ollama's options (https://docs.ollama.com/api/chat, ModelOptions) as Ariadne sends them. */
export interface OllamaOptions {
  temperature?: number;
  top_p?: number;
  num_predict?: number;
  repeat_penalty?: number;
  seed?: number;
}

export function ollamaOptions(config: ExperimentConfig, agentSeed: number | null): OllamaOptions {
  const o = config.ollama;
  const temperature = o.temperature ?? stored(config.temperature);
  const topP = stored(config.top_p);
  const cap = stored(config.max_output_tokens);
  // model_seed is missing from snapshots older than it: those runs sent no seed and keep sending none
  const seed = stored(config.model_seed) === 'per_repeat' && agentSeed !== null ? agentSeed : undefined;
  return {
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { top_p: topP } : {}),
    ...(cap !== undefined ? { num_predict: cap } : {}),
    ...(o.repeat_penalty !== undefined ? { repeat_penalty: o.repeat_penalty } : {}),
    ...(seed !== undefined ? { seed } : {}),
  };
}

/** Bedrock Converse inferenceConfig (maxTokens, temperature, topP) and the thinking request, as Ariadne sends them. */
export interface BedrockInference {
  maxTokens: number;
  temperature?: number;
  topP?: number;
  /** additionalModelRequestFields.thinking.budget_tokens (Claude's extended thinking); absent when not asked. */
  reasoningBudgetTokens?: number;
  /** What the config holds but was not sent, and why ("temperature 0.2 not sent: the model refuses ..."). */
  notSent?: string[];
  /** The model thinks when no thinking field is sent (model-table.ts): maxTokens caps thinking plus text. */
  thinksByDefault?: boolean;
}

const REFUSES_SAMPLING = 'the model refuses sampling parameters';

/** The cap before max_output_tokens existed, for snapshots that carry neither it nor bedrock.max_tokens. */
const LEGACY_BEDROCK_MAX_TOKENS = 1024;

/**
 * `model`: its capability record (model-table.ts) decides what may be sent: a model that refuses sampling parameters
 * gets neither temperature nor top_p, one that refuses manual thinking no budget (a config that sets either is
 * refused at start, model-settings.ts; what is left out here is the shared default, or an older snapshot's value),
 * and each left-out value is listed in notSent with the reason, for the provenance record.
 */
export function bedrockInference(config: ExperimentConfig, model = ''): BedrockInference {
  const b = config.bedrock;
  const caps = modelCapabilities(model);
  const maxTokens = b.max_tokens ?? stored(config.max_output_tokens) ?? LEGACY_BEDROCK_MAX_TOKENS;
  const notSent: string[] = [];
  const budget = b.reasoning_budget_tokens;
  if (budget !== undefined && !caps.manual_thinking)
    notSent.push(`reasoning_budget_tokens ${budget} not sent: the model refuses manual thinking budgets`);
  const thinking = budget !== undefined && caps.manual_thinking;
  const temperature = b.temperature ?? stored(config.temperature);
  const topP = stored(config.top_p);
  if (!caps.sampling) {
    if (temperature !== undefined) notSent.push(`temperature ${temperature} not sent: ${REFUSES_SAMPLING}`);
    if (topP !== undefined) notSent.push(`top_p ${topP} not sent: ${REFUSES_SAMPLING}`);
  }
  // Claude refuses temperature and top_p with thinking on (Bedrock user guide, extended thinking): send neither
  // (the provenance record's sampling_note says so)
  const sampled = caps.sampling && !thinking;
  return {
    maxTokens,
    ...(sampled && temperature !== undefined ? { temperature } : {}),
    ...(sampled && topP !== undefined ? { topP } : {}),
    ...(thinking ? { reasoningBudgetTokens: budget } : {}),
    ...(notSent.length > 0 ? { notSent } : {}),
    ...(caps.thinks_by_default ? { thinksByDefault: true } : {}),
  };
}

/**
 * A chat completions request's settings as Ariadne sends them (https://platform.openai.com/docs/api-reference/chat,
 * the openai client's ChatCompletionCreateParams): the shared temperature, top_p and cap, the run's seed, and the
 * openai section's reasoning_effort and parallel_tool_calls only when set.
 */
export interface OpenAIRequest {
  temperature?: number;
  top_p?: number;
  max_completion_tokens?: number;
  max_tokens?: number;
  seed?: number;
  reasoning_effort?: ExperimentConfig['openai']['reasoning_effort'];
  parallel_tool_calls?: boolean;
  /** What the config holds but was not sent, and why (for the provenance record). */
  notSent?: string[];
}

/**
 * OpenAI's reasoning models refuse temperature and top_p with a 400 ("Unsupported parameter: 'temperature' is not
 * supported with this model", openai/openai-python issue 2072 for o3-mini; o1, o3, o4-mini and the gpt-5 family
 * likewise, per the client libraries that leave them out). An OpenRouter id carries the vendor ("openai/o3").
 */
const OPENAI_REASONING_MODEL = /^(openai\/)?(o\d|gpt-5)/;

export function openaiRequest(config: ExperimentConfig, agentSeed: number | null, model = ''): OpenAIRequest {
  const o = config.openai;
  const sampling = o.sampling ?? !OPENAI_REASONING_MODEL.test(model);
  const temperature = config.temperature;
  const topP = config.top_p;
  const notSent: string[] = [];
  if (!sampling) {
    const why = o.sampling === false ? 'openai.sampling is false' : `${model} is a reasoning model that refuses it`;
    notSent.push(`temperature ${temperature} not sent: ${why}`);
    if (topP !== undefined) notSent.push(`top_p ${topP} not sent: ${why}`);
  }
  const seed = config.model_seed === 'per_repeat' && agentSeed !== null ? agentSeed : undefined;
  return {
    ...(sampling ? { temperature } : {}),
    ...(sampling && topP !== undefined ? { top_p: topP } : {}),
    [o.output_cap_field]: config.max_output_tokens,
    ...(seed !== undefined ? { seed } : {}),
    ...(o.reasoning_effort !== undefined ? { reasoning_effort: o.reasoning_effort } : {}),
    ...(o.parallel_tool_calls !== undefined ? { parallel_tool_calls: o.parallel_tool_calls } : {}),
    ...(notSent.length > 0 ? { notSent } : {}),
  };
}

/** The output tokens one reply may use at most: the context guard keeps them free, the rate limiter counts them. */
export function outputCap(provider: LlmAgent | 'human', config: ExperimentConfig): number | null {
  if (provider === 'human') return null; // a person's reply has no cap
  if (provider === 'bedrock') return bedrockInference(config).maxTokens;
  if (provider === 'openai') return config.max_output_tokens;
  return ollamaOptions(config, null).num_predict ?? null;
}
