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
import { defaultContextWindows } from './model-table.ts';
import {
  bedrockSchema,
  ollamaSchema,
  openaiSchema,
  pricesSchema,
  rateLimitsSchema,
  retrySchema,
} from './provider-settings.ts';
import { setting } from './setting-meta.ts';
import { envString } from './environment.ts';

export const SUCCESS_RULES = ['seen', 'reached'] as const;

const threshold = <T extends z.ZodType>(schema: T, description: string) => setting(schema, { description });

const stuckThresholdsSchema = setting(
  z
    .object({
      repeated_failed_move: threshold(
        z.number().int().min(2).max(1_000).default(3),
        'the same failed move, from the same cell, this many times in a row',
      ),
      oscillation_window: threshold(
        z.number().int().min(3).max(100).default(4),
        'positions A-B-A-B... over this many moves',
      ),
      no_new_tile_actions: threshold(
        z.number().int().min(2).max(100_000).default(20),
        'executed actions without progress (a new tile, or a new best distance to unexplored ground)',
      ),
      recall_spam: threshold(
        z.number().int().min(2).max(1_000).default(3),
        'recall_all calls within recall_window actions',
      ),
      recall_window: threshold(z.number().int().min(2).max(10_000).default(10), 'the actions recall_spam counts over'),
      idle_turns: threshold(z.number().int().min(1).max(1_000).default(3), 'turns in a row without an executed action'),
      cell_revisits: threshold(
        z.number().int().min(2).max(100_000).default(10),
        'entries into one cell without progress',
      ),
    })
    .strict(),
  { description: 'when the stuck detectors (engine/agent-monitor.ts) raise a signal' },
);

/** Context windows in tokens from the model table; an inference profile uses its model's entry. */
const DEFAULT_CONTEXT_WINDOWS: Record<string, number> = defaultContextWindows();

const MEMORY_MODES = ['fresh', 'history', 'conversation'] as const;

/** What the context guard does with a prompt that would not fit the model's window: drop oldest, or refuse. */
const CONTEXT_POLICIES = ['trim', 'refuse'] as const;

export const STUCK_POLICIES = ['observe', 'advise', 'halt'] as const;

/** How the model is shown the maze each turn (providers/llm/observations/). */
export const OBSERVATION_FORMATS = [
  'rays',
  'local_grid',
  'full_map',
  'coordinates',
  'json',
  'image',
  'adjacency',
] as const;
export type ObservationFormat = (typeof OBSERVATION_FORMATS)[number];

/** The longest an experiment may ask to run (max_duration_minutes): a week. Sweeps wait this long for one, and more. */
export const MAX_DURATION_MINUTES = 7 * 24 * 60;

