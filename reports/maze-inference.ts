// Tests and intervals taken at the level of the maze, the unit of replication: repeats on one maze are correlated
// (a hard maze fails every agent and every repeat), so a run-level interval or McNemar's test on run pairs
// overstates certainty. Every function here takes one entry per maze and never reports more certainty than the
// number of mazes allows; each names its method and reference. Their calibration (type-I error, coverage) is
// simulated in bench/calibration.ts and test/maze-inference.test.ts.
import type { ClusterSums } from './bootstrap.ts';
import { betaQuantile, studentTQuantile } from './student-t.ts';

const Z95 = 1.959963984540054;

/** Below this many mazes no maze-level interval is given: one maze says nothing of how mazes vary. */
const MIN_INTERVAL_MAZES = 2;
/** Below this many mazes the bootstrap is not shown: few-cluster bootstraps are too narrow. */
export const MIN_BOOTSTRAP_MAZES = 10;
/** The fewest mazes that differ for which the two-sided sign-flip test can reach p < 0.05 (2 / 2^6 = 0.031). */
export const MIN_TEST_MAZES = 6;

export interface MazeInterval {
  low: number;
  high: number;
  /** Mazes with data: the clusters. */
  mazes: number;
}

export interface RateInterval extends MazeInterval {
  /** Var(maze-level) / Var(binomial), within [1, the all-alike bound]; the worst case where it cannot be estimated. */
  designEffect: number;
  /** The sample size the interval is worth: runs / design effect, shrunk for the mazes' degrees of freedom. */
  effectiveN: number;
}

/** The logistic function: a logit back to a proportion. */
export const expit = (x: number) => 1 / (1 + Math.exp(-x));

const t975 = (mazes: number) => studentTQuantile(0.975, mazes - 1);
const clamp = (x: number, low: number, high: number) => Math.min(high, Math.max(low, x));

/** Clopper-Pearson on a (fractional) effective sample, as R's survey::svyciprop(method = 'beta'). */
function clopperPearson(p: number, n: number) {
  const k = p * n;
  return {
    low: k === 0 ? 0 : betaQuantile(0.025, k, n - k + 1),
    high: k === n ? 1 : betaQuantile(0.975, k + 1, n - k),
  };
}

/** The runs, the mazes with data, the most a design effect can be (every run of a maze alike): sum n_m^2 / N. */
function clusterShape(clusters: readonly ClusterSums[]) {
  const live = clusters.filter((c) => c.den > 0);
  const n = live.reduce((s, c) => s + c.den, 0);
  return { live, n, mazes: live.length, maxDeff: live.reduce((s, c) => s + c.den * c.den, 0) / n };
}

/** M/(M-1) * sum (num_m - r den_m)^2 / N^2: the cluster-robust (linearized) variance of the ratio r. */
function clusterVariance(live: readonly ClusterSums[], r: number, n: number): number {
  const m = live.length;
  const ss = live.reduce((s, c) => s + (c.num - r * c.den) ** 2, 0);
  return ((m / (m - 1)) * ss) / (n * n);
}

/**
 * The 95% interval of a success rate, one entry per maze (num: successes, den: runs): Korn and Graubard's (1998)
 * Clopper-Pearson interval on the degrees-of-freedom-adjusted effective sample size. null below
 * MIN_INTERVAL_MAZES mazes. The design effect is the maze-level variance over the binomial one, kept within
 * [1, sum n_m^2 / N]; at 0% or 100% (no spread to estimate it from) it is that upper bound, as if every run of a
 * maze were alike, so four mazes all solved give [9%, 100%], not [100%, 100%].
 */
export function mazeRate(clusters: readonly ClusterSums[]): RateInterval | null {
  const { live, n, mazes, maxDeff } = clusterShape(clusters);
  if (mazes < MIN_INTERVAL_MAZES) return null;
  const p = live.reduce((s, c) => s + c.num, 0) / n;
  const binomial = (p * (1 - p)) / n;
  const deff = binomial > 0 ? clamp(clusterVariance(live, p, n) / binomial, 1, maxDeff) : maxDeff;
  const effectiveN = (n / deff) * (Z95 / t975(mazes)) ** 2;
  return { ...clopperPearson(p, effectiveN), mazes, designEffect: deff, effectiveN };
}

