// A total over runs some of which have no price (a model missing from the price table): never $0 and never a
// blank. Each run's cost is known when its model was priced or it called no model (migration 011's cost_known);
// a total over runs of which some are unknown says how much is known and for how many runs.
import { formatCost } from './stat-format.ts';

export interface CostTotal {
  /** The summed cost of the runs whose cost is known. */
  usd: number;
  /** Runs whose cost is known, and runs with a model call that has no price. */
  priced: number;
  unpriced: number;
}

/** "$0.1234", "unknown" (no run priced) or "partly unknown: $0.1234 for the 3 runs priced". */
export function costText(t: CostTotal): string {
  if (t.unpriced === 0) return formatCost(t.usd);
  if (t.priced === 0) return formatCost(null);
  return `partly unknown: ${formatCost(t.usd)} for the ${t.priced} run${t.priced === 1 ? '' : 's'} priced`;
}
