// A pilot sweep's runs as `ariadne plan` fits them (reports/pilot-fit.ts): per maze, each label's successes and its
// runs that ended by the rules of the game (errors, wall-clock stops and running runs are in no count).
import type { Sql } from '../core/store/sql.ts';
import { statisticsRunRows } from './statistics-runs.ts';

export interface PilotCounts {
  labels: string[];
  /** Maze (`generator size seed`) -> label -> counts. */
  mazes: Map<string, Map<string, { successes: number; runs: number }>>;
}

export async function pilotCounts(db: Sql, sweepId: string): Promise<PilotCounts> {
  const rows = await statisticsRunRows(db, sweepId, ['label']);
  const labels = new Set<string>();
  const mazes: PilotCounts['mazes'] = new Map();
  for (const r of rows) {
    if (r.outcome_class !== 'success' && r.outcome_class !== 'failure') continue;
    const label = String(r.f0);
    labels.add(label);
    const byLabel = mazes.get(r.maze) ?? new Map<string, { successes: number; runs: number }>();
    const c = byLabel.get(label) ?? { successes: 0, runs: 0 };
    c.runs++;
    if (r.goal_found) c.successes++;
    byLabel.set(label, c);
    mazes.set(r.maze, byLabel);
  }
  return { labels: [...labels].sort(), mazes };
}
