// A sweep's statistics, defined once (`ariadne stats`, `ariadne compare`, the report, the viewer, the live line),
// counted from the sweep_runs view's per-run facts (migration 011, results/statistics-runs.ts) by the factors asked
// for, never pooling one: by default the label and every factor the sweep varies (reports/factors.ts). What each
// figure counts is documented on GroupStatistics. Options: cells also counts each cell of the grid (the viewer's);
// behaviour, each group's behaviour over its observations (reports/behaviour-statistics.ts: it reads every move).
import type { Sql } from '../core/store/sql.ts';
import { statisticsRunRows } from '../results/statistics-runs.ts';
import { clusterBootstrap, clusterSums, DEFAULT_RESAMPLES, DEFAULT_SEED } from './bootstrap.ts';
import { apartFromSimulated, checkFactors, factorValue, varyingFactors } from './factors.ts';
import { clusterMean, clusterShare, mazeRate, MIN_BOOTSTRAP_MAZES } from './maze-inference.ts';
import { countStopReasons, type StopReason } from '../results/stop-reasons.ts';
import { behaviourStatistics, type BehaviourStatistics } from './behaviour-statistics.ts';
import { loadBehaviours } from './run-behaviours.ts';
import type { RunBehaviour } from './behaviour.ts';

type OutcomeClass = 'success' | 'failure' | 'error' | 'wall_clock' | 'running';

/** One run as the statistics read it. */
interface StatisticsRun {
  experimentId: string;
  cellIndex: number;
  repeat: number;
  provider: string;
  /** generator, size and seed: the cluster of the bootstrap. */
  maze: string;
  outcome: OutcomeClass;
  status: string;
  goalFound: boolean;
  stopReason: string | null;
  interrupted: boolean;
  failureReason: string | null;
  independent: boolean;
  deterministic: boolean;
  identicalRepeat: boolean;
  efficiency: number | null;
  actions: number;
  invalidActions: number;
  loopCells: number;
  tokens: number;
  /** The cell of the run a copy repeats (null when the run is not a copy). */
  duplicateOfCell: number | null;
  /** null: the provider priced none of it although the run called a model (unknown, not free). */
  costUsd: number | null;
  toolCalls: number;
  fromText: number;
  attempts: number;
  erroredAttempts: number;
  /** The reasons of the attempts before the latest that ended in error. */
  earlierErrorReasons: string[];
  /** Tokens and cost of every attempt (cost null when any attempt's is unknown). */
  allTokens: number;
  allCostUsd: number | null;
  /** Calls whose prompt the server cut to its context window. */
  promptTruncatedCalls: number;
  /** A bundled simulator answered some of its calls. */
  simulated: boolean;
  /** Every model call answered by config.cache (sweep_runs.from_cache): counted nowhere. */
  fromCache: boolean;
  /** Its belief probes' mean cell accuracy (results/statistics-runs.ts); null when it answered none. */
  beliefAccuracy: number | null;
  /** Its belief probes answered (scored or malformed), malformed among them, and unanswered (failed, skipped). */
  beliefProbes: { answered: number; malformed: number; unanswered: number };
  /** The run's value of each factor, in the order asked (NOT_APPLICABLE where a setting does not reach it). */
  values: unknown[];
}

export interface Interval {
  low: number | null;
  high: number | null;
}

/** A maze-level interval, with the mazes it is over (the clusters). */
interface MazeInterval extends Interval {
  mazes: number;
}

/** How the bootstrap interval was had: drawn, not drawn from too few mazes, or the maze interval in its place. */
type BootstrapStatus = 'drawn' | 'too few mazes' | 'maze interval';

