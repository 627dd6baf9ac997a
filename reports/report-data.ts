// What the sweep report (and the viewer's sweep page) shows, from the one definition of a sweep's statistics
// (sweep-statistics.ts over migration 011's sweep_runs): per label, maze and every setting that reaches the agent,
// the rates with maze-level intervals, SPL, efficiency, tokens, cost and pass^k, errors and wall-clock stops apart;
// paired comparisons of agents and settings (compare.ts, as `ariadne compare`); the failed and the errored runs.
// The sweep and its runs are read by the read model (results/sweep-runs.ts).
import { compareAllAgents, type AllPairsComparison } from './compare-all.ts';
import { sequentialText } from './sequential-stop.ts';
import { sweepSequentialState } from './sweep-stop-rule.ts';
import type { Sql } from '../core/store/sql.ts';
import { sweepRecord, sweepRunRows, type SweepRunRow } from '../results/sweep-runs.ts';
import { InvalidInputError } from '../core/errors.ts';
import type { CostTotal } from './cost-text.ts';
import { sweepStatistics, type CellStatistics, type GroupStatistics, type PassKRow } from './sweep-statistics.ts';
import { paperTable, type PaperTable } from './paper-table.ts';
import { sweepPlan, type SweepPlan } from '../results/sweep-plan.ts';
import { planComplete, planLines } from './plan-text.ts';
import { NOT_APPLICABLE, varyingFactors } from './factors.ts';
import { compareAgents, compareSettings, holmAcross, type Comparison } from './compare.ts';
import { sweepLabelCounts } from '../results/sweep-pairs.ts';

/** Where a group sits: its label, maze, and the varied settings that reach its agent (not applicable ones left out). */
interface GroupKey {
  label: string;
  maze_generator: string;
  maze_size: number;
  settings: Record<string, unknown>;
}
export type StatsRow = GroupKey & Omit<GroupStatistics, 'factors'>;

const MAZE = ['label', 'maze_generator', 'maze_size'];

function groupKey(factors: Record<string, unknown>): GroupKey {
  const settings = Object.fromEntries(
    Object.entries(factors).filter(([k, v]) => !MAZE.includes(k) && v !== NOT_APPLICABLE),
  );
  return {
    label: String(factors.label),
    maze_generator: String(factors.maze_generator),
    maze_size: Number(factors.maze_size),
    settings,
  };
}

