// Limits and rules of one experiment. Defaults are the classic setup; the
// resolved object is snapshotted into the experiment row at start so a later
// change of defaults or parameters never alters a running experiment.
import { z } from 'zod';
import {
  DATABASE_RETRY_BUDGET_MS,
  DATABASE_WORK_MARGIN_MS,
  LLM_TURN_TIMEOUT_SECONDS,
  MODEL_CALL_BUDGET_MS,
  TURN_EVENTS,
} from './budgets.ts';
import { defaultRecallTool, meaninglessCombination } from './prompt-combinations.ts';
import { defaultContextWindows, defaultPrices } from './model-table.ts';
import { envString } from './environment.ts';

export const SUCCESS_RULES = ['seen', 'reached'] as const;

/**
 * USD per million tokens; unknown models cost null rather than a guess. Prompt-cache reads and writes have their
 * own prices; one left out is charged at input_per_mtok (the rate of input neither read from nor written to the
 * cache), so set both for a model whose pricing page lists them.
 */
const tokenPrices = {
  input_per_mtok: z.number().min(0).max(10_000),
  output_per_mtok: z.number().min(0).max(10_000),
  cache_read_per_mtok: z.number().min(0).max(10_000).optional(),
  cache_write_per_mtok: z.number().min(0).max(10_000).optional(),
};
const priceSchema = z
  .object({
    ...tokenPrices,
    /**
     * A model priced higher for long prompts: a request whose input, cache read and cache write tokens together
     * are over above_prompt_tokens is billed wholly at these prices (the model table's, e.g. Haiku 5.5's).
     */
    long_prompt: z
      .object({ above_prompt_tokens: z.number().int().min(1), ...tokenPrices })
      .strict()
      .optional(),
  })
  .strict();

/** The model table's list prices (model-table.ts: each with its date and source page). */
const DEFAULT_PRICES: Record<string, z.input<typeof priceSchema>> = defaultPrices();

const retrySchema = z
  .object({
    max_attempts: z.number().int().min(1).max(20).default(5),
    base_delay_ms: z.number().int().min(0).max(60_000).default(500),
    max_delay_ms: z.number().int().min(0).max(600_000).default(20_000),
    /** Give up (ProviderTransientError) once retrying has taken this long. */
    max_total_ms: z.number().int().min(0).max(3_600_000).default(120_000),
    timeout_ms: z.number().int().min(10).max(3_600_000).default(120_000),
  })
  .strict();

const ollamaSchema = z
  .object({
    host: z.string().url().default('http://127.0.0.1:11434'),
    num_ctx: z.number().int().min(256).max(1_048_576).default(32_768),
    /** Overrides the shared `temperature` for Ollama; left out, the shared one is sent (provider parity). */
    temperature: z.number().min(0).max(2).optional(),
    /** Sent only when set (Ollama's own default is 1.1); snapshots from before parity carry the 1.4 they ran with. */
    repeat_penalty: z.number().min(0).max(10).optional(),
    /** Ollama's `think` request field: true, false, or a level (gpt-oss); left out, not sent (the model's default). */
    think: z.union([z.boolean(), z.enum(['low', 'medium', 'high'])]).optional(),
    stream: z.boolean().default(false),
  })
  .strict();

/** Chat completions' reasoning_effort values (the openai client's Shared.ReasoningEffort, v6.49). */
const OPENAI_REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

/**
 * Any server that speaks OpenAI's chat completions (vLLM, llama.cpp's server, LM Studio, OpenAI, OpenRouter):
 * providers/llm/openai-model.ts. The key is a secret (openai_api_key, or $OPENAI_API_KEY), never a setting.
 */