export interface GroupStatistics {
  /** The group's value of each factor, by factor name. */
  factors: Record<string, unknown>;
  /** Every run's latest attempt in the group, whatever its outcome. */
  runs: number;
  /** Successes + failures, every repeat and copy included; errors, wall-clock stops and running runs are not. */
  n: number;
  successes: number;
  /** Runs ended by infrastructure (status failed), with their reasons. */
  errors: number;
  errorReasons: Array<{ reason: string; runs: number }>;
  running: number;
  /** The observations: a deterministic copy (same trajectory) counts once. */
  independent: number;
  independentSuccesses: number;
  /** n - independent: deterministic copies counted once. */
  copies: number;
  /** Model runs (of n) whose trajectory equals another repeat's in the same cell; modelRuns: those of n by a model. */
  identicalRepeats: number;
  modelRuns: number;
  /** Mazes among the observations: the unit of replication, the clusters of every maze-level interval. */
  mazes: number;
  /** Runs stopped by max_duration_minutes: in no denominator, like errors (the serving stack decided them). */
  wallClock: number;
  /** Runs whose every model call config.cache answered: copies of answers already counted, in no denominator. */
  cached: number;
  /** Every run of the group by how it ended (results/stop-reasons.ts). */
  stopReasons: Record<StopReason, number>;
  /**
   * maze: the maze-level 95% interval (reports/maze-inference.ts mazeRate), the one to report; wilson: Wilson's
   * interval as if the runs were independent (too narrow when repeats share a maze); bootstrap: the maze bootstrap,
   * not drawn below MIN_BOOTSTRAP_MAZES mazes and replaced by the maze interval where it collapses (0% or 100%).
   */
  success: {
    rate: number | null;
    maze: MazeInterval;
    wilson: Interval;
    bootstrap: Interval;
    bootstrapStatus: BootstrapStatus;
  };
  /** The same had every error and wall-clock stop been a failed observation: the sensitivity row. */
  ifErrorsFailed: { rate: number | null; wilson: Interval; maze: MazeInterval };
  /** Over the successes only (so a stopping rule that ends failures early changes it): read SPL beside it. */
  efficiency: { mean: number | null; median: number | null; runs: number; interval: MazeInterval };
  /**
   * Success weighted by path length (Anderson et al. 2018): the mean over the observations of optimal / max(actions,
   * optimal) for a success and 0 for a failure, with its maze-level interval.
   */
  spl: { mean: number | null; interval: MazeInterval };
  /**
   * Belief probes (config.belief_probe_every): over the observations that answered one, the mean of each run's mean
   * cell accuracy (of the cells it had been shown; each run weighs the same, and each answered probe the same within
   * its run; a malformed answer counts 0), with its maze-level interval on the logit scale (clusterShare). What it
   * leaves out is counted: probes that failed or were skipped (no answer), and the observations probed that answered
   * none (`unansweredRuns`).
   */
  belief: {
    mean: number | null;
    runs: number;
    interval: MazeInterval;
    probes: { answered: number; malformed: number; unanswered: number };
    unansweredRuns: number;
  };
  meanActions: number | null;
  /** Median actions of the independent successes. */
  medianActionsToSuccess: number | null;
  /** Invalid actions / actions, summed over the observations. */
  invalidActionRate: number | null;
  /** Observations that entered some cell 10 or more times (loop_cells > 0), as a share of the observations. */
  loopRate: number | null;
  /** Per observation: its latest attempt's input, cache read and write, and output tokens. */
  tokensPerExperiment: number | null;
  /** Tokens of every observation / independent successes. */
  tokensPerSuccess: number | null;
  /** Cost of every observation / independent successes: null when any observation's cost is unknown or none won. */
  costPerSuccess: number | null;
  /** Cells outside the group whose runs its copies repeat (frontier's second format cell copies its first). */
  copyOfCells: number[];
  /** What every attempt of every run of the group cost, errors included; null when any attempt's cost is unknown. */
  costUsd: number | null;
  toolCalls: number;
  fromTextRate: number | null;
  /** Every attempt of the group's runs (runs + retries). */
  attempts: number;
  /** Attempts that ended in error, the latest attempts' errors included; retriedErrors: those a later attempt of
   * their run finished (success or failure). */
  erroredAttempts: number;
  retriedErrors: number;
  /** The reasons of every attempt that ended in error, most frequent first. */
  attemptErrorReasons: Array<{ reason: string; attempts: number }>;
  /** Input, cache read and write, and output tokens of every answered call of every attempt. */
  tokens: number;
  /** Runs of the group (any outcome) with at least one call whose prompt the server cut to its context window. */
  promptTruncatedRuns: number;
  /** Runs of the group (any outcome) a bundled simulator answered: all of them or none (simulated is never pooled). */
  simulatedRuns: number;
  /** With { behaviour: true }: how the observations moved (loops, bumps, revisits, ...), with maze-level intervals. */
  behaviour?: BehaviourStatistics;
}

