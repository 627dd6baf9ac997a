// The Bedrock models Ariadne knows by default: list prices and context windows, each row with the date and page it
// was read on (Anthropic's model pages, AWS's model cards and lifecycle pages). config.prices and
// config.context_windows start from it; a model in neither has an unknown price (null, never 0) and no context guard.
// A Legacy row names the `replacement` doctor offers. The list price is the global profile's; a geographic profile of
// a model with a global one costs more (aws-facts: bedrock.global-profile-saving; profileRate).

/**
 * What a model accepts, where it differs from the Claude models before Opus 4.7 (a model without a record accepts
 * temperature, top_p and a manual thinking budget, and thinks only when asked).
 */
export interface ModelCapabilities {
  /** false: temperature, top_p or top_k set to any value is a 400: Ariadne sends none, refuses a config setting one. */
  sampling: boolean;
  /** false: thinking {type: "enabled", budget_tokens} returns a 400 (adaptive thinking only). */
  manual_thinking: boolean;
  /** true: the model thinks when the request has no thinking field, and maxTokens caps its thinking plus its text. */
  thinks_by_default: boolean;
  /** Where each of the three was read. */
  source: string;
}

/** A price tier for long prompts: a request whose prompt is over `above_prompt_tokens` is billed wholly at it. */
interface LongPromptPrice {
  /** Input, cache read and cache write tokens of one request together (the prompt). */
  above_prompt_tokens: number;
  input_per_mtok: number;
  output_per_mtok: number;
  cache_read_per_mtok?: number;
  cache_write_per_mtok?: number;
}

export interface ModelEntry {
  input_per_mtok: number;
  output_per_mtok: number;
  /** Prompt-cache prices, where the source gives them (else cache tokens are charged as input). */
  cache_read_per_mtok?: number;
  cache_write_per_mtok?: number;
  /** A model priced higher for long prompts (Haiku 5.5): the prices above are then those of a short prompt. */
  long_prompt?: LongPromptPrice;
  /** Tokens; null where the source gives none. */
  context_window: number | null;
  /** The most output tokens one reply may have; null where the source gives none. */
  max_output_tokens?: number | null;
  /**
   * Lifecycle as of `read`: Bedrock's (model-lifecycle page, a model card), else
   * Anthropic's own label for the model where no AWS page gave one (`status_source` says which).
   */
  status: 'active' | 'legacy' | 'end-of-life';
  status_source?: string;
  /** A Legacy (or retired) model's successor, as the vendor names it: the table's id of the model to move to. */
  replacement?: string;
  /** End of life on Bedrock (YYYY-MM-DD), where a source gives one; `doctor --bedrock` prefers Bedrock's own. */
  eol?: string;
  /** Bedrock's cross-Region inference profile prefixes the sources list for the model (us., eu., global. ...). */
  profiles?: readonly string[];
  capabilities?: ModelCapabilities;
  read: string;
  source: string;
}

import { fact } from '../../aws-facts/facts.ts';

const CLAUDE_MODELS = 'https://platform.claude.com/docs/en/models';
// Bedrock ids of the dateless generation: anthropic.claude-{name}-{major}[-{minor}] (Anthropic, model IDs page).
const MODEL_IDS = 'https://platform.claude.com/docs/en/about-claude/models/model-ids-and-versions';
const AWS_ADAPTIVE = 'https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html';
const SONNET_5_MIGRATION = 'https://platform.claude.com/docs/models/sonnet-5/migration-guide';
/**
 * Profile prefixes, third-party only (no AWS page read gave them): the aether-llm crate's Bedrock model list
 * (https://docs.rs/aether-llm/latest/llm/catalog/enum.BedrockFoundationModel.html, read 2026-11-25) has au., eu.,
 * global. and jp. profiles of Sonnet 5 and Opus 4.8 and eu., global., jp. of Opus 4.7; us. ones are reported in
 * use (github.com/openclaw/openclaw/issues/73663, github.com/Mintplex-Labs/anything-llm/issues/5821).
 */
const DATELESS_PROFILES = ['global', 'us', 'eu', 'jp', 'au'] as const;