const openaiSchema = z
  .object({
    /** The API's base URL, /v1 included; left out, $OPENAI_BASE_URL, else a vLLM server on this machine. */
    base_url: z.string().url().default('http://127.0.0.1:8000/v1'),
    /** reasoning_effort, sent only when set (left out: the model's default; servers without it ignore or refuse). */
    reasoning_effort: z.enum(OPENAI_REASONING_EFFORTS).optional(),
    /** parallel_tool_calls, sent only when set (left out: the server's default, true on OpenAI). */
    parallel_tool_calls: z.boolean().optional(),
    /**
     * Whether temperature and top_p are sent. Left out: sent, except to OpenAI's reasoning models (o1, o3, o4-mini,
     * gpt-5...), which answer them with a 400 (sampling.ts).
     */
    sampling: z.boolean().optional(),
    /** The field that carries max_output_tokens: max_completion_tokens, or max_tokens for servers without it. */
    output_cap_field: z.enum(['max_completion_tokens', 'max_tokens']).default('max_completion_tokens'),
    /** Server-sent events, with stream_options.include_usage so that the tokens are still reported. */
    stream: z.boolean().default(false),
  })
  .strict();

const bedrockSchema = z
  .object({
    region: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region such as us-east-1')
      .default('us-east-1'),
    /** Only for local simulators and VPC endpoints; empty means the regional endpoint. */
    endpoint: z.string().url().optional(),
    /** Overrides the shared `max_output_tokens` for Bedrock (maxTokens); left out, the shared one is sent. */
    max_tokens: z.number().int().min(1).max(200_000).optional(),
    /** Overrides the shared `temperature` for Bedrock; left out, the shared one is sent. */
    temperature: z.number().min(0).max(1).optional(),
    /**
     * Claude's extended thinking through Converse (additionalModelRequestFields.thinking.budget_tokens, at least
     * 1,024 and below maxTokens); left out, not asked for. Claude takes no temperature or top_p with thinking on:
     * neither is then sent, and the provenance record says so.
     */
    reasoning_budget_tokens: z.number().int().min(1024).max(200_000).optional(),
    /**
     * Cache points after the tools and the system prompt, for models that support prompt caching
     * (providers/llm/bedrock-caching.ts); other models never get one. Cached input is cheaper and reported apart.
     */
    prompt_caching: z.boolean().default(true),
  })
  .strict();

/**
 * A provider's limit on one model, shared by every experiment running at once (providers/llm/rate-limiter.ts):
 * requests and tokens per window (a minute, as providers count; tests scale window_seconds down).
 */
const rateLimitSchema = z
  .object({
    requests_per_minute: z.number().int().min(1).max(10_000_000).optional(),
    tokens_per_minute: z.number().int().min(1).max(1_000_000_000).optional(),
    /** The provider's counting window: 60 for real services; lower only to scale a simulated limit down. */
    window_seconds: z.number().min(0.1).max(3_600).default(60),
  })
  .strict();

/** "provider:model" (exact) or "provider:*" (every model of the provider not listed). */
const RATE_LIMIT_KEY = /^(ollama|bedrock|openai):.{1,200}$/;

const rateLimitsSchema = z.record(z.string(), rateLimitSchema).superRefine((limits, ctx) => {
  for (const key of Object.keys(limits))
    if (!RATE_LIMIT_KEY.test(key))
      ctx.addIssue({
        code: 'custom',
        path: [key],
        input: key,
        message:
          `"${key}" is not a rate limit key: rename it "<provider>:<model>" or "<provider>:*" with provider ` +
          'ollama, bedrock or openai, e.g. "bedrock:amazon.nova-lite-v1:0"',
      });
});