export interface PassKRow {
  factors: Record<string, unknown>;
  k: number;
  cells: number;
  passK: number;
  /** Cells that are one deterministic observation: their pass^k is their outcome for every k. */
  deterministicCells: number;
}

/** One cell of the sweep's grid, counted as a group is (the viewer's factor grid). */
export interface CellStatistics extends GroupStatistics {
  cell: number;
}

export interface SweepStatistics {
  sweep: string;
  factors: string[];
  /** The bootstrap's resamples and seed, reported with its intervals. */
  resamples: number;
  seed: number;
  groups: GroupStatistics[];
  passK: PassKRow[];
  /** With { cells: true }: each cell of the grid, by cell index. */
  cells?: CellStatistics[];
}

/** Every run of a sweep with its value of each factor (results/statistics-runs.ts reads them). */
async function loadRuns(db: Sql, sweepId: string, factors: string[]): Promise<StatisticsRun[]> {
  checkFactors(factors);
  const rows = await statisticsRunRows(db, sweepId, factors);
  return rows.map((r) => ({
    experimentId: r.experiment_id,
    cellIndex: r.cell_index,
    repeat: r.repeat,
    provider: r.provider,
    maze: r.maze,
    outcome: r.outcome_class,
    status: r.status,
    goalFound: r.goal_found,
    stopReason: r.stop_reason,
    interrupted: r.interrupted,
    failureReason: r.failure_reason,
    independent: r.independent,
    deterministic: r.deterministic,
    identicalRepeat: r.identical_repeat,
    efficiency: r.efficiency,
    actions: r.actions,
    invalidActions: r.invalid_actions,
    loopCells: r.loop_cells,
    duplicateOfCell: r.duplicate_cell,
    tokens: r.tokens,
    costUsd: r.cost_usd !== null ? r.cost_usd : r.llm_calls > 0 ? null : 0,
    toolCalls: r.tool_calls ?? 0,
    fromText: r.from_text ?? 0,
    attempts: r.attempts,
    erroredAttempts: r.errored_attempts,
    earlierErrorReasons: r.earlier_error_reasons,
    allTokens: r.all_tokens,
    allCostUsd: r.all_cost_usd,
    promptTruncatedCalls: r.prompt_truncated_calls ?? 0,
    simulated: r.simulated === true,
    fromCache: r.from_cache,
    beliefAccuracy: r.belief_accuracy,
    beliefProbes: { answered: r.belief_answered, malformed: r.belief_malformed, unanswered: r.belief_unanswered },
    values: factors.map((f, i) => factorValue(f, r[`f${i}`], r.provider)),
  }));
}

/** Wilson score interval, 95% (z = 1.959964), as migration 005's wilson_low/high; none for n = 0. */
export function wilson(k: number, n: number): Interval {
  if (n === 0) return { low: null, high: null };
  const z = 1.959963984540054;
  const p = k / n;
  const centre = p + (z * z) / (2 * n);
  const half = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  const d = 1 + (z * z) / n;
  return { low: k === 0 ? 0 : Math.max(0, (centre - half) / d), high: k === n ? 1 : Math.min(1, (centre + half) / d) };
}