/** The fields, each checked alone; the whole config also checks how they bound each other (below). */
const configFields = z
  .object({
    max_moves: setting(z.number().int().min(1).max(1_000_000).optional(), {
      description: 'stop after this many actions',
      why: 'the budget of moves: a run that reaches it ends timeout',
      flag: '--max-moves',
    }),
    max_duration_minutes: setting(z.number().min(0.01).max(MAX_DURATION_MINUTES).default(120), {
      description: 'stop after this long (time waiting out a provider outage not counted)',
      flag: '--max-duration-minutes',
    }),
    max_cost_usd: setting(z.number().positive().max(1_000_000).optional(), {
      description:
        'what one model run may spend, at prices: checked before each model reply, so a run passes it by one reply ' +
        'at most, then ends timeout with stop_reason max_cost_usd; a model without a price is refused a cost budget',
      why: "what each run spent is experiments.spent_cost_usd; a sweep's own budget is the budget key of its file",
      defaultText: 'none',
    }),
    max_tokens: setting(z.number().int().min(1).max(1e12).optional(), {
      description:
        'the tokens one model run may use (input, cache reads and writes and output, reasoning included, as ' +
        'reported); then it ends timeout with stop_reason max_tokens',
      defaultText: 'none',
    }),
    max_actions_per_turn: setting(z.number().int().min(1).max(64).default(8), {
      description: 'tool actions one model turn may take',
      flag: '--max-actions-per-turn',
    }),
    vision_range: setting(
      z
        .number()
        .int()
        .min(1, 'must be at least 1: with 0 the agent sees nothing, not even the tile next to it')
        .max(50)
        .default(3),
      { description: 'how far the agent sees', why: 'how much the agent sees per step', flag: '--vision-range' },
    ),
    see_through: setting(z.boolean().default(false), {
      description: 'see every tile within vision range, walls do not block',
      flag: '--see-through',
    }),
    max_recall_actions: setting(z.number().int().min(1).max(100_000).default(50), {
      description: 'how many recent actions recall_all covers',
      flag: '--max-recall-actions',
    }),
    recall_interval: setting(z.number().int().min(0).max(100_000).default(10), {
      description: 'actions between two recall_all calls',
      flag: '--recall-interval',
    }),
    success_rule: setting(z.enum(SUCCESS_RULES).default('seen'), {
      description: 'seen: the goal is in view; reached: the agent stands on it',
      why: 'the classic rule (the goal in sight) or the stricter one',
      flag: '--success-rule',
      placeholder: 'rule',
    }),
    max_turns: setting(z.number().int().min(1).max(1_000_000).optional(), {
      description:
        'stop after this many turns (stops an agent that replies without acting; max_moves must fit: at most ' +
        'max_turns x max_actions_per_turn)',
      flag: '--max-turns',
      defaultText: 'derived: max_moves / max_actions_per_turn, at least 5000',
    }),
    history_event_budget: setting(z.number().int().min(20).max(24_000).default(20_000), {
      description:
        'history events one execution may use before it continues as new (Standard workflows stop at 25,000)',
    }),
    provider_outage_wait_minutes: setting(z.number().min(0).max(10_080).default(60), {
      description:
        "how long a run waits, in all, for a model provider still down after a turn's retries (15 s, doubling to " +
        '5 min between tries of the same turn) before it ends failed; 0: at once. Not counted in max_duration_minutes',
      why: 'the statistics never split by it (architecture.md, provider outages)',
    }),
    prompt_version: setting(
      z
        .string()
        .regex(/^[a-z0-9_-]{1,40}(\/v\d{1,6})?$/, 'a prompt version such as v1 or maze/v2')
        .default('v2'),
      {
        description: 'system prompt version (v2, v1, or yours under /ariadne/prompts/)',
        why:
          'the instructions as a factor: v2 is composed for the observation format, vision, success rule, memory and ' +
          'tools; v1 is one text for all, as earlier runs had it',
        flag: '--prompt-version',
        placeholder: 'name',
      },
    ),
    ollama: ollamaSchema.default(ollamaSchema.parse({})),
    bedrock: bedrockSchema.default(bedrockSchema.parse({})),
    openai: openaiSchema.default(openaiSchema.parse({})),
    retry: retrySchema.default(retrySchema.parse({})),
    prices: pricesSchema,
    temperature: setting(z.number().min(0).max(1).default(0.2), {
      description: 'sampling temperature sent to every provider',
      why: 'at temperature 0 repeats may be identical',
    }),
    top_p: setting(z.number().min(0).max(1).optional(), {
      description: "nucleus sampling sent to every provider when set; left out, each provider's own default",
      defaultText: 'not sent',
    }),
    max_output_tokens: setting(z.number().int().min(16).max(200_000).default(1024), {
      description: 'the reply cap on every provider (Ollama num_predict, Bedrock maxTokens, max_completion_tokens)',
      why: 'a reply it cuts is flagged truncated',
    }),
    model_seed: setting(z.enum(['per_repeat', 'none']).default('per_repeat'), {
      description: "per_repeat: the run's agent seed goes to APIs that take one (Ollama options.seed, OpenAI seed)",
    }),
    cache: setting(z.enum(['off', 'sweep', 'all']).default('off'), {
      description:
        'sweep: a model request identical to one a run of the same sweep sent (the same key: provider, model, the ' +
        "server's version, parameters, prompt, tools, messages) is answered with that recorded reply; all: any " +
        "run's; within cache_max_age_hours. Such a call costs nothing; a run answered wholly so is not independent",
      why: 're-run a sweep without paying again for requests already answered; off for every measured run',
      flag: '--cache',
      placeholder: 'scope',
    }),
    cache_max_age_hours: setting(z.number().int().min(1).max(8_760).default(168), {
      description: 'how old a recorded reply may be and still answer a request under cache (hours)',
      why: 'a served model can change under the same name: an old reply answers for an old server',
    }),
    strict_tool_calls: setting(z.boolean().default(false), {
      description: 'true: a tool call written as JSON in the reply text is logged as invalid_arguments, not executed',
      why: 'execute tool calls written in reply text (lenient) or count them as invalid',
    }),
    rate_limits: rateLimitsSchema.default({}),
    stuck_policy: setting(z.enum(STUCK_POLICIES).default('observe'), {
      description:
        'observe: record stuck signals only; advise: tell the agent in its next prompt; halt: end the run as stuck',
      why: 'watch loops only (measuring must not change the subject), tell the model, or stop the run',
      flag: '--stuck-policy',
      placeholder: 'policy',
    }),
    stuck_thresholds: stuckThresholdsSchema.default(stuckThresholdsSchema.parse({})),
    observation: setting(z.enum(OBSERVATION_FORMATS).default('rays'), {
      description:
        'what the model is shown each turn (image: the square in sight as a picture, for models that see; ' +
        'full_map and adjacency: the whole maze, as a picture or as the links between open tiles; ' +
        'docs/observation-formats.md)',
      why: "the same model's success moves by tens of points between encodings of one maze",
      flag: '--observation',
      placeholder: 'format',
    }),
    memory: setting(z.enum(MEMORY_MODES).default('fresh'), {
      description:
        'what an LLM agent remembers between turns: fresh, only the observation; history, the last ' +
        'memory_history_actions actions and outcomes; conversation, the whole conversation (bounded by tokens)',
      why: 'do models that loop on large mazes loop for lack of memory?',
    }),
    memory_history_actions: setting(z.number().int().min(1).max(1_000).default(20), {
      description: 'the actions history shows (250 at most for a new run: the stored memory holds 30 KB)',
      why: 'how much short-term memory prevents loops',
    }),
    memory_conversation_tokens: setting(z.number().int().min(500).max(200_000).default(7_000), {
      description:
        "conversation's budget, trimmed from the oldest; 7,000 at most for a new run (the experiment row's 64 KB on " +
        'the Data API), the wider range parses older snapshots',
      why: 'cost and context against recall of the whole run',
    }),
    recall_tool: setting(z.boolean().optional(), {
      description: 'whether the agent has the recall_all tool',
      why: 'what recall_all adds over plain memory, or none',
      defaultText: 'true (false under full_map and adjacency: config/prompt-combinations.ts)',
    }),
    context_policy: setting(z.enum(CONTEXT_POLICIES).default('trim'), {
      description:
        "what the context guard does with a prompt over the model's window: drop the oldest memory, or refuse",
      why: 'no result rests on a prompt seen in part',
    }),
    context_windows: setting(
      z
        .record(z.string().min(1).max(200), z.number().int().min(256).max(10_000_000))
        .default({})
        .transform((given) => ({ ...DEFAULT_CONTEXT_WINDOWS, ...given })),
      {
        description: "context windows (tokens) of Bedrock and OpenAI models by id, added to the model table's",
        why: "the window the context guard checks a prompt against (Ollama's is ollama.num_ctx)",
        defaultText: 'the model table',
      },
    ),
    belief_probe_every: setting(
      z
        .number({ error: 'must be a whole number of turns: 0 (off) or N, a probe every N turns' })
        .int('must be a whole number of turns: 0 (off) or N, a probe every N turns')
        .min(0, 'must be 0 (off) or a number of turns N: a probe every N turns')
        .max(100_000, 'at most 100000 turns between probes')
        .default(0),
      {
        description:
          'every N turns, after its turn, a model agent is asked apart to write the maze as it believes it is, and ' +
          'where it is; the answer is scored against the tiles it was shown (belief_probes). 0: never. It is no ' +
          "part of the agent's conversation and takes no action; its tokens count in the run's spend and budgets",
        why: 'what does the model believe the maze looks like: measured, not assumed',
        flag: '--belief-probe-every',
        placeholder: 'turns',
      },
    ),
  })
  .strict();

/** The fields of the config by key, as declared (core/config/settings-table.ts reads them as rows). */
export const configSchemaFields: Record<string, z.ZodType> = configFields.shape;

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