/** One maze's pairs: how many, and those only side a solved (b) and only side b solved (c). */
export interface MazePairs {
  pairs: number;
  onlyA: number;
  onlyB: number;
}

/**
 * The 95% interval of success(a) - success(b) over pairs: Agresti & Min's (2005) interval (half a pair added to
 * each cell of the 2x2 table), its variance multiplied by the maze design effect (the worst case when the pairs
 * show no spread), with Student's t on mazes - 1 degrees of freedom. null below MIN_INTERVAL_MAZES mazes.
 */
export function pairedDifference(mazes: readonly MazePairs[]): RateInterval | null {
  const clusters = mazes.map((m) => ({ num: m.onlyA - m.onlyB, den: m.pairs }));
  const { live, n, mazes: count, maxDeff } = clusterShape(clusters);
  if (count < MIN_INTERVAL_MAZES) return null;
  const [b, c] = [mazes.reduce((s, m) => s + m.onlyA, 0), mazes.reduce((s, m) => s + m.onlyB, 0)];
  const d = (b - c) / n;
  const naive = ((b + c) / n - d * d) / n;
  const deff = naive > 0 ? clamp(clusterVariance(live, d, n) / naive, 1, maxDeff) : maxDeff;
  const adjusted = (b - c) / (n + 2);
  const variance = (((b + c + 1) / (n + 2) - adjusted * adjusted) / (n + 2)) * deff;
  const half = t975(count) * Math.sqrt(variance);
  const effectiveN = (n / deff) * (Z95 / t975(count)) ** 2;
  return {
    low: Math.max(-1, adjusted - half),
    high: Math.min(1, adjusted + half),
    mazes: count,
    designEffect: deff,
    effectiveN,
  };
}

/**
 * sum(num) / sum(den) over mazes and its cluster-robust standard error (clusterMean's), for a log whose metrics
 * another tool reads as a value and a standard error (Inspect's stderr). With as many runs on each maze it is the
 * standard error of the mazes' own means, as Inspect gives for epochs reduced by their mean. stderr null below
 * MIN_INTERVAL_MAZES mazes: one maze says nothing of how mazes vary. null without data.
 */
export function clusterStandardError(
  clusters: readonly ClusterSums[],
): { value: number; stderr: number | null; mazes: number; n: number } | null {
  const { live, n, mazes } = clusterShape(clusters);
  if (mazes === 0) return null;
  const value = live.reduce((s, c) => s + c.num, 0) / n;
  const stderr = mazes < MIN_INTERVAL_MAZES ? null : Math.sqrt(clusterVariance(live, value, n));
  return { value, stderr, mazes, n };
}

/**
 * The 95% interval of sum(num) / sum(den) over mazes (mean efficiency, SPL, a mean difference): the ratio's
 * cluster-robust variance with Student's t on mazes - 1 degrees of freedom, clipped to [floor, ceiling]. null below
 * MIN_INTERVAL_MAZES mazes with data.
 */
export function clusterMean(
  clusters: readonly ClusterSums[],
  floor = -Infinity,
  ceiling = Infinity,
): MazeInterval | null {
  const { live, n, mazes } = clusterShape(clusters);
  if (mazes < MIN_INTERVAL_MAZES) return null;
  const r = live.reduce((s, c) => s + c.num, 0) / n;
  const half = t975(mazes) * Math.sqrt(clusterVariance(live, r, n));
  return { low: Math.max(floor, r - half), high: Math.min(ceiling, r + half), mazes };
}