/** C(c, k) / C(n, k): the chance that k of n runs drawn without replacement all succeed, c of them having. */
function allKSucceed(c: number, n: number, k: number): number {
  let p = 1;
  for (let i = 0; i < k; i++) p *= (c - i) / (n - i);
  return Math.max(0, p);
}

/** The mean of `xs`; null for none. */
export const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length);
function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}
const interval = (b: { low: number; high: number } | null): Interval => ({
  low: b?.low ?? null,
  high: b?.high ?? null,
});

/** Factor values in order: numbers by value, text by code point, nulls last. */
function compareValues(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i], b[i]];
    if (x === y) continue;
    if (x === null || x === undefined) return 1;
    if (y === null || y === undefined) return -1;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    const [sx, sy] = [JSON.stringify(x), JSON.stringify(y)];
    return sx < sy ? -1 : 1;
  }
  return 0;
}

function groupBy(runs: StatisticsRun[]): Array<{ values: unknown[]; runs: StatisticsRun[] }> {
  const groups = new Map<string, { values: unknown[]; runs: StatisticsRun[] }>();
  for (const r of runs) {
    const key = JSON.stringify(r.values);
    const g = groups.get(key) ?? { values: r.values, runs: [] };
    g.runs.push(r);
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => compareValues(a.values, b.values));
}

const counted = (r: StatisticsRun) => (r.outcome === 'success' || r.outcome === 'failure') && !r.fromCache;

/** A maze-level interval as its fields, with the mazes (none: nulls). */
const mazeInterval = (i: { low: number; high: number; mazes: number } | null, mazes: number): MazeInterval => ({
  low: i?.low ?? null,
  high: i?.high ?? null,
  mazes,
});

/**
 * A run's SPL from its outcome and efficiency (optimal / actions, null without a success or an action): optimal /
 * max(actions, optimal) for a success is min(1, efficiency), and a failure scores 0. The one definition, for the
 * statistics and the paired comparisons.
 */
export const splOf = (goalFound: boolean, efficiency: number | null): number =>
  goalFound && efficiency !== null ? Math.min(1, efficiency) : 0;
const runSpl = (r: StatisticsRun) => splOf(r.outcome === 'success', r.efficiency);

/** The success rate's three intervals over the observations (see GroupStatistics.success). */
function successIntervals(obs: StatisticsRun[], resamples: number, seed: number) {
  const byMaze = clusterSums(
    obs,
    (r) => r.maze,
    (r) => ({ num: r.outcome === 'success' ? 1 : 0, den: 1 }),
  );
  const maze = mazeInterval(mazeRate(byMaze), byMaze.length);
  if (byMaze.length < MIN_BOOTSTRAP_MAZES)
    return {
      maze,
      bootstrap: interval(null),
      bootstrapStatus: 'too few mazes' as BootstrapStatus,
      mazes: byMaze.length,
    };
  const drawn = clusterBootstrap(byMaze, resamples, seed);
  const collapsed = drawn !== null && drawn.low === drawn.high;
  return {
    maze,
    bootstrap: collapsed ? { low: maze.low, high: maze.high } : interval(drawn),
    bootstrapStatus: (collapsed ? 'maze interval' : 'drawn') as BootstrapStatus,
    mazes: byMaze.length,
  };
}

/**
 * Efficiency over the successes and SPL over every observation, each with its maze-level interval. SPL is at most
 * the success rate, so where no run succeeded (every SPL 0, no spread to estimate from) its interval is the success
 * rate's, [0, its upper bound], not [0, 0].
 */
