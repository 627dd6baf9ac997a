// How many mazes a paired comparison needs, the maze being the cluster: the mean and variance of the per-maze
// difference under reports/calibration.ts's logit-normal maze model, and the power of the paired t test on them
// (df = mazes - 1). `ariadne compare` runs the exact sign-flip test, whose power the t test's approximates, its
// critical value moved half a lattice step for the sign-flip sum's discreteness; reports/power-calibration.ts
// (npm run bench -- power) shows how close. Pure: no I/O.
import { InvalidInputError } from '../core/errors.ts';
import { mazeMean, populationRate } from './calibration.ts';
import { expit } from './maze-inference.ts';
import { noncentralTCdf } from './noncentral-t.ts';
import { studentTQuantile } from './student-t.ts';

/** The planning never asks for more mazes than this; a plan that would is returned at the cap, marked capped. */
export const MAX_PLANNED_MAZES = 100_000;

/** The mazes: agent b's rate on an average maze (logit scale) and the spread of maze difficulty (logit sd). */
export interface MazeModel {
  base: number;
  mazeSd: number;
}

/** The per-maze difference d = (successes of a - successes of b) / repeats, over the population of mazes. */
export interface DifferenceMoments {
  /** E[d]: the difference in success rate. */
  mean: number;
  /** sqrt(Var d) = sqrt(betweenMazes + withinMaze). */
  sd: number;
  /** Var over mazes of pA - pB: what no number of repeats removes. */
  betweenMazes: number;
  /** E over mazes of (pA(1 - pA) + pB(1 - pB)) / repeats: the binomial noise of the repeats. */
  withinMaze: number;
}

export interface PlanInput extends MazeModel {
  /** The difference in success rate to detect (a's rate over b's, population of mazes), in (0, 1 - b's rate). */
  difference: number;
  repeats: number;
  /** Default 0.8. */
  power?: number;
  /** The two-sided test's level; default 0.05. */
  alpha?: number;
}

export interface MazePlan {
  /** The fewest mazes reaching the power (MAX_PLANNED_MAZES when capped). */
  mazes: number;
  /** The planned power at those mazes (the continuity-corrected t approximation). */
  power: number;
  /** True when even MAX_PLANNED_MAZES mazes fall short of the power. */
  capped: boolean;
  /** Runs of the sweep: 2 agents x mazes x repeats. */
  runs: number;
  /** a's advantage on the logit scale that gives the difference. */
  effect: number;
  moments: DifferenceMoments;
}

const fail = (field: string, value: unknown, fix: string): never => {
  throw new InvalidInputError(field, value, `${field} is ${JSON.stringify(value)}: ${fix}`);
};

/** Refuses a model the quadrature cannot take, naming the field. */
function checkModel(m: MazeModel): void {
  if (!Number.isFinite(m.base)) fail('base', m.base, 'give the rate of b on an average maze, on the logit scale');
  if (!(m.mazeSd >= 0 && m.mazeSd <= 10)) fail('mazeSd', m.mazeSd, 'give a maze spread between 0 and 10 (logit)');
}

const wholeAtLeast = (field: string, value: number, least: number) => {
  if (!(Number.isInteger(value) && value >= least)) fail(field, value, `give a whole number of ${least} or more`);
};

function checkTest(repeats: number, alpha: number, power?: number): void {
  wholeAtLeast('repeats', repeats, 1);
  if (!(alpha > 0 && alpha < 0.5)) fail('alpha', alpha, 'give a two-sided level between 0 and 0.5, e.g. 0.05');
  if (power !== undefined && !(power > alpha && power < 1)) {
    fail('power', power, `give a power between alpha (${alpha}) and 1, e.g. 0.8`);
  }
}

/** The mean and variance of the per-maze difference when a is better by `effect` on the logit scale. */
export function differenceMoments(m: MazeModel & { effect: number; repeats: number }): DifferenceMoments {
  checkModel(m);
  wholeAtLeast('repeats', m.repeats, 1);
  const gap = (u: number) => expit(m.base + m.effect + u) - expit(m.base + u);
  const mean = mazeMean(gap, m.mazeSd);
  const betweenMazes = mazeMean((u) => (gap(u) - mean) ** 2, m.mazeSd);
  const binomial = (u: number) => {
    const [pa, pb] = [expit(m.base + m.effect + u), expit(m.base + u)];
    return pa * (1 - pa) + pb * (1 - pb);
  };
  const withinMaze = mazeMean(binomial, m.mazeSd) / m.repeats;
  return { mean, sd: Math.sqrt(betweenMazes + withinMaze), betweenMazes, withinMaze };
}

/** Bisection for the smallest x in [low, high] where up(x) holds, up monotone (false then true); 1e-12 wide. */
function bisect(up: (x: number) => boolean, low: number, high: number): number {
  while (high - low > 1e-12 * Math.max(1, high)) {
    const mid = (low + high) / 2;
    if (up(mid)) high = mid;
    else low = mid;
  }
  return high;
}

/**
 * a's advantage on the logit scale that makes its population rate exceed b's by `difference`: a's rate,
 * populationRate(base + effect, mazeSd), rises with the effect, so bisection finds the one root.
 */
export function effectFor(m: MazeModel & { difference: number }): number {
  checkModel(m);
  const rateB = populationRate(m.base, m.mazeSd);
  if (!(m.difference > 0 && m.difference < 1 - rateB)) {
    fail('difference', m.difference, `give a difference in success rate between 0 and ${(1 - rateB).toFixed(4)}`);
  }
  const reaches = (e: number) => populationRate(m.base + e, m.mazeSd) - rateB >= m.difference;
  let high = 1;
  while (!reaches(high)) {
    high *= 2;
    if (high > 1024) fail('difference', m.difference, 'give a difference further from 1 - the rate of b');
  }
  return bisect(reaches, 0, high);
}

