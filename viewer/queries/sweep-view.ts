// The sweeps pages' data: the read model's sweep progress and factor grid (results/sweep-progress.ts), each row with
// its cost in words. The cells' intervals come with the statistics (reports/sweep-statistics.ts, cells): counted by
// the rules a statistics row is counted by, so the grid and the table below never disagree.
import type { Sql } from '../../core/store/sql.ts';
import { costText } from '../../reports/cost-text.ts';
import { sweepCellRows, sweepProgress, sweepProgressList, type SweepOutcomes } from '../../results/sweep-progress.ts';

/** The cost in words: "$0.0123", "unknown", or "partly unknown: $0.0100 for the 3 runs priced". */
const withCostText = <T extends Pick<SweepOutcomes, 'cost_usd' | 'priced' | 'unpriced'>>(
  r: T,
): T & { cost_text: string } => ({
  ...r,
  cost_text: costText({ usd: r.cost_usd, priced: r.priced, unpriced: r.unpriced }),
});

export async function listSweeps(db: Sql) {
  return (await sweepProgressList(db)).map(withCostText);
}

/** One sweep's row with its totals; null when no sweep has that name. */
export async function sweepSummary(db: Sql, sweepId: string) {
  const row = await sweepProgress(db, sweepId);
  return row ? withCostText(row) : null;
}

export async function sweepCells(db: Sql, sweepId: string) {
  return (await sweepCellRows(db, sweepId)).map(withCostText);
}