/**
 * Opus 4.7, Opus 4.8: no sampling parameters, adaptive thinking only, and no thinking unless asked. Sampling:
 * Anthropic's Sonnet 5 migration guide ("the same constraint was previously introduced on Claude Opus 4.7") and,
 * third-party, Bedrock's ValidationException "`temperature` is deprecated for this model." reported for both
 * (github.com/cline/cline/issues/10572, github.com/Mintplex-Labs/anything-llm/issues/5821). Manual thinking: the
 * AWS Opus 4.7 model card and adaptive-thinking page; for 4.8, Anthropic's Sonnet 5 migration guide.
 */
const ADAPTIVE_ONLY_OPUS_4: ModelCapabilities = {
  sampling: false,
  manual_thinking: false,
  thinks_by_default: false,
  source: `${SONNET_5_MIGRATION}; ${AWS_ADAPTIVE}`,
};

/**
 * Sonnet 5 and later (Anthropic's Sonnet 5 migration guide, read 2026-11-25): "adaptive thinking is on by default
 * and manual extended thinking (thinking: {type: "enabled", budget_tokens: N}) returns a 400 error"; "sampling
 * parameters (temperature, top_p, top_k) set to non-default values return a 400 error"; "max_tokens remains a hard
 * limit on total output (thinking plus response text)".
 */
const THINKS_BY_DEFAULT: ModelCapabilities = {
  sampling: false,
  manual_thinking: false,
  thinks_by_default: true,
  source: SONNET_5_MIGRATION,
};
const LIFECYCLE = 'https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle.html';
const MODEL_CARD = 'https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude';
/** Re-read on this date: the rows whose `read` it is. */
const REREAD = '2026-11-28';

/** Claude cache prices: writes 1.25x and reads 0.1x of input (Anthropic's pricing, as the Bedrock page repeats it). */
const claudeCache = (input: number) => ({ cache_read_per_mtok: input / 10, cache_write_per_mtok: input * 1.25 });

