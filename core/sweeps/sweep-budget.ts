// A sweep's cost budget counts its runs' cost at their prices: an agent whose model has no price would cost 0 and
// the budget could never be reached, so such a sweep is refused before it starts, as a run's own max_cost_usd is
// (engine/experiment.ts).
import { InvalidInputError } from '../errors.ts';
import { mergeConfig, type ExperimentConfigInput } from '../config/experiment-config.ts';
import { costUnknown, resolveConfig } from '../engine/experiment.ts';
import { isLlmAgent } from '../providers/llm-agents.ts';
import type { LoadedSweep } from './sweep-spec.ts';

/** Refuses a sweep whose budget.max_cost_usd covers a model with no price (`defaults`: the deployed config). */
export function refuseUnpricedSweepBudget(s: LoadedSweep, defaults?: ExperimentConfigInput): void {
  const limit = s.spec.budget?.max_cost_usd;
  if (limit === undefined) return;
  const seen = new Set<string>();
  for (const cell of s.cells) {
    // the config differs by agent and setting, not by maze
    const key = `${cell.label} ${JSON.stringify(cell.settings)}`;
    if (!isLlmAgent(cell.agent) || !cell.model || seen.has(key)) continue;
    seen.add(key);
    if (!costUnknown(cell.agent, cell.model, resolveConfig(mergeConfig(defaults, cell.config)).prices)) continue;
    throw new InvalidInputError(
      'budget.max_cost_usd',
      limit,
      `budget.max_cost_usd ${limit}: sweep agent "${cell.label}" (model "${cell.model}") has no price in ` +
        `config.prices, so its runs' cost is unknown and the budget could never be reached; set ` +
        `prices["${cell.model}"] in the sweep's config (USD per million tokens: input_per_mtok, output_per_mtok) ` +
        'or use budget.max_tokens',
    );
  }
}
