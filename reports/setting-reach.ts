// Which config settings reach which kind of agent: the one list (a baseline reads no prompt, format, memory or
// server setting; a person is shown a model's prompt, format, memory and tools, but is sampled by no server; an Ollama
// agent reads no bedrock.* or openai.*, and so on). A setting that does not reach an agent is not one of its factors:
// its statistics rows merge and the setting shows as not applicable. Migration 011's setting_reaches(provider,
// setting) is the same list in SQL (034's for 'human'); test/statistics-factors.test.ts checks they agree.

/** An agent's kind as experiments.provider records it ('human': a person, migration 034). */
export type AgentKind = 'baseline' | 'ollama' | 'bedrock' | 'openai' | 'human';

const EVERY: readonly AgentKind[] = ['baseline', 'ollama', 'bedrock', 'openai', 'human'];
const MODELS: readonly AgentKind[] = ['ollama', 'bedrock', 'openai'];
/** What a model is shown, remembers and is offered: a person playing is shown the same (providers/human-agent.ts). */
const SHOWN: readonly AgentKind[] = [...MODELS, 'human'];

/**
 * By top-level config key (a nested setting, ollama.num_ctx, goes with its section). A key not listed reaches
 * every agent: a new setting is at worst split by, never merged by mistake.
 */
const REACHES: Record<string, readonly AgentKind[]> = {
  // the game's rules and limits: every agent plays under them
  max_moves: EVERY,
  max_duration_minutes: EVERY,
  // what a model run may spend: a baseline spends nothing
  max_cost_usd: MODELS,
  max_tokens: MODELS,
  max_actions_per_turn: EVERY,
  max_turns: EVERY,
  vision_range: EVERY,
  see_through: EVERY,
  success_rule: EVERY,
  stuck_policy: EVERY,
  stuck_thresholds: EVERY,
  // what a model is shown, remembers and is offered, how it is sampled and parsed, and how its calls are retried
  prompt_version: SHOWN,
  temperature: MODELS,
  top_p: MODELS,
  max_output_tokens: MODELS,
  model_seed: MODELS,
  strict_tool_calls: MODELS,
  // how answers are had, not what an agent is shown: a sweep that varies it keeps its runs apart all the same
  cache: EVERY,
  cache_max_age_hours: EVERY,
  observation: SHOWN,
  memory: SHOWN,
  memory_history_actions: SHOWN,
  memory_conversation_tokens: SHOWN,
  recall_tool: SHOWN,
  max_recall_actions: SHOWN,
  recall_interval: SHOWN,
  context_policy: MODELS,
  retry: MODELS,
  rate_limits: MODELS,
  ollama: ['ollama'],
  bedrock: ['bedrock'],
  openai: ['openai'],
  context_windows: ['bedrock', 'openai'],
  // a question put to the model apart from its turns: a baseline is never asked one (engine/belief-probe.ts)
  belief_probe_every: MODELS,
  // a price table and the execution's history budget change what a run costs or how it is hopped, not the run; how
  // long a run waits out its provider's outage changes what it survives, not what its agent sees or does
  prices: [],
  history_event_budget: [],
  provider_outage_wait_minutes: [],
};

/** Whether a setting (a dotted path such as ollama.num_ctx, or a top-level key) reaches an agent of this kind. */
export function settingReaches(setting: string, kind: string): boolean {
  const kinds = REACHES[setting.split('.')[0]];
  return kinds === undefined || kinds.includes(kind as AgentKind);
}

/** The settings the list names (the test checks every key of the config is one of them). */
export const LISTED_SETTINGS = Object.keys(REACHES);
