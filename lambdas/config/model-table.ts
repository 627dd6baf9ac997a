// The Bedrock models Ariadne knows by default: list prices and context windows, each entry with the date it was
// read and the page it was read on. config.prices and config.context_windows start from this table and may
// override any entry per experiment; a model that is in neither has an unknown price (its cost is null and the
// experiment's price_known false, shown as "unknown", never as 0) and no context guard.
//
// Read 2026-11-25. Claude models reachable through Converse (Anthropic's "Claude on Amazon Bedrock (legacy)" page
// lists their ARN-versioned ids: https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock-legacy)
// are called on demand through inference profiles (us., eu., apac., jp., global. + the id): a profile id is priced
// and windowed as its model. Regional profiles of Claude 4.5 and later are reported to cost 10% more than global
// ones (third-party: https://clauder-navi.com/en/bedrock-claude-cost/); this table holds the global list price:
// set config.prices["us.<id>"] to charge the premium.

export interface ModelEntry {
  input_per_mtok: number;
  output_per_mtok: number;
  /** Prompt-cache prices, where the source gives them (else cache tokens are charged as input). */
  cache_read_per_mtok?: number;
  cache_write_per_mtok?: number;
  /** Tokens; null where the source gives none. */
  context_window: number | null;
  /** Bedrock lifecycle as of `read` (model-lifecycle page; issue 30 for Sonnet 4.5). */
  status: 'active' | 'legacy' | 'end-of-life';
  read: string;
  source: string;
}

const CLAUDE_MODELS = 'https://platform.claude.com/docs/en/models';
const LIFECYCLE = 'https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle.html';

/** Claude cache prices: writes 1.25x and reads 0.1x of input (Anthropic's pricing, as the Bedrock page repeats it). */
const claudeCache = (input: number) => ({ cache_read_per_mtok: input / 10, cache_write_per_mtok: input * 1.25 });

export const MODEL_TABLE: Readonly<Record<string, ModelEntry>> = {
  'anthropic.claude-sonnet-4-6': {
    input_per_mtok: 3,
    output_per_mtok: 15,
    ...claudeCache(3),
    context_window: 1_000_000,
    status: 'active',
    read: '2026-11-25',
    source: `${CLAUDE_MODELS}/sonnet-4-6/overview`,
  },
  'anthropic.claude-opus-4-6-v1': {
    input_per_mtok: 5,
    output_per_mtok: 25,
    ...claudeCache(5),
    context_window: 1_000_000,
    status: 'active',
    read: '2026-11-25',
    source: `${CLAUDE_MODELS}/opus-4-6/overview`,
  },
  'anthropic.claude-haiku-4-5-20251001-v1:0': {
    input_per_mtok: 1,
    output_per_mtok: 5,
    ...claudeCache(1),
    context_window: 200_000,
    status: 'active',
    read: '2026-11-25',
    source: `${CLAUDE_MODELS}/haiku-4-5/overview`,
  },
  // Legacy on Bedrock since 2026-10-08 (issue 30): kept so that runs on it are priced and guarded.
  'anthropic.claude-sonnet-4-5-20250929-v1:0': {
    input_per_mtok: 3,
    output_per_mtok: 15,
    ...claudeCache(3),
    context_window: 200_000,
    status: 'legacy',
    read: '2026-11-25',
    source: `${CLAUDE_MODELS}/overview`,
  },
  'anthropic.claude-3-7-sonnet-20250219-v1:0': {
    input_per_mtok: 3,
    output_per_mtok: 15,
    ...claudeCache(3),
    context_window: 200_000,
    status: 'legacy',
    read: '2026-11-25',
    source: 'https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock-legacy',
  },
  // Past end of life (model-lifecycle page): kept only so that old runs re-priced from the table agree.
  'anthropic.claude-3-5-sonnet-20240620-v1:0': {
    input_per_mtok: 3,
    output_per_mtok: 15,
    context_window: 200_000,
    status: 'end-of-life',
    read: '2026-11-25',
    source: LIFECYCLE,
  },
  'anthropic.claude-3-haiku-20240307-v1:0': {
    input_per_mtok: 0.25,
    output_per_mtok: 1.25,
    context_window: 200_000,
    status: 'end-of-life',
    read: '2026-11-25',
    source: LIFECYCLE,
  },
  // Nova cache reads at a quarter of input; writes at the input price.
  'amazon.nova-lite-v1:0': {
    input_per_mtok: 0.06,
    output_per_mtok: 0.24,
    cache_read_per_mtok: 0.015,
    context_window: 300_000,
    status: 'active',
    read: '2026-11-25',
    source: 'https://aws.amazon.com/bedrock/pricing/',
  },
  'amazon.nova-pro-v1:0': {
    input_per_mtok: 0.8,
    output_per_mtok: 3.2,
    cache_read_per_mtok: 0.2,
    context_window: 300_000,
    status: 'active',
    read: '2026-11-25',
    source: 'https://aws.amazon.com/bedrock/pricing/',
  },
};

/** Bedrock inference-profile prefixes: the profile is priced and windowed as the model it routes to. */
const PROFILE_PREFIX = /^(us|eu|apac|global|us-gov|ca|jp|au)\./;

/** The model an id names: an inference profile's model, or the id itself. */
export function baseModelId(model: string): string {
  return model.replace(PROFILE_PREFIX, '');
}

/** The inference profile's region prefix ("us", "global"...), or null for a base model id. */
export function inferenceProfileOf(model: string): string | null {
  return PROFILE_PREFIX.exec(model)?.[1] ?? null;
}

/** An entry of a table keyed by model id: the exact id first, then the profile's model. */
export function lookupModel<T>(table: Readonly<Record<string, T>>, model: string): T | undefined {
  return table[model] ?? table[baseModelId(model)];
}

type Price = Pick<ModelEntry, 'input_per_mtok' | 'output_per_mtok' | 'cache_read_per_mtok' | 'cache_write_per_mtok'>;

/** The default price table (config.prices) read from MODEL_TABLE. */
export function defaultPrices(): Record<string, Price> {
  return Object.fromEntries(
    Object.entries(MODEL_TABLE).map(([id, e]) => [
      id,
      {
        input_per_mtok: e.input_per_mtok,
        output_per_mtok: e.output_per_mtok,
        ...(e.cache_read_per_mtok !== undefined ? { cache_read_per_mtok: e.cache_read_per_mtok } : {}),
        ...(e.cache_write_per_mtok !== undefined ? { cache_write_per_mtok: e.cache_write_per_mtok } : {}),
      },
    ]),
  );
}

/** The default context windows (config.context_windows) read from MODEL_TABLE. */
export function defaultContextWindows(): Record<string, number> {
  return Object.fromEntries(
    Object.entries(MODEL_TABLE)
      .filter(([, e]) => e.context_window !== null)
      .map(([id, e]) => [id, e.context_window!]),
  );
}