/** The fewest mazes at which the sign-flip test can reject at all: 2 / 2^mazes <= alpha. */
export const fewestTestMazes = (alpha: number) => Math.max(2, Math.ceil(Math.log2(2 / alpha) - 1e-12));

/**
 * The two-sided level-alpha paired t test's power on n pairs (here mazes) whose differences have this mean and sd:
 * P(|T| > t_{1-alpha/2, n-1} + shift), T noncentral t with df n - 1 and ncp mean sqrt(n) / sd (both tails, as R's
 * power.t.test(type = 'paired', strict = TRUE) with no shift).
 */
export function pairedTPower(d: { mean: number; sd: number }, n: number, alpha = 0.05, shift = 0): number {
  const df = n - 1;
  const critical = studentTQuantile(1 - alpha / 2, df) + shift;
  const ncp = (d.mean * Math.sqrt(n)) / d.sd;
  return 1 - noncentralTCdf(critical, df, ncp) + noncentralTCdf(-critical, df, ncp);
}

/**
 * The sign-flip test's power on `mazes` mazes, approximated by the paired t test's with its critical value moved by a
 * continuity correction: the sign-flip sum of count differences moves in steps of 2 (one maze's sign flipped moves
 * it by twice its difference), so the exact test rejects, on average, half a step (one count) beyond the continuous
 * critical value: 1 / sqrt(sum of squared count differences) on the t scale, that sum being mazes r^2 (sd^2 +
 * mean^2). Without it the plan overstates the power by 2 to 5 points at 80% (bench/power.ts prints both). 0 below
 * fewestTestMazes, where the sign-flip test cannot reject.
 */
function approximatePower(d: DifferenceMoments, mazes: number, alpha: number, repeats: number, continuity = true) {
  if (mazes < fewestTestMazes(alpha)) return 0;
  const halfStep = continuity ? 1 / (repeats * Math.sqrt(mazes * (d.sd * d.sd + d.mean * d.mean))) : 0;
  return pairedTPower(d, mazes, alpha, halfStep);
}

/**
 * The planned power of a comparison on `mazes` mazes (0 where the sign-flip test cannot reject); `continuity:
 * false` gives the plain paired t test's, for comparison.
 */
export function plannedPower(p: Omit<PlanInput, 'power'> & { mazes: number; continuity?: boolean }): number {
  const alpha = p.alpha ?? 0.05;
  checkTest(p.repeats, alpha);
  wholeAtLeast('mazes', p.mazes, 2);
  const effect = effectFor(p);
  return approximatePower(differenceMoments({ ...p, effect }), p.mazes, alpha, p.repeats, p.continuity);
}

/**
 * The fewest mazes at which the comparison reaches the power (doubling, then bisection on the number of mazes: the
 * power rises with it). At most MAX_PLANNED_MAZES: a plan that would need more comes back there, capped.
 */
export function mazesFor(p: PlanInput): MazePlan {
  const [power, alpha] = [p.power ?? 0.8, p.alpha ?? 0.05];
  checkTest(p.repeats, alpha, power);
  const effect = effectFor(p);
  const moments = differenceMoments({ ...p, effect });
  const powerAt = (mazes: number) => approximatePower(moments, mazes, alpha, p.repeats);
  const plan = (mazes: number, capped: boolean) => {
    const runs = 2 * mazes * p.repeats;
    return { mazes, power: powerAt(mazes), capped, runs, effect, moments };
  };
  let [low, high] = [fewestTestMazes(alpha) - 1, fewestTestMazes(alpha)];
  while (powerAt(high) < power) {
    if (high >= MAX_PLANNED_MAZES) return plan(MAX_PLANNED_MAZES, true);
    [low, high] = [high, Math.min(MAX_PLANNED_MAZES, high * 2)];
  }
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (powerAt(mid) >= power) high = mid;
    else low = mid;
  }
  return plan(high, false);
}

/**
 * The smallest difference in success rate that `mazes` mazes detect with the power: bisection on a's logit
 * advantage (the power rises with it), returned as a difference in rate. null when no difference reaches the power
 * there (too few mazes: below fewestTestMazes the sign-flip test cannot reject at all).
 */
export function detectableDifference(
  p: MazeModel & { mazes: number; repeats: number; power?: number; alpha?: number },
): number | null {
  const [power, alpha] = [p.power ?? 0.8, p.alpha ?? 0.05];
  checkModel(p);
  checkTest(p.repeats, alpha, power);
  wholeAtLeast('mazes', p.mazes, 2);
  const reaches = (effect: number) =>
    approximatePower(differenceMoments({ ...p, effect }), p.mazes, alpha, p.repeats) >= power;
  let high = 1;
  while (!reaches(high)) {
    high *= 2;
    if (high > 64) return null; // a's rate is all but 1 by then: more advantage buys nothing
  }
  const effect = bisect(reaches, 0, high);
  return populationRate(p.base + effect, p.mazeSd) - populationRate(p.base, p.mazeSd);
}

export interface PlanOption {
  repeats: number;
  mazes: number;
  /** 2 agents x mazes x repeats. */
  runs: number;
  power: number;
  capped: boolean;
}

/**
 * The plan for each number of repeats (1, 2, 3, 5 unless given): the mazes and the runs each needs. When mazes vary,
 * repeats only shrink the within-maze share of the variance, so fewer runs go further on more mazes.
 */
export function optionsTable(p: Omit<PlanInput, 'repeats'> & { repeats?: readonly number[] }): PlanOption[] {
  return (p.repeats ?? [1, 2, 3, 5]).map((repeats) => {
    const { mazes, runs, power, capped } = mazesFor({ ...p, repeats });
    return { repeats, mazes, runs, power, capped };
  });
}