function pathStatistics(obs: StatisticsRun[], success: MazeInterval) {
  const solved = obs.filter((r) => r.outcome === 'success' && r.efficiency !== null);
  const efficiencies = solved.map((r) => r.efficiency!);
  const byEfficiency = clusterSums(
    solved,
    (r) => r.maze,
    (r) => ({ num: r.efficiency!, den: 1 }),
  );
  const bySpl = clusterSums(
    obs,
    (r) => r.maze,
    (r) => ({ num: runSpl(r), den: 1 }),
  );
  return {
    efficiency: {
      mean: mean(efficiencies),
      median: median(efficiencies),
      runs: efficiencies.length,
      interval: mazeInterval(clusterMean(byEfficiency, 0, 1), byEfficiency.length),
    },
    spl: {
      mean: mean(obs.map(runSpl)),
      interval:
        solved.length === 0 && success.low !== null ? success : mazeInterval(clusterMean(bySpl, 0, 1), bySpl.length),
    },
  };
}

/**
 * The observations' belief probes: each run's mean cell accuracy, averaged with its maze-level interval (a mean of
 * runs' shares: clusterShare, as the behaviour shares), and the probes and runs the mean leaves out, counted.
 */
function beliefStatistics(obs: StatisticsRun[]): GroupStatistics['belief'] {
  const probed = obs.filter((r) => r.beliefAccuracy !== null);
  const byMaze = clusterSums(
    probed,
    (r) => r.maze,
    (r) => ({ num: r.beliefAccuracy!, den: 1 }),
  );
  const total = (k: keyof StatisticsRun['beliefProbes']) => obs.reduce((n, r) => n + r.beliefProbes[k], 0);
  return {
    mean: mean(probed.map((r) => r.beliefAccuracy!)),
    runs: probed.length,
    interval: mazeInterval(clusterShare(byMaze), byMaze.length),
    probes: { answered: total('answered'), malformed: total('malformed'), unanswered: total('unanswered') },
    unansweredRuns: obs.filter((r) => r.beliefAccuracy === null && r.beliefProbes.unanswered > 0).length,
  };
}

/**
 * The rate had every error and wall-clock stop been a failed observation, with both its intervals: a success counts
 * only when none of its run's attempts ended in error (retrying until a run finishes would select its successes).
 */
function ifErrorsFailed(obs: StatisticsRun[], excluded: StatisticsRun[]) {
  const all = [...obs, ...excluded];
  const clean = (r: StatisticsRun) => r.outcome === 'success' && r.erroredAttempts === 0;
  const k = obs.filter(clean).length;
  const byMaze = clusterSums(
    all,
    (r) => r.maze,
    (r) => ({ num: clean(r) ? 1 : 0, den: 1 }),
  );
  return {
    rate: all.length === 0 ? null : k / all.length,
    wilson: wilson(k, all.length),
    maze: mazeInterval(mazeRate(byMaze), byMaze.length),
  };
}