/** Thresholds of the stuck detectors (engine/agent-monitor.ts). */
const stuckThresholdsSchema = z
  .object({
    /** The same failed move, from the same cell, this many times in a row. */
    repeated_failed_move: z.number().int().min(2).max(1_000).default(3),
    /** Positions A-B-A-B... over this many moves. */
    oscillation_window: z.number().int().min(3).max(100).default(4),
    /** Executed actions without progress (a new tile, or a new best distance to unexplored ground). */
    no_new_tile_actions: z.number().int().min(2).max(100_000).default(20),
    /** recall_all calls within the last `recall_window` actions. */
    recall_spam: z.number().int().min(2).max(1_000).default(3),
    recall_window: z.number().int().min(2).max(10_000).default(10),
    /** Turns in a row in which the agent executed no action. */
    idle_turns: z.number().int().min(1).max(1_000).default(3),
    /** Entries into one cell without progress. */
    cell_revisits: z.number().int().min(2).max(100_000).default(10),
  })
  .strict();

/** Context windows in tokens from the model table; an inference profile uses its model's entry. */
const DEFAULT_CONTEXT_WINDOWS: Record<string, number> = defaultContextWindows();

/**
 * What an LLM agent remembers between turns (each turn is a fresh Lambda): fresh, only the current observation;
 * history, the last memory_history_actions actions with their outcomes in the turn's first message;
 * conversation, the whole conversation carried over (stored with the experiment, bounded by tokens).
 */
const MEMORY_MODES = ['fresh', 'history', 'conversation'] as const;

/** What the context guard does with a prompt that would not fit the model's window: drop oldest, or refuse. */
const CONTEXT_POLICIES = ['trim', 'refuse'] as const;

/**
 * observe: record only (the default: measuring must not change the subject);
 * advise: tell the agent; halt: end the run as stuck.
 */
export const STUCK_POLICIES = ['observe', 'advise', 'halt'] as const;

/**
 * How the model is shown the maze each turn (providers/llm/observations/): the encoding alone moves a model's
 * success by tens of points in published maze studies, so it is a setting to vary, not a constant. rays (the
 * default) is plain text, what models read best; json is for simulators and models that prefer it; image draws
 * local_grid's square as a PNG picture, for vision models (observations/image.ts).
 */
export const OBSERVATION_FORMATS = ['rays', 'local_grid', 'full_map', 'coordinates', 'json', 'image'] as const;
export type ObservationFormat = (typeof OBSERVATION_FORMATS)[number];

/** The longest an experiment may ask to run (max_duration_minutes): a week. Sweeps wait this long for one, and more. */
export const MAX_DURATION_MINUTES = 7 * 24 * 60;