export const MODEL_TABLE: Readonly<Record<string, ModelEntry>> = {
  // Anthropic's Sonnet 5 page: released 2026-06-30, $2/$10, 5-minute cache write $2.50, cache read $0.20, 1M
  // context, 128K output; "Legacy. ... Although Claude Sonnet 5 is still available, you should consider migrating
  // to Claude Sonnet 5.5" (re-read 2026-11-28). No AWS lifecycle page read for it: Bedrock keeps a model Active
  // until it announces otherwise.
  'anthropic.claude-sonnet-5': {
    input_per_mtok: 2,
    output_per_mtok: 10,
    ...claudeCache(2),
    context_window: 1_000_000,
    max_output_tokens: 128_000,
    status: 'legacy',
    status_source: `Anthropic: ${CLAUDE_MODELS}/sonnet-5/overview (Bedrock id: ${AWS_ADAPTIVE})`,
    replacement: 'anthropic.claude-sonnet-5-5',
    profiles: DATELESS_PROFILES,
    capabilities: THINKS_BY_DEFAULT,
    read: REREAD,
    source: `${CLAUDE_MODELS}/sonnet-5/overview`,
  },
  // Anthropic's Opus 4.8 page: released 2026-05-28, $5/$25, 1M context, 128K output; Legacy there (Opus 5.5 is
  // Anthropic's current Opus). Bedrock id from the model IDs page.
  'anthropic.claude-opus-4-8': {
    input_per_mtok: 5,
    output_per_mtok: 25,
    ...claudeCache(5),
    context_window: 1_000_000,
    max_output_tokens: 128_000,
    status: 'legacy',
    status_source: `Anthropic: ${CLAUDE_MODELS}/opus-4-8/overview (Bedrock id: ${MODEL_IDS})`,
    replacement: 'anthropic.claude-opus-5-5',
    profiles: DATELESS_PROFILES,
    capabilities: ADAPTIVE_ONLY_OPUS_4,
    read: '2026-11-25',
    source: `${CLAUDE_MODELS}/opus-4-8/overview`,
  },
  // AWS's model card: launched 2026-04-16, Active, EOL no sooner than 2027-04-16, 1M context, 128K output,
  // thinking.type "adaptive" only. Price from Anthropic's models overview ($5/$25).
  'anthropic.claude-opus-4-7': {
    input_per_mtok: 5,
    output_per_mtok: 25,
    ...claudeCache(5),
    context_window: 1_000_000,
    max_output_tokens: 128_000,
    status: 'active',
    status_source:
      'AWS: https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-opus-4-7.html',
    profiles: ['global', 'us', 'eu', 'jp'],
    capabilities: ADAPTIVE_ONLY_OPUS_4,
    read: '2026-11-25',
    source: 'https://platform.claude.com/docs/claude/docs/models-overview',
  },
  // Opus 5 (Anthropic's "What's new in Claude Opus 5": thinking on by default, 1M context, 128K output; $5/$25,
  // 5-minute cache write $6.25, cache read $0.50). Re-read 2026-11-28: "Claude Opus 5 Legacy", "Status Active
  // (legacy)", released 2026-07-24, "Although Claude Opus 5 is still available, you should consider migrating to
  // Claude Opus 5.5"; Anthropic retires it not sooner than 2027-07-24 on its own platforms, a date that does not
  // bind Bedrock. Bedrock id from AWS's adaptive-thinking page; sampling refused on Bedrock reported third-party
  // (github.com/promptfoo/promptfoo/issues/10307).
  'anthropic.claude-opus-5': {
    input_per_mtok: 5,
    output_per_mtok: 25,
    ...claudeCache(5),
    context_window: 1_000_000,
    max_output_tokens: 128_000,
    status: 'legacy',
    status_source: `Anthropic: ${CLAUDE_MODELS}/opus-5/overview`,
    replacement: 'anthropic.claude-opus-5-5',
    profiles: ['us'],
    capabilities: {
      ...THINKS_BY_DEFAULT,
      source: 'https://platform.claude.com/docs/en/about-claude/models/whats-new-opus-5',
    },
    read: REREAD,
    source: 'https://platform.claude.com/docs/en/about-claude/models/whats-new-opus-5',
  },
  // Opus 5.5, Anthropic's current Opus (its page, read 2026-11-28: $4/$20, 5-minute cache write $5, cache read
  // $0.20, 1M context, 128K output, adaptive thinking always on). AWS's model card: launched 2026-09-22, EOL no
  // sooner than 2027-09-22, a 6-month Legacy period, Active, adaptive thinking always on and not to be disabled
  // (read in its Japanese and Chinese translations; the English card was not among the stored pages found).
  // Profiles third-party only:
  // jp. and global. listed by list-inference-profiles in ap-northeast-1 (dev.classmethod.jp/en/articles/
  // bedrock-claude-opus-5-5/, 2026-09-23). Sampling as Opus 5's (not re-read for 5.5).
  'anthropic.claude-opus-5-5': {
    input_per_mtok: 4,
    output_per_mtok: 20,
    cache_read_per_mtok: 0.2,
    cache_write_per_mtok: 5,
    context_window: 1_000_000,
    max_output_tokens: 128_000,
    status: 'active',
    status_source: `AWS: ${MODEL_CARD}-opus-5-5.html`,
    profiles: ['global', 'jp'],
    capabilities: { ...THINKS_BY_DEFAULT, source: `${MODEL_CARD}-opus-5-5.html` },
    read: REREAD,
    source: `${CLAUDE_MODELS}/opus-5-5/overview`,
  },
  // Sonnet 5.5, Anthropic's current Sonnet (its page and migration guide: $2/$10, cache read $0.10, 1M, 128K;
  // sampling parameters, thinking budgets and thinking "disabled" return a 400). Re-read 2026-11-28 it is "Latest";
  // that stored copy (a Chinese one, from before Haiku 5.5) gives cache reads at $0.20, the 2026-11-25 reading and
  // a reseller's Bedrock list at 1.1x ($0.11, apify.com/apify/aws-bedrock-proxy) $0.10: $0.10 kept. Bedrock id
  // third-party only (github.com/vercel/ai/releases/tag/@ai-sdk%2Famazon-bedrock@4.0.186); its global profile too
  // (aws-samples.github.io/sample-connector-for-bedrock: "for example global.anthropic.claude-sonnet-5-5").
  'anthropic.claude-sonnet-5-5': {
    input_per_mtok: 2,
    output_per_mtok: 10,
    cache_read_per_mtok: 0.1,
    cache_write_per_mtok: 2.5,
    context_window: 1_000_000,
    max_output_tokens: 128_000,
    status: 'active',
    status_source: `Anthropic: ${CLAUDE_MODELS}/sonnet-5-5/overview`,
    profiles: ['global', 'us'],
    capabilities: { ...THINKS_BY_DEFAULT, source: `${CLAUDE_MODELS}/sonnet-5-5/migration-guide` },
    read: REREAD,
    source: `${CLAUDE_MODELS}/sonnet-5-5/overview`,
  },
  // Haiku 5.5, Anthropic's current Haiku (its page, read 2026-11-28; released 2026-10-07): priced by the prompt's
  // length, "$0.10 / MTok for prompts up to 100,000 tokens, $0.50 / MTok for prompts over 100,000 tokens" input,
  // $0.50 / $2.50 output, 5-minute cache writes $0.125 / $0.625; 1M context, 128K output. Cache reads ($0.01 /
  // $0.05) are cut off in the stored copy: third-party (apidog.com/blog/how-to-use-claude-haiku-5-5-api/). Its
  // migration guide: remove temperature, top_p and top_k; thinking budgets become adaptive; select blocks by type
  // (it thinks unasked). Bedrock id and us. profile third-party only (github.com/vercel/ai/releases/tag/
  // @ai-sdk%2Famazon-bedrock@4.0.192); no AWS model card was found stored.
  'anthropic.claude-haiku-5-5': {
    input_per_mtok: 0.1,
    output_per_mtok: 0.5,
    cache_read_per_mtok: 0.01,
    cache_write_per_mtok: 0.125,
    long_prompt: {
      above_prompt_tokens: 100_000,
      input_per_mtok: 0.5,
      output_per_mtok: 2.5,
      cache_read_per_mtok: 0.05,
      cache_write_per_mtok: 0.625,
    },
    context_window: 1_000_000,
    max_output_tokens: 128_000,
    status: 'active',
    status_source: `Anthropic: ${CLAUDE_MODELS}/haiku-5-5/overview`,
    profiles: ['us'],
    capabilities: { ...THINKS_BY_DEFAULT, source: `${CLAUDE_MODELS}/haiku-5-5/migration-guide` },
    read: REREAD,
    source: `${CLAUDE_MODELS}/haiku-5-5/overview`,
  },
  // Fable 5.1 (Anthropic's Fable 5.1 page: $10/$50, 1M, 128K, adaptive thinking always on; cache reads cut to a
  // quarter of Fable 5's, $0.25, 0.025x of input where other Claude models are 0.1x; 5-minute writes $12.50).
  // Bedrock id and "adaptive only, disabled not supported" from AWS's adaptive-thinking page.
  'anthropic.claude-fable-5-1': {
    input_per_mtok: 10,
    output_per_mtok: 50,
    cache_read_per_mtok: 0.25,
    cache_write_per_mtok: 12.5,
    context_window: 1_000_000,
    max_output_tokens: 128_000,
    status: 'active',
    status_source: `Anthropic: ${CLAUDE_MODELS}/fable-5-1/overview`,
    capabilities: { ...THINKS_BY_DEFAULT, source: AWS_ADAPTIVE },
    read: '2026-11-25',
    source: `${CLAUDE_MODELS}/fable-5-1/overview`,
  },
  // Anthropic's Sonnet 4.6 page, re-read 2026-11-28: "Legacy. Released February 17, 2026. Although Claude Sonnet 4.6
  // is still available, you should consider migrating to Claude Sonnet 5.5." No AWS page read gives its Bedrock
  // lifecycle: `doctor --bedrock` reads that live.
  'anthropic.claude-sonnet-4-6': {
    input_per_mtok: 3,
    output_per_mtok: 15,
    ...claudeCache(3),
    context_window: 1_000_000,
    status: 'legacy',
    status_source: `Anthropic: ${CLAUDE_MODELS}/sonnet-4-6/overview`,
    replacement: 'anthropic.claude-sonnet-5-5',
    read: REREAD,
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
  // AWS's model card (re-read 2026-11-28, its Japanese copy): launched 2025-10-16, Active, geographic (us., eu., ...)
  // and global inference ids. Anthropic's current Haiku is Haiku 5.5; Bedrock keeps 4.5 Active.
  'anthropic.claude-haiku-4-5-20251001-v1:0': {
    input_per_mtok: 1,
    output_per_mtok: 5,
    ...claudeCache(1),
    context_window: 200_000,
    status: 'active',
    status_source: `AWS: ${MODEL_CARD}-haiku-4-5.html`,
    profiles: ['global', 'us', 'eu'],
    read: REREAD,
    source: `${CLAUDE_MODELS}/haiku-4-5/overview`,
  },
  // Legacy on Bedrock since 2026-10-08: kept so that runs on it are priced and guarded. Its global and geographic
  // profiles: AWS's global cross-Region inference page (the fact bedrock.global-profile-saving). Its replacement is
  // Anthropic's current Sonnet (the models overview, 2026-11-28); its own page was not re-read.
  'anthropic.claude-sonnet-4-5-20250929-v1:0': {
    input_per_mtok: 3,
    output_per_mtok: 15,
    ...claudeCache(3),
    context_window: 200_000,
    status: 'legacy',
    replacement: 'anthropic.claude-sonnet-5-5',
    profiles: ['global', 'us', 'eu'],
    read: '2026-11-25',
    source: `${CLAUDE_MODELS}/overview`,
  },
  // Past its end of life on Bedrock since 2026-04-28, third-party only: github.com/awslabs/startups/pull/9
  // ("Removes Claude 3.7 Sonnet which is past EOL (Apr 28, 2026)") and github.com/theopenco/llmgateway/pull/2930
  // (its aws-bedrock mapping "deactivated on 2026-04-28"); the stored copies of AWS's lifecycle pages end before
  // their tables (read 2026-11-28). Kept so that old runs re-priced from the table agree.
  'anthropic.claude-3-7-sonnet-20250219-v1:0': {
    input_per_mtok: 3,
    output_per_mtok: 15,
    ...claudeCache(3),
    context_window: 200_000,
    status: 'end-of-life',
    status_source: 'third-party: github.com/awslabs/startups/pull/9, github.com/theopenco/llmgateway/pull/2930',
    eol: '2026-04-28',
    read: REREAD,
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

/**
 * What a profile kind costs against the table's price, from AWS's fact bedrock.global-profile-saving (read
 * 2026-11-28): a global profile saves that fraction of the geographic price, so with the table at the global
 * (list) price a geographic profile costs 1 / (1 - saving) of it: 1.111 for a 10% saving.
 */
const SAVING_FACT = 'bedrock.global-profile-saving';
const GLOBAL_SAVING = fact(SAVING_FACT).value;
const PROFILE_RATES_READ = '2026-11-28';

export interface ProfileRate {
  /** base: a model id; global: a global. profile; geographic: us., eu., apac., jp. ... */
  kind: 'base' | 'global' | 'geographic';
  /** The factor on the model's table price: above 1 only for a geographic profile of a model with a global one. */
  factor: number;
  /** Where the factor comes from, and when it was read: "table" (1), or the fact and its date. */
  basis: string;
}

/**
 * A model id's rate against its model's price: a geographic profile of a model the table lists a global profile
 * for costs the global saving more; every other id (a model with no global profile has one price) its model's.
 */
export function profileRate(model: string): ProfileRate {
  const prefix = inferenceProfileOf(model);
  if (prefix === null) return { kind: 'base', factor: 1, basis: 'table' };
  if (prefix === 'global') return { kind: 'global', factor: 1, basis: 'table' };
  return MODEL_TABLE[baseModelId(model)]?.profiles?.includes('global') === true
    ? { kind: 'geographic', factor: 1 / (1 - GLOBAL_SAVING), basis: `${SAVING_FACT}, read ${PROFILE_RATES_READ}` }
    : { kind: 'geographic', factor: 1, basis: 'table (no global profile listed: one price)' };
}

/** The inference profile's region prefix ("us", "global"...), or null for a base model id. */
export function inferenceProfileOf(model: string): string | null {
  return PROFILE_PREFIX.exec(model)?.[1] ?? null;
}

/** An entry of a table keyed by model id: the exact id first, then the profile's model. */
export function lookupModel<T>(table: Readonly<Record<string, T>>, model: string): T | undefined {
  return table[model] ?? table[baseModelId(model)];
}

/** What a model accepts when the table has no record for it: sampling, manual thinking, no thinking unless asked. */
const PLAIN_CAPABILITIES: ModelCapabilities = {
  sampling: true,
  manual_thinking: true,
  thinks_by_default: false,
  source: 'no record: the Claude 3 to 4.6 behaviour',
};

/** The model's capability record (an inference profile's model's); a model without one gets the plain record. */
export function modelCapabilities(model: string): ModelCapabilities {
  return lookupModel(MODEL_TABLE, model)?.capabilities ?? PLAIN_CAPABILITIES;
}

type Price = Pick<
  ModelEntry,
  'input_per_mtok' | 'output_per_mtok' | 'cache_read_per_mtok' | 'cache_write_per_mtok' | 'long_prompt'
>;

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
        ...(e.long_prompt ? { long_prompt: { ...e.long_prompt } } : {}),
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
