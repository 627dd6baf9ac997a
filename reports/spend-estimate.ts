// `ariadne sweep FILE --estimate`: what the runs still to run may spend, before anything starts, per agent and
// observation format, from the newest ended runs of the same model and format here (per-action tokens and cost,
// re-priced at the sweep's prices), else from the first prompt's size. A range, not an interval: low walks each
// maze's optimum at the 10th-percentile rate, high uses all of max_moves at the 90th, typical is the median rate
// over the median run's actions per optimal move.
import type { LoadedSweep } from '../core/sweeps/sweep-spec.ts';
import type { Sql } from '../core/store/sql.ts';
import { generateMaze } from '../core/maze/generators/index.ts';
import { optimalMoves, resolveConfig, systemPrompt } from '../core/engine/experiment.ts';
import { priceOf, tokenCostUsd } from '../core/engine/token-cost.ts';
import { offeredTools } from '../core/engine/tools.ts';
import { estimatePromptTokens } from '../core/providers/llm/token-estimate.ts';
import { isLlmAgent } from '../core/providers/llm-agents.ts';
import type { ExperimentConfig } from '../core/config/experiment-config.ts';
import { pastRunSpend, type PastRunSpend } from '../results/spend-history.ts';
import { latestSweepAttempts, sweepSpend } from '../results/run-state.ts';
import { registeredCells } from '../core/store/sweep-rows.ts';
import { shownAt } from './observation-sample.ts';

/** Fewer past runs than this and the rates are not read from them. */
const MIN_PAST_RUNS = 3;
/** Output tokens of a reply that is one tool call, the least a model answers with. */
const TOOL_CALL_TOKENS = 20;

interface Range {
  low: number;
  typical: number | null;
  high: number;
}

interface EstimateRow {
  label: string;
  observation: string;
  /** Runs of this agent and format still to run (a finished run is not run again). */
  runs: number;
  /** "N past runs", "first prompt only" or "no model calls". */
  basis: string;
  tokens: Range;
  /** USD; null when the model has no price in the config. */
  costUsd: Range | null;
}

export interface SpendEstimate {
  sweep: string;
  rows: EstimateRow[];
  runsToStart: number;
  total: { tokens: Range; costUsd: Range | null };
  /** What the sweep's runs spent already (every attempt). */
  spent: { tokens: number; costUsd: number };
  budget: LoadedSweep['spec']['budget'] | null;
}

/** The q-quantile of sorted values, linearly interpolated (Hyndman and Fan's type 7, R's default). */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (at - lo);
}

const sortedOf = (values: number[]) => [...values].sort((a, b) => a - b);
const addRange = (a: Range, b: Range): Range => ({
  low: a.low + b.low,
  typical: a.typical === null || b.typical === null ? null : a.typical + b.typical,
  high: a.high + b.high,
});
const ZERO: Range = { low: 0, typical: 0, high: 0 };

type Price = NonNullable<ReturnType<typeof priceOf>>;

/** One run's range from past runs of its model: per-action rates over its maze's optimum and its max_moves. */
function fromPast(past: PastRunSpend[], price: Price | undefined, optimal: number, maxMoves: number) {
  const tokens = sortedOf(
    past.map(
      (r) =>
        (r.input_tokens + r.output_tokens + r.cache_read_input_tokens + r.cache_write_input_tokens) / r.actions_taken,
    ),
  );
  const ratio = sortedOf(past.filter((r) => r.optimal_moves > 0).map((r) => r.actions_taken / r.optimal_moves));
  const typicalActions = Math.min(maxMoves, (ratio.length > 0 ? quantile(ratio, 0.5) : 1) * optimal);
  const range = (perAction: number[]): Range => ({
    low: quantile(perAction, 0.1) * optimal,
    typical: quantile(perAction, 0.5) * typicalActions,
    high: quantile(perAction, 0.9) * maxMoves,
  });
  const cost =
    price &&
    sortedOf(
      past.map(
        (r) =>
          tokenCostUsd(price, {
            inputTokens: r.input_tokens,
            outputTokens: r.output_tokens,
            cacheReadInputTokens: r.cache_read_input_tokens,
            cacheWriteInputTokens: r.cache_write_input_tokens,
          }) / r.actions_taken,
      ),
    );
  return { tokens: range(tokens), costUsd: cost ? range(cost) : null };
}