/** The fields, each checked alone; the whole config also checks how they bound each other (below). */
const configFields = z
  .object({
    max_moves: z.number().int().min(1).max(1_000_000).optional(), // default below: max_turns derives from it
    max_duration_minutes: z.number().min(0.01).max(MAX_DURATION_MINUTES).default(120),
    /**
     * Budgets of one run (engine/turn.ts): it ends (status timeout, stop_reason max_cost_usd or max_tokens) before
     * a model call once what it spent reached the budget. Cost in USD at config.prices (a model without a price
     * cannot have a cost budget: refused at start); tokens as the provider reported them, input, cache reads and
     * writes and output (reasoning included) together. Left out: no budget.
     */
    max_cost_usd: z.number().positive().max(1_000_000).optional(),
    max_tokens: z.number().int().positive().max(1e12).optional(),
    max_actions_per_turn: z.number().int().min(1).max(64).default(8),
    // 0 would blind the agent (it sees not even the next tile; the frontier agent never moves): refused.
    vision_range: z
      .number()
      .int()
      .min(1, 'must be at least 1: with 0 the agent sees nothing, not even the tile next to it')
      .max(50)
      .default(3),
    see_through: z.boolean().default(false),
    max_recall_actions: z.number().int().min(1).max(100_000).default(50),
    recall_interval: z.number().int().min(0).max(100_000).default(10),
    success_rule: z.enum(SUCCESS_RULES).default('seen'),
    /**
     * Safety stop for agents that keep replying without acting: ends the run as timeout (max_turns). Left out,
     * it is derived from max_moves (below), so that max_moves can always be reached.
     */
    max_turns: z.number().int().min(1).max(1_000_000).optional(),
    /** History events one execution may use before it continues as new (Standard workflows stop at 25,000). */
    history_event_budget: z.number().int().min(20).max(24_000).default(20_000),
    /**
     * How long a run waits, in all, for a model provider that stays unavailable through a turn's retries, trying the
     * turn again after 15 s, 30 s, ... up to 5 min between tries, before it ends failed (engine/provider-outage.ts).
     * 0: it ends at once. The time waited is not counted in max_duration_minutes.
     */
    provider_outage_wait_minutes: z.number().min(0).max(10_080).default(60),
    prompt_version: z
      .string()
      .regex(/^[a-z0-9_-]{1,40}(\/v\d{1,6})?$/, 'a prompt version such as v1 or maze/v2')
      // v2 describes what the chosen observation format shows (config/prompts.ts); v1 stays for old runs
      .default('v2'),
    ollama: ollamaSchema.default(ollamaSchema.parse({})),
    bedrock: bedrockSchema.default(bedrockSchema.parse({})),
    openai: openaiSchema.default(openaiSchema.parse({})),
    retry: retrySchema.default(retrySchema.parse({})),
    prices: z.record(z.string().min(1).max(200), priceSchema).default(DEFAULT_PRICES),
    // Provider parity: one set of sampling settings and one output cap, sent to every provider (flat keys, so that
    // a sweep can vary them). ollama.temperature, bedrock.temperature and bedrock.max_tokens still override them.
    /** Sampling temperature sent to every provider. */
    temperature: z.number().min(0).max(1).default(0.2),
    /** Nucleus sampling sent to every provider when set; left out, each provider's own default applies. */
    top_p: z.number().min(0).max(1).optional(),
    /** The reply's output cap on every provider (Ollama num_predict, Bedrock maxTokens, max_completion_tokens). */
    max_output_tokens: z.number().int().min(16).max(200_000).default(1024),
    /** per_repeat: the run's agent seed goes to APIs that take one (Ollama options.seed, OpenAI seed); none: none. */
    model_seed: z.enum(['per_repeat', 'none']).default('per_repeat'),
    /** true: a tool call written as JSON in the reply text is not executed but logged as invalid_arguments. */
    strict_tool_calls: z.boolean().default(false),
    /** Per "provider:model" (or "provider:*"); a model with no entry is not limited. */
    rate_limits: rateLimitsSchema.default({}),
    stuck_policy: z.enum(STUCK_POLICIES).default('observe'),
    stuck_thresholds: stuckThresholdsSchema.default(stuckThresholdsSchema.parse({})),
    observation: z.enum(OBSERVATION_FORMATS).default('rays'),
    // Flat keys (not a `memory` section) so that sweep `settings:` can vary each one.
    memory: z.enum(MEMORY_MODES).default('fresh'),
    memory_history_actions: z.number().int().min(1).max(1_000).default(20),
    /**
     * The carried conversation's bound. Default and most a new run may ask: 7,000 (engine/stored-limits.ts, the
     * experiment row's 64 KB on the Data API); the schema's wider range still parses older snapshots.
     */
    memory_conversation_tokens: z.number().int().min(500).max(200_000).default(7_000),
    /** Left out: on, except under full_map (config/prompt-combinations.ts says why). */
    recall_tool: z.boolean().optional(),
    context_policy: z.enum(CONTEXT_POLICIES).default('trim'),
    /** Context windows (tokens) of Bedrock and OpenAI models by id: entries given add to (or replace) the defaults. */
    context_windows: z
      .record(z.string().min(1).max(200), z.number().int().min(256).max(10_000_000))
      .default({})
      .transform((given) => ({ ...DEFAULT_CONTEXT_WINDOWS, ...given })),
  })
  .strict();

/** Some fields of a config, as StartExecution input and Parameter Store give them (merged, then checked whole). */
export const partialConfigSchema = configFields.partial().strict();