/**
 * clusterMean's interval for a proportion (a share of moves, a mean of runs' shares) on the logit scale, taken back:
 * it stays within (0, 1) and leans away from the near bound, where a skewed spread of mazes leaves the plain
 * interval short of 95% (reports/calibration.ts calibrateRatio). At 0 or 1 exactly nothing can be scaled: the plain
 * interval, clipped to [0, 1].
 */
export function clusterShare(clusters: readonly ClusterSums[]): MazeInterval | null {
  const { live, n, mazes } = clusterShape(clusters);
  if (mazes < MIN_INTERVAL_MAZES) return null;
  const r = live.reduce((s, c) => s + c.num, 0) / n;
  if (r <= 0 || r >= 1) return clusterMean(clusters, 0, 1);
  const half = (t975(mazes) * Math.sqrt(clusterVariance(live, r, n))) / (r * (1 - r));
  const logit = Math.log(r / (1 - r));
  return { low: expit(logit - half), high: expit(logit + half), mazes };
}

/** clusterMean's interval for a positive ratio (no upper bound) on the log scale, taken back; at 0, the plain one. */
export function clusterPositive(clusters: readonly ClusterSums[]): MazeInterval | null {
  const { live, n, mazes } = clusterShape(clusters);
  if (mazes < MIN_INTERVAL_MAZES) return null;
  const r = live.reduce((s, c) => s + c.num, 0) / n;
  if (r <= 0) return clusterMean(clusters, 0);
  const half = (t975(mazes) * Math.sqrt(clusterVariance(live, r, n))) / r;
  return { low: r * Math.exp(-half), high: r * Math.exp(half), mazes };
}

export interface SignFlipTest {
  /** Two-sided p: the share of the 2^m sign assignments whose |sum| reaches the observed one. */
  p: number;
  /** Mazes with data, and those whose pairs differ (the others carry no sign): the test's resolution. */
  mazes: number;
  differing: number;
  /** The smallest p this many differing mazes allow: 2 / 2^differing (1 with none). */
  minP: number;
}

/**
 * The exact sign-flip (randomization) test of no difference, one integer per maze (its pairs' successes of a less
 * those of b). Under the null each maze's difference is as likely negative as positive; the p value is exact, by
 * dynamic programming over the achievable sums (Pagano & Tritchler 1983), so it never goes below what the number
 * of mazes allows: 0.125 with 4 mazes that differ.
 */
export function signFlipTest(differences: readonly number[], mazes = differences.length): SignFlipTest {
  const d = differences.map((x) => Math.abs(Math.round(x))).filter((x) => x > 0);
  const minP = d.length === 0 ? 1 : Math.min(1, 2 / 2 ** d.length);
  const observed = Math.abs(differences.reduce((s, x) => s + Math.round(x), 0));
  if (observed === 0) return { p: 1, mazes, differing: d.length, minP };
  const total = d.reduce((s, x) => s + x, 0);
  // dist[s] = P(sum of the positive-signed |d| = s); the sum of signed d is 2s - total
  let dist = new Float64Array(total + 1);
  dist[0] = 1;
  let reach = 0;
  for (const x of d) {
    const next = new Float64Array(total + 1);
    for (let s = 0; s <= reach; s++) {
      if (dist[s] === 0) continue;
      next[s] += dist[s] / 2;
      next[s + x] += dist[s] / 2;
    }
    reach += x;
    dist = next;
  }
  // P(signed sum >= observed), doubled by symmetry
  let tail = 0;
  for (let s = Math.ceil((observed + total) / 2); s <= total; s++) tail += dist[s];
  return { p: Math.min(1, 2 * tail), mazes, differing: d.length, minP };
}

/** Holm's step-down adjusted p values, in the order given (null stays null). */
export function holm(ps: ReadonlyArray<number | null>): Array<number | null> {
  const order = ps
    .map((p, i) => ({ p, i }))
    .filter((x): x is { p: number; i: number } => x.p !== null)
    .sort((x, y) => x.p - y.p);
  const adjusted: Array<number | null> = ps.map(() => null);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (order.length - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}