/** One run's range from its first prompt's size: one call per full turn at least, one per action at most. */
function fromPrompt(
  maze: ReturnType<typeof generateMaze>,
  config: ExperimentConfig,
  prompts: Record<string, string>,
  price: Price | undefined,
  optimal: number,
) {
  const shown = shownAt(maze, config);
  const images = shown.pictures.observation.map((png) => ({ png, sha256: '' }));
  const prompt = estimatePromptTokens(
    systemPrompt(maze, config, prompts),
    [{ role: 'user', text: shown.observationText, ...(images.length > 0 ? { images } : {}) }],
    offeredTools(config),
  );
  const fewest = optimal / config.max_actions_per_turn;
  const most = config.max_moves;
  const cap = config.max_output_tokens;
  const usd = (calls: number, output: number) =>
    price
      ? tokenCostUsd(price, {
          inputTokens: calls * prompt,
          outputTokens: calls * output,
          cacheReadInputTokens: 0,
          cacheWriteInputTokens: 0,
        })
      : 0;
  return {
    tokens: { low: fewest * (prompt + TOOL_CALL_TOKENS), typical: null, high: most * (prompt + cap) },
    costUsd: price ? { low: usd(fewest, TOOL_CALL_TOKENS), typical: null, high: usd(most, cap) } : null,
  };
}

/** The estimate for the runs of the sweep not finished yet. `prompts`: the parameters' prompt versions. */
export async function estimateSweepSpend(
  db: Sql,
  s: LoadedSweep,
  prompts: Record<string, string> = {},
): Promise<SpendEstimate> {
  const finished = new Set(
    (await latestSweepAttempts(db, s.spec.sweep))
      .filter((r) => r.status !== 'running' && r.status !== 'failed')
      .map((r) => `${r.sweep_cell}/${r.sweep_repeat}`),
  );
  // a grown sweep's cells are at the indices the database gave them (sweep-growth.ts), not at the file's: each cell
  // is matched to its own runs by its key; a cell not registered yet has none
  const registered = await registeredCells(db, s.spec.sweep);
  const history = new Map<string, Promise<PastRunSpend[]>>();
  const rows = new Map<string, EstimateRow>();
  let runsToStart = 0;
  for (const cell of s.cells) {
    let runs = 0;
    const index = registered.get(cell.key);
    for (let repeat = 1; repeat <= s.spec.repeats; repeat++) if (!finished.has(`${index}/${repeat}`)) runs++;
    if (runs === 0) continue;
    runsToStart += runs;
    const config = resolveConfig(cell.config);
    const key = `${cell.label}\u0000${config.observation}`;
    const row = rows.get(key) ?? {
      label: cell.label,
      observation: config.observation,
      runs: 0,
      basis: 'no model calls',
      tokens: ZERO,
      costUsd: isLlmAgent(cell.agent) && (!cell.model || !priceOf(config.prices, cell.model)) ? null : ZERO,
    };
    rows.set(key, row);
    row.runs += runs;
    if (!isLlmAgent(cell.agent) || !cell.model) continue;
    const maze = generateMaze({ generator: cell.generator, width: cell.size, height: cell.size, seed: cell.seed });
    const optimal = optimalMoves(maze, config);
    const pastKey = `${cell.agent}\u0000${cell.model}\u0000${config.observation}`;
    if (!history.has(pastKey)) history.set(pastKey, pastRunSpend(db, cell.agent, cell.model, config.observation));
    const past = await history.get(pastKey)!;
    const price = priceOf(config.prices, cell.model);
    const one =
      past.length >= MIN_PAST_RUNS
        ? fromPast(past, price, optimal, config.max_moves)
        : fromPrompt(maze, config, prompts, price, optimal);
    row.basis = past.length >= MIN_PAST_RUNS ? `${past.length} past runs` : 'first prompt only';
    const times = (r: Range): Range => ({
      low: r.low * runs,
      typical: r.typical === null ? null : r.typical * runs,
      high: r.high * runs,
    });
    row.tokens = addRange(row.tokens, times(one.tokens));
    if (row.costUsd && one.costUsd) row.costUsd = addRange(row.costUsd, times(one.costUsd));
  }
  const list = [...rows.values()];
  const priced = list.every((r) => r.costUsd !== null);
  return {
    sweep: s.spec.sweep,
    rows: list,
    runsToStart,
    total: {
      tokens: list.reduce((t, r) => addRange(t, r.tokens), ZERO),
      costUsd: priced ? list.reduce((t, r) => addRange(t, r.costUsd!), ZERO) : null,
    },
    spent: await sweepSpend(db, s.spec.sweep),
    budget: s.spec.budget ?? null,
  };
}
