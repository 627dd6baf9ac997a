// What a Bedrock model's capability record (model-table.ts) means for an experiment's config, settled at start
// before anything is written (and, for Ollama, that num_ctx leaves the prompt room beside the output cap). A setting
// the model answers with a 400 is refused here, naming the field, the value, the model and the fix, rather than
// failing at the first call. A model that thinks by default, whose maxTokens caps its thinking plus its text, gets
// an output cap with room for that thinking unless the config sets one.
import { InvalidInputError } from '../errors.ts';
import type { ExperimentConfig, ExperimentConfigInput } from './experiment-config.ts';
import { modelCapabilities } from './model-table.ts';
import { fact } from '../../aws-facts/facts.ts';

const MAX_IMAGES_PER_MESSAGE = fact('bedrock.converse-max-images-per-message').value;

/**
 * maxTokens for a model that thinks by default when the config sets no cap (docs/agents-and-providers.md). The
 * shared 1,024 would cut its thinking before any tool call; turning thinking off for parity is not possible on
 * every such model (Fable 5.1 and Sonnet 5.5 refuse thinking "disabled"), so the model runs as it ships, with room
 * to think.
 */
export const THINKING_MODEL_MAX_TOKENS = 16_000;

/** The config keys that carry sampling parameters to Bedrock, with the Parameter Store name that sets each. */
const SAMPLING_KEYS = [
  { field: 'temperature', parameter: '/ariadne/config/temperature', get: (c: ExperimentConfigInput) => c.temperature },
  { field: 'top_p', parameter: '/ariadne/config/top_p', get: (c: ExperimentConfigInput) => c.top_p },
  {
    field: 'bedrock.temperature',
    parameter: '/ariadne/config/bedrock/temperature',
    get: (c: ExperimentConfigInput) => c.bedrock?.temperature,
  },
] as const;

/**
 * Ollama's num_ctx holds the prompt and the reply: the context guard keeps the output cap (num_predict) free, so a
 * cap that fills the window leaves no prompt room at all.
 */
function checkOllamaRoom(config: ExperimentConfig): void {
  const cap = config.max_output_tokens;
  if (cap !== undefined && cap >= config.ollama.num_ctx)
    throw new InvalidInputError(
      'config.max_output_tokens',
      cap,
      `config.max_output_tokens ${cap} with ollama.num_ctx ${config.ollama.num_ctx}: the reply's room is kept ` +
        `free within num_ctx, which would leave none for the prompt; lower max_output_tokens or raise ollama.num_ctx`,
    );
}

/**
 * `given`: the config as sent and as the parameters set it (before defaults), so that only a setting someone chose
 * is refused; the shared temperature default is then simply not sent (sampling.ts, recorded in the provenance).
 */
export function settleModelSettings(
  agent: string,
  model: string | null | undefined,
  given: ExperimentConfigInput,
  config: ExperimentConfig,
): ExperimentConfig {
  if (agent === 'ollama') checkOllamaRoom(config);
  if (agent !== 'bedrock' || !model) return config;
  // every executed action of a reply is a picture in the one user message that answers it (observations/image.ts)
  if (config.observation === 'image' && config.max_actions_per_turn > MAX_IMAGES_PER_MESSAGE)
    throw new InvalidInputError(
      'config.max_actions_per_turn',
      config.max_actions_per_turn,
      `config.max_actions_per_turn ${config.max_actions_per_turn} with observation "image" on Bedrock: a reply's ` +
        `actions are answered with one picture each in one message, and Converse takes at most ` +
        `${MAX_IMAGES_PER_MESSAGE} images a message (API reference, Message); lower max_actions_per_turn to ` +
        `${MAX_IMAGES_PER_MESSAGE} or less, or use a text observation format`,
    );
  const caps = modelCapabilities(model);
  if (!caps.sampling) {
    for (const key of SAMPLING_KEYS) {
      const value = key.get(given);
      if (value === undefined) continue;
      throw new InvalidInputError(
        `config.${key.field}`,
        value,
        `config.${key.field} ${value}: ${model} refuses sampling parameters (Bedrock answers ` +
          `temperature or top_p with a 400 ValidationException); remove ${key.field} from the experiment's ` +
          `config (and ${key.parameter} from the parameters, if set there) to run the model with its own sampling`,
      );
    }
  }
  const budget = given.bedrock?.reasoning_budget_tokens;
  if (!caps.manual_thinking && budget !== undefined)
    throw new InvalidInputError(
      'config.bedrock.reasoning_budget_tokens',
      budget,
      `config.bedrock.reasoning_budget_tokens ${budget}: ${model} refuses manual thinking budgets (thinking ` +
        `{type: "enabled", budget_tokens} returns a 400; it thinks adaptively only); remove ` +
        `bedrock.reasoning_budget_tokens` +
        (caps.thinks_by_default ? ' (the model thinks by default)' : ''),
    );
  const capSet = given.max_output_tokens !== undefined || given.bedrock?.max_tokens !== undefined;
  if (caps.thinks_by_default && !capSet) return { ...config, max_output_tokens: THINKING_MODEL_MAX_TOKENS };
  return config;
}