/** The statistics of one group of runs (GroupStatistics says what each count includes). */
function groupStatistics(
  factors: Record<string, unknown>,
  runs: StatisticsRun[],
  resamples: number,
  seed: number,
): GroupStatistics {
  const n = runs.filter(counted);
  const obs = runs.filter((r) => r.independent);
  const k = obs.filter((r) => r.outcome === 'success').length;
  const errors = runs.filter((r) => r.outcome === 'error');
  const wallClock = runs.filter((r) => r.outcome === 'wall_clock');
  const { mazes, ...success } = successIntervals(obs, resamples, seed);
  const models = n.filter((r) => !r.deterministic);
  const toolCalls = n.reduce((s, r) => s + r.toolCalls, 0);
  const fromText = n.reduce((s, r) => s + r.fromText, 0);
  const sum = (xs: StatisticsRun[], f: (r: StatisticsRun) => number) => xs.reduce((t, r) => t + f(r), 0);
  const wins = obs.filter((r) => r.outcome === 'success');
  const actions = sum(obs, (r) => r.actions);
  const ownCells = new Set(runs.map((r) => r.cellIndex));
  return {
    factors,
    runs: runs.length,
    n: n.length,
    successes: n.filter((r) => r.outcome === 'success').length,
    errors: errors.length,
    errorReasons: tally(errors.map(reasonOf)).map(([reason, count]) => ({ reason, runs: count })),
    running: runs.filter((r) => r.outcome === 'running').length,
    independent: obs.length,
    independentSuccesses: k,
    copies: n.length - obs.length,
    identicalRepeats: models.filter((r) => r.identicalRepeat).length,
    modelRuns: models.length,
    mazes,
    wallClock: wallClock.length,
    cached: runs.filter((r) => r.fromCache).length,
    stopReasons: countStopReasons(runs),
    success: { rate: obs.length === 0 ? null : k / obs.length, wilson: wilson(k, obs.length), ...success },
    ifErrorsFailed: ifErrorsFailed(obs, [...errors, ...wallClock]),
    ...pathStatistics(obs, success.maze),
    belief: beliefStatistics(obs),
    meanActions: mean(obs.map((r) => r.actions)),
    medianActionsToSuccess: median(wins.map((r) => r.actions)),
    invalidActionRate: actions === 0 ? null : sum(obs, (r) => r.invalidActions) / actions,
    loopRate: mean(obs.map((r) => (r.loopCells > 0 ? 1 : 0))),
    tokensPerExperiment: mean(obs.map((r) => r.tokens)),
    tokensPerSuccess: k === 0 ? null : sum(obs, (r) => r.tokens) / k,
    costPerSuccess: k === 0 || obs.some((r) => r.costUsd === null) ? null : sum(obs, (r) => r.costUsd!) / k,
    copyOfCells: [
      ...new Set(
        runs.flatMap((r) => (r.duplicateOfCell === null || ownCells.has(r.duplicateOfCell) ? [] : [r.duplicateOfCell])),
      ),
    ].sort((a, b) => a - b),
    toolCalls,
    fromTextRate: models.length === 0 || toolCalls === 0 ? null : fromText / toolCalls,
    ...attemptStatistics(runs),
    ...provenanceCounts(runs),
  };
}

const reasonOf = (r: StatisticsRun) => r.failureReason ?? 'no reason recorded';