const DEFAULT_MAX_MOVES = 10_000;
const MIN_DERIVED_MAX_TURNS = 5_000;

/** max_turns when none is given: room for every action of max_moves at full turns, and never below 5,000. */
function derivedMaxTurns(maxMoves: number, maxActionsPerTurn: number): number {
  return Math.max(MIN_DERIVED_MAX_TURNS, Math.ceil(maxMoves / maxActionsPerTurn));
}

/**
 * The whole config, with the limits that bound each other settled: max_turns left out is derived from max_moves;
 * both given, a max_moves that max_turns x max_actions_per_turn cannot reach is refused naming both (a run would
 * end as max_turns without saying that max_moves never could be reached).
 */
export const experimentConfigSchema = configFields.transform((c, ctx) => {
  const maxMoves = c.max_moves ?? DEFAULT_MAX_MOVES;
  const maxTurns = c.max_turns ?? derivedMaxTurns(maxMoves, c.max_actions_per_turn);
  const reachable = maxTurns * c.max_actions_per_turn;
  if (c.max_moves !== undefined && maxMoves > reachable) {
    ctx.addIssue({
      code: 'custom',
      path: ['max_moves'],
      input: c.max_moves,
      message:
        `${maxMoves} can never be reached: max_turns ${maxTurns} x max_actions_per_turn ` +
        `${c.max_actions_per_turn} allow at most ${reachable} actions; raise max_turns to at least ` +
        `${Math.ceil(maxMoves / c.max_actions_per_turn)} (--max-turns), leave it out (it is then derived), ` +
        'or lower max_moves',
    });
    return z.NEVER;
  }
  const worst = modelCallWorstCaseMs(c.retry);
  if (worst > MODEL_CALL_BUDGET_MS) {
    ctx.addIssue({
      code: 'custom',
      path: ['retry', 'timeout_ms'],
      input: c.retry.timeout_ms,
      message: unfitModelCallMessage(c.retry, worst),
    });
    return z.NEVER;
  }
  const meaningless = meaninglessCombination(c);
  if (meaningless) {
    ctx.addIssue({ code: 'custom', ...meaningless });
    return z.NEVER;
  }
  return { ...c, max_moves: maxMoves, max_turns: maxTurns, recall_tool: c.recall_tool ?? defaultRecallTool(c) };
});

export type ExperimentConfig = z.output<typeof experimentConfigSchema>;
export type ExperimentConfigInput = z.input<typeof experimentConfigSchema>;

export const DEFAULT_CONFIG: ExperimentConfig = experimentConfigSchema.parse({});

type RetrySettings = z.output<typeof retrySchema>;

/**
 * The longest one model call can take with its retries, as withRetry (providers/llm/retry.ts) runs them inside one
 * turn invocation: every attempt up to timeout_ms, with the backoff delays between them; and since no attempt
 * starts once max_total_ms has passed, never more than max_total_ms plus one attempt.
 */
export function modelCallWorstCaseMs(r: RetrySettings): number {
  return Math.min(r.max_attempts * r.timeout_ms + backoffDelaysMs(r), r.max_total_ms + r.timeout_ms);
}

/** The delays withRetry sleeps between attempts, at most (full jitter sleeps a random part of each). */
function backoffDelaysMs(r: RetrySettings): number {
  let delays = 0;
  for (let attempt = 1; attempt < r.max_attempts; attempt++)
    delays += Math.min(r.max_delay_ms, r.base_delay_ms * 2 ** (attempt - 1));
  return delays;
}

