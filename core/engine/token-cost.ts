// The cost of a turn's tokens at the per-model price table (config.prices), each kind at its own price.
import type { ExperimentConfig } from '../config/experiment-config.ts';
import { lookupModel, profileRate } from '../config/model-table.ts';

type Price = ExperimentConfig['prices'][string];

export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheWriteInputTokens: number;
}

/**
 * USD; a cache price left out of the table charges those tokens as ordinary input (experiment-config.ts). A model
 * with a long-prompt tier bills a request whose prompt (input, cache reads and writes) is over its threshold wholly
 * at that tier's prices, as its vendor does: the counts are one request's.
 */
export function tokenCostUsd(price: Price, t: TokenCounts): number {
  const prompt = t.inputTokens + t.cacheReadInputTokens + t.cacheWriteInputTokens;
  const p = price.long_prompt && prompt > price.long_prompt.above_prompt_tokens ? price.long_prompt : price;
  return (
    (t.inputTokens * p.input_per_mtok +
      t.outputTokens * p.output_per_mtok +
      t.cacheReadInputTokens * (p.cache_read_per_mtok ?? p.input_per_mtok) +
      t.cacheWriteInputTokens * (p.cache_write_per_mtok ?? p.input_per_mtok)) /
    1e6
  );
}

/** Counts as a provider reports them: null where it reported none. */
type ReportedCounts = { [K in keyof TokenCounts]: number | null };

/** What reported counts cost (a count not reported costs nothing); null without a price or an input count. */
export function reportedCostUsd(price: Price | undefined, t: ReportedCounts): number | null {
  if (!price || t.inputTokens === null) return null;
  return tokenCostUsd(price, {
    inputTokens: t.inputTokens,
    outputTokens: t.outputTokens ?? 0,
    cacheReadInputTokens: t.cacheReadInputTokens ?? 0,
    cacheWriteInputTokens: t.cacheWriteInputTokens ?? 0,
  });
}

/**
 * A model's price: its own entry, else (an inference profile) its model's at the profile kind's rate (a geographic
 * profile of a model with a global one costs more: model-table.ts profileRate); undefined when unknown.
 */
export function priceOf(prices: ExperimentConfig['prices'], model: string): Price | undefined {
  const own = prices[model];
  if (own) return own;
  const base = lookupModel(prices, model);
  const { factor } = profileRate(model);
  if (!base || factor === 1) return base;
  const scaled = <P extends Omit<Price, 'long_prompt'>>(p: P): P => ({
    ...p,
    input_per_mtok: p.input_per_mtok * factor,
    output_per_mtok: p.output_per_mtok * factor,
    ...(p.cache_read_per_mtok !== undefined ? { cache_read_per_mtok: p.cache_read_per_mtok * factor } : {}),
    ...(p.cache_write_per_mtok !== undefined ? { cache_write_per_mtok: p.cache_write_per_mtok * factor } : {}),
  });
  return { ...scaled(base), ...(base.long_prompt ? { long_prompt: scaled(base.long_prompt) } : {}) };
}

/** A budget (a run's config.max_cost_usd and max_tokens, a sweep's budget:), in the keys both give it. */
export interface Budget {
  max_cost_usd?: number;
  max_tokens?: number;
}

/** Which budget the spend reached (the cost first), or null: the one rule for a run's budgets and a sweep's. */
export function budgetReached(
  budget: Budget,
  spent: { tokens: number; costUsd: number },
): 'max_cost_usd' | 'max_tokens' | null {
  if (budget.max_cost_usd !== undefined && spent.costUsd >= budget.max_cost_usd) return 'max_cost_usd';
  if (budget.max_tokens !== undefined && spent.tokens >= budget.max_tokens) return 'max_tokens';
  return null;
}

/**
 * A budget several runs draw on at once (a sweep's, on this machine): what they spent, counted reply by reply as
 * each turn gets its replies, not when the turns commit, so that a run in flight sees what the others spent before
 * its next model call. Each run in flight may then start at most one call past it: the sweep overshoots its budget
 * by at most one model call per run in flight.
 */
export class SharedBudget {
  private readonly total: { tokens: number; costUsd: number };
  constructor(
    readonly budget: Budget,
    spent: { tokens: number; costUsd: number },
  ) {
    this.total = { ...spent };
  }

  /** Adds what a reply spent. */
  add(spent: { tokens: number; costUsd: number }): void {
    this.total.tokens += spent.tokens;
    this.total.costUsd += spent.costUsd;
  }

  /** Which of its budgets the runs' spend reached, or null (budgetReached). */
  reached(): 'max_cost_usd' | 'max_tokens' | null {
    return budgetReached(this.budget, this.total);
  }

  get spent(): { tokens: number; costUsd: number } {
    return { ...this.total };
  }
}

/** A turn's tokens as a budget counts them: input, cache reads and writes, and output, as reported. */
export function spentTokens(t: {
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadInputTokens: number | null;
  cacheWriteInputTokens: number | null;
}): number {
  return (t.inputTokens ?? 0) + (t.outputTokens ?? 0) + (t.cacheReadInputTokens ?? 0) + (t.cacheWriteInputTokens ?? 0);
}