/** Each reason with how often it occurs, most frequent first (ties in the order they first occur). */
function tally(reasons: string[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return [...counts].sort(([, a], [, b]) => b - a);
}

/** What every attempt of a group's runs did: counts, errors with their reasons, tokens and cost. */
function attemptStatistics(
  runs: StatisticsRun[],
): Pick<
  GroupStatistics,
  'attempts' | 'erroredAttempts' | 'retriedErrors' | 'attemptErrorReasons' | 'tokens' | 'costUsd'
> {
  const reasons = runs.flatMap((r) => [...r.earlierErrorReasons, ...(r.outcome === 'error' ? [reasonOf(r)] : [])]);
  return {
    attempts: runs.reduce((s, r) => s + r.attempts, 0),
    erroredAttempts: runs.reduce((s, r) => s + r.erroredAttempts, 0),
    retriedErrors: runs.filter(counted).reduce((s, r) => s + r.earlierErrorReasons.length, 0),
    attemptErrorReasons: tally(reasons).map(([reason, attempts]) => ({ reason, attempts })),
    tokens: runs.reduce((s, r) => s + r.allTokens, 0),
    costUsd: runs.some((r) => r.allCostUsd === null) ? null : runs.reduce((s, r) => s + r.allCostUsd!, 0),
  };
}

/**
 * Runs with a prompt cut to the server's window (what the model was shown is not what the prompt said), and runs a
 * bundled simulator answered.
 */
const provenanceCounts = (runs: StatisticsRun[]) => ({
  promptTruncatedRuns: runs.filter((r) => r.promptTruncatedCalls > 0).length,
  simulatedRuns: runs.filter((r) => r.simulated).length,
});

/**
 * pass^k per group, as the sweep_pass_k view: per cell C(c,k)/C(n,k) over its observations, averaged over the
 * cells; a cell of deterministic copies is one observation whose pass^k is its outcome for every k up to its runs,
 * and a cell whose every run copies another cell's is left out.
 */
function passKRows(factors: Record<string, unknown>, runs: StatisticsRun[]): PassKRow[] {
  const cells = new Map<number, StatisticsRun[]>();
  for (const r of runs) cells.set(r.cellIndex, [...(cells.get(r.cellIndex) ?? []), r]);
  const stats = [...cells.values()].map((cell) => {
    const done = cell.filter(counted);
    const obs = cell.filter((r) => r.independent);
    return {
      runs: done.length,
      n: obs.length,
      c: obs.filter((r) => r.outcome === 'success').length,
      collapsed: cell.every((r) => r.deterministic) && done.some((r) => !r.independent),
    };
  });
  const out: PassKRow[] = [];
  const maxK = Math.max(0, ...stats.map((s) => s.runs));
  for (let k = 1; k <= maxK; k++) {
    const included = stats.filter((s) => s.n > 0 && (k <= s.n || (s.collapsed && k <= s.runs)));
    if (included.length === 0) continue;
    out.push({
      factors,
      k,
      cells: included.length,
      passK: included.reduce((sum, s) => sum + allKSucceed(s.c, s.n, Math.min(k, s.n)), 0) / included.length,
      deterministicCells: included.filter((s) => s.collapsed).length,
    });
  }
  return out;
}

/** Each group's behaviour over its observations, their moves read once for the sweep. */
async function groupBehaviours(db: Sql, groups: Array<{ runs: StatisticsRun[] }>): Promise<BehaviourStatistics[]> {
  const observations = groups.map((g) => g.runs.filter((r) => r.independent));
  const behaviours = await loadBehaviours(
    db,
    observations.flat().map((r) => r.experimentId),
  );
  const of = (r: StatisticsRun) => ({
    maze: r.maze,
    success: r.outcome === 'success',
    behaviour: behaviours.get(r.experimentId),
  });
  return observations.map((obs) =>
    behaviourStatistics(obs.map(of).filter((r): r is typeof r & { behaviour: RunBehaviour } => !!r.behaviour)),
  );
}

export async function sweepStatistics(
  db: Sql,
  sweepId: string,
  opts: { by?: string[]; resamples?: number; seed?: number; cells?: boolean; behaviour?: boolean } = {},
): Promise<SweepStatistics> {
  // simulated and real runs are never pooled, whatever factors were asked for
  const factors = opts.by ? await apartFromSimulated(db, sweepId, opts.by) : await varyingFactors(db, sweepId);
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  const seed = opts.seed ?? DEFAULT_SEED;
  const runs = await loadRuns(db, sweepId, factors);
  const groups = groupBy(runs);
  const named = (values: unknown[]) => Object.fromEntries(factors.map((f, i) => [f, values[i]]));
  const statistics: SweepStatistics = {
    sweep: sweepId,
    factors,
    resamples,
    seed,
    groups: groups.map((g) => groupStatistics(named(g.values), g.runs, resamples, seed)),
    passK: groups.flatMap((g) => passKRows(named(g.values), g.runs)),
  };
  if (opts.behaviour) {
    const behaviours = await groupBehaviours(db, groups);
    statistics.groups.forEach((g, i) => (g.behaviour = behaviours[i]));
  }
  if (opts.cells) {
    // a cell's runs share one maze: its bootstrap is none (one cluster), and its rate is the group's rules on them
    const byCell = new Map<number, StatisticsRun[]>();
    for (const r of runs) byCell.set(r.cellIndex, [...(byCell.get(r.cellIndex) ?? []), r]);
    statistics.cells = [...byCell.entries()]
      .sort(([a], [b]) => a - b)
      .map(([cell, cellRuns]) => ({ cell, ...groupStatistics({ cell }, cellRuns, resamples, seed) }));
  }
  return statistics;
}
