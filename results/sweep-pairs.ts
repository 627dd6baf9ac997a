// The runs a sweep's paired comparisons count (reports/compare.ts): each agent's runs and observations, the pairs
// of two agents on the same maze, settings and repeat (migration 011's sweep_run_pairs, computed from the runs read
// once: pair-runs.ts) with the pairs left out, and one agent's runs to pair by a setting's values. Read in keyset
// pages where they grow with the sweep (the Data API's 1 MiB a response; one statement over pg: sweepPageRows).
import type { Sql } from '../core/store/sql.ts';
import { readPaged, sweepPageRows } from '../core/store/pages.ts';
import { agentPairs, splitSimulated, type AgentPairRow, type PairRun, type UnpairedRuns } from './pair-runs.ts';

/** One agent label's finished runs and observations, with the sweep's repeats; the counts may arrive as text. */
export interface LabelCounts {
  label: string;
  runs: unknown;
  independent: unknown;
  repeats: number;
}

/** Each agent label of the sweep with its successes and failures (runs) and observations, by label. */
export function sweepLabelCounts(db: Sql, sweep: string): Promise<LabelCounts[]> {
  return shared(db, `counts ${sweep}`, async () => {
    const { rows } = await db.query<LabelCounts>(
      `SELECT label, count(*) FILTER (WHERE outcome_class IN ('success', 'failure')) AS runs,
              count(*) FILTER (WHERE independent) AS independent, (SELECT repeats FROM sweeps WHERE id = $1) AS repeats
       FROM sweep_runs WHERE sweep_id = $1 GROUP BY label ORDER BY label`,
      [sweep],
    );
    return rows;
  });
}

/**
 * Reads in flight by database and key: comparisons made at once (a report's every two agents, the viewer's
 * requests) share one read of the sweep's runs, each of which evaluates the whole sweep; a read that has ended is
 * not kept, so none is ever stale.
 */
const inFlight = new WeakMap<Sql, Map<string, Promise<unknown>>>();

function shared<T>(db: Sql, key: string, read: () => Promise<T>): Promise<T> {
  const reads = inFlight.get(db) ?? new Map<string, Promise<unknown>>();
  inFlight.set(db, reads);
  const running = reads.get(key) as Promise<T> | undefined;
  if (running) return running;
  const started = read().finally(() => reads.delete(key));
  reads.set(key, started);
  return started;
}

/**
 * The counted pairs of labels `first` and `second` (first < second), as migration 011's sweep_run_pairs gives them
 * and in its order (by experiment_a, experiment_b), and the run pairs left out because a side ended in error or (else)
 * still runs: both from the sweep's runs read once (pair-runs.ts; one read shared by the comparisons made at once), not
 * from the view, which evaluated its join of the whole sweep again for each page.
 */
export async function agentPairRows(
  db: Sql,
  sweep: string,
  first: string,
  second: string,
): Promise<{ rows: AgentPairRow[]; left: UnpairedRuns }> {
  return agentPairs(await sweepPairRuns(db, sweep), first, second);
}

/**
 * Every run of the sweep as pairing reads it (a label with simulated and real runs split: splitSimulated), read once
 * for the comparisons made at once: all pairs of agents (reports/compare-all.ts) pair from this one read.
 */
export async function sweepPairRuns(db: Sql, sweep: string): Promise<PairRun[]> {
  const runs = await shared(db, `runs ${sweep}`, () => pairRuns(db, sweep));
  return splitSimulated(runs, (r) => r.label);
}

/** Every run of the sweep, with its place among its label's runs by experiment id (the view's order). */
function pairRuns(db: Sql, sweep: string): Promise<PairRun[]> {
  return readPaged<PairRun>(
    async (last, limit) =>
      (
        await db.query<PairRun>(
          `SELECT * FROM (
             SELECT experiment_id, label, cell_index, repeat,
                    maze_generator || ' ' || maze_size || ' ' || maze_seed AS maze, settings::text AS settings_key,
                    factor_settings, coalesce(duplicate_of, experiment_id) AS observation, outcome_class, goal_found,
                    efficiency::float8 AS efficiency, identical_repeat, deterministic, llm_calls > 0 AS answered,
                    (SELECT e.simulated FROM experiments e WHERE e.id = experiment_id) AS simulated,
                    (row_number() OVER (PARTITION BY label ORDER BY experiment_id))::int AS id_order
             FROM sweep_runs WHERE sweep_id = $1
           ) r
           WHERE (cell_index, repeat) > ($2::int, $3::int) ORDER BY cell_index, repeat LIMIT $4`,
          [sweep, last?.cell_index ?? -1, last?.repeat ?? -1, limit],
        )
      ).rows,
    sweepPageRows(db),
  );
}

/** One run of an agent, as a comparison of two values of one setting pairs it. */
export interface LabelRun {
  experiment_id: string;
  duplicate_of: string | null;
  provider: string;
  maze: string;
  repeat: number;
  /** Its cell's settings, as the sweep file gave them. */
  settings: Record<string, unknown>;
  /** Those of its cell's settings that reach its agent. */
  factor_settings: Record<string, unknown>;
  outcome_class: string;
  goal_found: boolean;
  efficiency: number | null;
  identical_repeat: boolean;
  deterministic: boolean;
  cell_index: number;
  /** A model answered it, and whether a bundled simulator did (they split a comparison when a label has both). */
  answered?: boolean;
  simulated?: boolean;
}

/** Every run of the agent labelled `label` in the sweep, by cell and repeat. */
export function labelRuns(db: Sql, sweep: string, label: string): Promise<LabelRun[]> {
  // a report compares each varied setting's values pairwise, every comparison reading the agent's runs at once
  return shared(db, `label ${sweep} ${label}`, async () =>
    splitSimulated(await labelRunRows(db, sweep, label), () => label),
  );
}

function labelRunRows(db: Sql, sweep: string, label: string): Promise<LabelRun[]> {
  return readPaged<LabelRun>(
    async (last, limit) =>
      (
        await db.query<LabelRun>(
          `SELECT experiment_id, duplicate_of, provider, maze_generator || ' ' || maze_size || ' ' || maze_seed AS maze,
                  repeat, settings, factor_settings, outcome_class, goal_found, efficiency::float8 AS efficiency,
                  identical_repeat, deterministic, cell_index, llm_calls > 0 AS answered,
                  (SELECT e.simulated FROM experiments e WHERE e.id = experiment_id) AS simulated
           FROM sweep_runs WHERE sweep_id = $1 AND label = $2 AND (cell_index, repeat) > ($3::int, $4::int)
           ORDER BY cell_index, repeat LIMIT $5`,
          [sweep, label, last?.cell_index ?? -1, last?.repeat ?? -1, limit],
        )
      ).rows,
    sweepPageRows(db),
  );
}

/** The sweep's agent labels, in order. */
export async function sweepLabels(db: Sql, sweep: string): Promise<string[]> {
  const { rows } = await db.query<{ label: string }>(
    'SELECT DISTINCT label FROM sweep_runs WHERE sweep_id = $1 ORDER BY 1',
    [sweep],
  );
  return rows.map((r) => r.label);
}