export interface ReportData {
  sweep: { id: string; cells: number; repeats: number; created_at: string; description: string | null };
  /** The factors the groups are split by: label, maze generator and size, then the varied settings. */
  factors: string[];
  /** The bootstrap's resamples and seed, reported with its intervals. */
  resamples: number;
  seed: number;
  stats: StatsRow[];
  /**
   * With { paper: true } (the report file): the stats table's groups laid out for a paper (paper-table.ts), which
   * the report prints as Markdown and LaTeX; the viewer's sweep page has no use for it.
   */
  paper?: PaperTable;
  passK: Array<Omit<PassKRow, 'factors'> & GroupKey>;
  /** Every two agents that share a maze, settings and repeat, paired (compare.ts compareAgents). */
  pairs: Comparison[];
  /** Each run as the read model gives it (results/sweep-runs.ts), its numbers as numbers and its cost summed apart. */
  runs: Array<
    Omit<
      SweepRunRow,
      'cell_index' | 'cost_usd' | 'cost_known' | 'maze_size' | 'maze_seed' | 'efficiency' | 'tokens'
    > & {
      maze_size: number;
      maze_seed: number;
      efficiency: number | null;
      tokens: number;
    }
  >;
  /** One agent under two values of a setting the sweep varies (rays vs full_map), paired on maze and repeat. */
  settingPairs: Comparison[];
  /** What the sweep cost: the priced runs' sum, and how many runs' cost is unknown (a model without a price). */
  cost: CostTotal;
  /** The sweep against its plan (results/sweep-plan.ts): planned, started, ended runs and the cells missing runs. */
  plan: SweepPlan;
  /** The plan in words (reports/plan-text.ts): "N of M planned runs ended", the missing cells named. */
  planLines: string[];
  /** A sweep with stop_when: what its rule decided, the guarantee that holds (none without the rule). */
  sequentialLines: string[];
  /** Every pair of agents per group of the other settings, Holm-adjusted, and the agents in tie groups; null: one. */
  ranking: AllPairsComparison | null;
  /** With { cells: true } (the viewer's grid): each cell counted by the same rules as a statistics row. */
  cells?: CellStatistics[];
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export async function loadReport(
  db: Sql,
  sweepId: string,
  opts: { cells?: boolean; paper?: boolean; behaviour?: boolean } = {},
): Promise<ReportData> {
  // each read of the sweep's runs evaluates the whole sweep_runs view (its windows rank copies over the sweep), so
  // they go side by side: the runs listed, the statistics' runs (after the factors), and the agents' pairs (after
  // the labels: every run's, as the statistics' groups have them)
  const runsRead = sweepRunRows(db, sweepId);
  // every pair of agents ranked in tie groups (compare --all), where the sweep has two agents or more
  const labelCounts = sweepLabelCounts(db, sweepId);
  const rankingRead = labelCounts.then((counts) =>
    new Set(counts.map((c) => c.label)).size >= 2 ? compareAllAgents(db, sweepId) : null,
  );
  const pairsRead = labelCounts.then((counts) =>
    agentComparisons(
      db,
      sweepId,
      counts.map((c) => c.label),
    ),
  );
  for (const read of [runsRead, pairsRead, rankingRead]) read.catch(() => undefined); // awaited below
  const [sweep, varying, plan, sequential] = await Promise.all([
    sweepRecord(db, sweepId),
    varyingFactors(db, sweepId),
    sweepPlan(db, sweepId),
    sweepSequentialState(db, sweepId),
  ]);
  if (!sweep || !plan)
    throw new InvalidInputError('sweep', sweepId, `no sweep named "${sweepId}"; list them with: ariadne list --sweeps`);
  // the label and maze always (the charts are by maze size), then every setting the sweep varies
  const factors = [...MAZE, ...varying.filter((f) => !MAZE.includes(f))];
  const statistics = await sweepStatistics(db, sweepId, { by: factors, cells: opts.cells, behaviour: opts.behaviour });
  const stats = statistics.groups.map(({ factors: f, ...g }) => ({ ...groupKey(f), ...g }));
  const [settingComparisonsMade, agentComparisonsMade, runs, ranking] = await Promise.all([
    settingComparisons(db, sweepId, stats),
    pairsRead,
    runsRead,
    rankingRead,
  ]);
  // every paired test of the report is one family: Holm's adjustment over all of them
  const [settingPairs, pairs] = holmAcross([settingComparisonsMade, agentComparisonsMade]);
  return {
    settingPairs,
    sweep: {
      id: sweep.id,
      cells: sweep.cells,
      repeats: sweep.repeats,
      created_at: new Date(sweep.created_at).toISOString(),
      description: sweep.description,
    },
    factors,
    resamples: statistics.resamples,
    seed: statistics.seed,
    stats,
    passK: statistics.passK.map(({ factors: f, ...p }) => ({ ...groupKey(f), ...p })),
    pairs,
    runs: runs.map(({ cell_index: _cell, cost_usd: _cost, cost_known: _known, ...r }) => ({
      ...r,
      maze_size: Number(r.maze_size),
      maze_seed: Number(r.maze_seed),
      efficiency: num(r.efficiency),
      tokens: Number(r.tokens),
    })),
    cost: {
      usd: runs.reduce((sum, r) => sum + (r.cost_known ? Number(r.cost_usd) : 0), 0),
      priced: runs.filter((r) => r.cost_known).length,
      unpriced: runs.filter((r) => !r.cost_known).length,
    },
    plan,
    ranking,
    planLines: planLines(plan),
    // a sweep with stop_when: what its rule decided, the guarantee, and what the stop does to the other intervals
    sequentialLines: sequential ? [sequentialText(sequential, !planComplete(plan))] : [],
    ...(statistics.cells ? { cells: statistics.cells } : {}),
    ...(opts.paper ? { paper: paperTable(sweepId, statistics, plan, sequential) } : {}),
  };
}

/** At most this many pairs of values per agent and setting: a setting of many values is compared first to second. */
const MAX_SETTING_PAIRS = 6;

/** Every agent with two or more values of a varied setting that reaches it: each pair of values, compared paired. */
async function settingComparisons(db: Sql, sweepId: string, stats: StatsRow[]): Promise<Comparison[]> {
  const wanted: Array<[string, string, string, string]> = [];
  for (const label of [...new Set(stats.map((r) => r.label))]) {
    const rows = stats.filter((r) => r.label === label);
    for (const factor of [...new Set(rows.flatMap((r) => Object.keys(r.settings)))]) {
      const values = [...new Set(rows.map((r) => r.settings[factor]).filter((v) => v !== undefined))].map(String);
      const pairs = values.flatMap((a, i) => values.slice(i + 1).map((b) => [a, b] as const));
      for (const [a, b] of pairs.slice(0, MAX_SETTING_PAIRS)) wanted.push([label, factor, a, b]);
    }
  }
  // a nested setting (ollama.num_ctx) split by the statistics is varied under its section's key: not pairable
  return pairable(wanted.map(([label, factor, a, b]) => compareSettings(db, sweepId, label, factor, a, b)));
}

/**
 * The comparisons that could be made, in the order asked, read at once (each waits on its own reads); one of two
 * things that share nothing to pair (InvalidInputError) is left out, any other error thrown.
 */
async function pairable(comparisons: Array<Promise<Comparison>>): Promise<Comparison[]> {
  const made = await Promise.all(
    comparisons.map((c) =>
      c.catch((err: unknown) => {
        if (err instanceof InvalidInputError) return null;
        throw err;
      }),
    ),
  );
  return made.filter((c): c is Comparison => c !== null);
}

/** Every two agent labels, in order, paired on the same maze, settings and repeat; those that share none left out. */
async function agentComparisons(db: Sql, sweepId: string, all: string[]): Promise<Comparison[]> {
  const labels = [...all].sort();
  // two agents on different mazes or settings: nothing to pair
  return pairable(labels.flatMap((a, i) => labels.slice(i + 1).map((b) => compareAgents(db, sweepId, a, b))));
}