function unfitModelCallMessage(r: RetrySettings, worst: number): string {
  const budget = MODEL_CALL_BUDGET_MS;
  // the largest timeout_ms that fits with the other settings as they are
  const fits = Math.floor(Math.max((budget - backoffDelaysMs(r)) / r.max_attempts, budget - r.max_total_ms));
  return (
    `${r.timeout_ms} ms per model call, tried up to max_attempts ${r.max_attempts} times within max_total_ms ` +
    `${r.max_total_ms}, can take ${worst} ms: more than the ${budget} ms a model turn has (its Lambda stops at ` +
    `${LLM_TURN_TIMEOUT_SECONDS} s, less ${(DATABASE_RETRY_BUDGET_MS + DATABASE_WORK_MARGIN_MS) / 1000} s for ` +
    `the database); ` +
    (fits >= 10 ? `lower timeout_ms to at most ${fits}, or ` : '') +
    'lower max_attempts or max_total_ms'
  );
}

/**
 * Config layers, later wins: nested sections (ollama, bedrock, openai, retry, prices, rate_limits, stuck_thresholds,
 * context_windows) merge key by key.
 */
export function mergeConfig(...layers: Array<ExperimentConfigInput | undefined>): ExperimentConfigInput {
  const out: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer ?? {})) {
      const prev = out[k];
      out[k] =
        v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' ? { ...prev, ...v } : v;
    }
  }
  return out;
}

/** History events a turn costs: 2 Lambda Tasks x 5, 2 Choices x 2, a Pass x 2 = 16, plus room for retries. */
export const EVENTS_PER_TURN = TURN_EVENTS + 4;

export function turnsPerExecution(config: { history_event_budget: number }): number {
  return Math.max(1, Math.floor(config.history_event_budget / EVENTS_PER_TURN));
}

/** An Ollama host as OLLAMA_HOST and --ollama-host accept it ("host:port" or a URL), as a URL. */
export function ollamaHostUrl(host: string): string {
  return host.includes('://') ? host : `http://${host}`;
}

/**
 * The Ollama host an experiment reaches, as StartExperiment settles it: what was sent, else the parameters, else
 * $OLLAMA_HOST, else the default; as a URL.
 */
export function effectiveOllamaHost(
  sent: ExperimentConfigInput | undefined,
  parameters: ExperimentConfigInput | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const host = sent?.ollama?.host ?? parameters?.ollama?.host ?? envString('OLLAMA_HOST', env);
  return ollamaHostUrl(host ?? DEFAULT_CONFIG.ollama.host);
}

/** A URL whose host is this machine: localhost, 127.0.0.0/8, ::1 or 0.0.0.0. */
export function isLoopbackHost(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || host === '0.0.0.0' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The OpenAI-compatible base URL an experiment reaches, as StartExperiment settles it: what was sent, else the
 * parameters, else $OPENAI_BASE_URL (the openai client's own variable), else the default.
 */
export function effectiveOpenAIBaseUrl(
  sent: ExperimentConfigInput | undefined,
  parameters: ExperimentConfigInput | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return (
    sent?.openai?.base_url ??
    parameters?.openai?.base_url ??
    envString('OPENAI_BASE_URL', env) ??
    DEFAULT_CONFIG.openai.base_url
  );
}

/** What a zod schema holds, as far as settingPaths reads it (zod 4's def: its type and the schema inside). */
interface SchemaDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
}

/**
 * Every setting of the config as a dotted path to a leaf (ollama.num_ctx), from the schema itself, so the optional
 * ones that have no default (top_p, ollama.think, openai.reasoning_effort...) are settings too. Tables keyed by
 * model (a record: prices, rate_limits, context_windows) are left out: their keys are not known here.
 */
export function settingPaths(schema: z.ZodType = configFields, prefix = ''): string[] {
  const def = (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
  if (def.innerType) return settingPaths(def.innerType, prefix);
  if (def.type === 'pipe' && def.in) return settingPaths(def.in, prefix);
  if (def.type === 'record') return [];
  if (def.type === 'object' && def.shape)
    return Object.entries(def.shape).flatMap(([key, inner]) => settingPaths(inner, prefix ? `${prefix}.${key}` : key));
  return prefix ? [prefix] : [];
}
