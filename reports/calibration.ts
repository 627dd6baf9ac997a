// Calibration by simulation of known truth: sweeps of two agents on M mazes with a strong maze effect (difficulty
// drawn on the logit scale), r repeats a maze; counts how often the 5% sign-flip test rejects identical agents
// (type-I error) and how often the 95% intervals cover the true rate and difference. bench/calibration.ts prints the
// full figures; the test suite runs fewer sweeps with the same code.
import { createRng, type Rng } from '../core/maze/rng.ts';
import type { ClusterSums } from './bootstrap.ts';
import {
  clusterMean,
  clusterShare,
  expit,
  mazeRate,
  pairedDifference,
  signFlipTest,
  type MazePairs,
} from './maze-inference.ts';

export interface CalibrationSetting {
  mazes: number;
  repeats: number;
  /** The spread of maze difficulty on the logit scale (2: strong; a maze at +-2 sd is 98% or 2%). */
  mazeSd: number;
  /** Agent a's advantage on the logit scale; 0 for the null (identical agents). */
  effect: number;
  /** The agents' base rate on the logit scale (0: 50% on an average maze). */
  base: number;
}

export interface CalibrationFigures extends CalibrationSetting {
  sweeps: number;
  /** Share of null sweeps the 5% test rejected (only meaningful with effect 0). */
  rejected: number;
  /** Share of sweeps whose 95% interval of the difference held the true difference. */
  differenceCoverage: number;
  /** Share of sweeps whose 95% interval of agent a's success rate held its true rate. */
  rateCoverage: number;
  trueDifference: number;
  trueRate: number;
}

/** A standard normal draw (Box-Muller). */
function normal(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** Midpoint quadrature nodes of the standard normal on +-8 sd, with weights summing to 1 (the tails, 1e-15, cut). */
export interface NormalNodes {
  z: Float64Array;
  weight: Float64Array;
}

const nodesBySteps = new Map<number, NormalNodes>();

/** The nodes for `steps` midpoints, made once per number of steps. */
export function normalNodes(steps = 4000): NormalNodes {
  const known = nodesBySteps.get(steps);
  if (known) return known;
  const [z, weight] = [new Float64Array(steps), new Float64Array(steps)];
  let total = 0;
  for (let i = 0; i < steps; i++) {
    z[i] = -8 + (16 * (i + 0.5)) / steps;
    weight[i] = Math.exp(-0.5 * z[i] * z[i]);
    total += weight[i];
  }
  for (let i = 0; i < steps; i++) weight[i] /= total;
  const nodes = { z, weight };
  nodesBySteps.set(steps, nodes);
  return nodes;
}

/** E over mazes of f(u), u ~ N(0, sd^2), by normalNodes; reports/power-plan.ts and pilot-fit.ts integrate with it. */
export function mazeMean(f: (u: number) => number, sd: number, steps = 4000): number {
  const { z, weight } = normalNodes(steps);
  let sum = 0;
  for (let i = 0; i < steps; i++) sum += weight[i] * f(sd * z[i]);
  return sum;
}

/** E over mazes of expit(base + u), u ~ N(0, sd^2): an agent's success rate over the population of mazes. */
export function populationRate(base: number, sd: number): number {
  return mazeMean((u) => expit(base + u), sd);
}

/** The sweep's shape: how many mazes, repeats a maze, the spread of their difficulty and the base rate (logit). */
export type SweepShape = Pick<CalibrationSetting, 'mazes' | 'repeats' | 'mazeSd' | 'base'>;

/**
 * Outcomes of agents with these advantages (logit) on the same simulated mazes, by maze, repeat and agent: each
 * maze's difficulty drawn once, shared by every agent and repeat (the strong maze effect the tests must survive).
 */
export function simulateOutcomes(s: SweepShape, effects: readonly number[], rng: Rng): boolean[][][] {
  const mazes: boolean[][][] = [];
  for (let m = 0; m < s.mazes; m++) {
    const u = s.mazeSd * normal(rng);
    const ps = effects.map((e) => expit(s.base + e + u));
    const repeats: boolean[][] = [];
    for (let r = 0; r < s.repeats; r++) repeats.push(ps.map((p) => rng.chance(p)));
    mazes.push(repeats);
  }
  return mazes;
}

/** One simulated maze of a sweep: its pairs' discordant counts and agent a's successes. */
export interface SimulatedMaze extends MazePairs {
  successesA: number;
}

/** One simulated sweep of a (effect) and b, its mazes in the order they are run. */
export function simulateSweep(s: CalibrationSetting, rng: Rng): SimulatedMaze[] {
  return simulateOutcomes(s, [s.effect, 0], rng).map((repeats) => ({
    pairs: s.repeats,
    onlyA: repeats.filter(([a, b]) => a && !b).length,
    onlyB: repeats.filter(([a, b]) => b && !a).length,
    successesA: repeats.filter(([a]) => a).length,
  }));
}

/** The figures of `sweeps` simulated sweeps under one setting, seeded. */
export function calibrate(s: CalibrationSetting, sweeps: number, seed = 1): CalibrationFigures {
  const rng = createRng(seed);
  const trueRate = populationRate(s.base + s.effect, s.mazeSd);
  const trueDifference = trueRate - populationRate(s.base, s.mazeSd);
  let [rejected, differenceCovered, rateCovered] = [0, 0, 0];
  for (let i = 0; i < sweeps; i++) {
    const mazes = simulateSweep(s, rng);
    if (signFlipTest(mazes.map((m) => m.onlyA - m.onlyB)).p <= 0.05) rejected++;
    const d = pairedDifference(mazes);
    if (d && d.low <= trueDifference && trueDifference <= d.high) differenceCovered++;
    const rate = mazeRate(mazes.map((m) => ({ num: m.successesA, den: m.pairs })));
    if (rate && rate.low <= trueRate && trueRate <= rate.high) rateCovered++;
  }
  return {
    ...s,
    sweeps,
    rejected: rejected / sweeps,
    differenceCoverage: differenceCovered / sweeps,
    rateCoverage: rateCovered / sweeps,
    trueDifference,
    trueRate,
  };
}

/** A pooled count per unit (wall bumps per move attempt, say) on simulated mazes, and each run's share of it. */
export interface RatioSetting extends SweepShape {
  /** A run's denominator (its move attempts) is drawn uniformly from [minDen, maxDen], apart from the maze. */
  minDen: number;
  maxDen: number;
}

export interface RatioFigures extends RatioSetting {
  sweeps: number;
  /** The true ratio: E over mazes of the per-unit chance (denominators are independent of it). */
  truth: number;
  /** Share of sweeps whose 95% interval of the pooled share (sum num / sum den; mazeRate) held the truth. */
  pooledCoverage: number;
  /** Share of sweeps whose 95% interval of the mean of the runs' own shares (clusterShare) held the truth. */
  meanCoverage: number;
  /** The same mean's plain interval (clusterMean, clipped to [0, 1]: mean efficiency's). */
  plainCoverage: number;
}

/**
 * The coverage of the maze-level intervals of a share (reports/behaviour-statistics.ts: a share of moves by mazeRate,
 * a mean of runs' shares by clusterShare; and clusterMean's plain interval, mean efficiency's). Each maze draws its
 * per-unit chance expit(base + u), u ~ N(0, mazeSd^2); each of its runs draws a denominator and counts
 * Binomial(den, chance).
 */
export function calibrateRatio(s: RatioSetting, sweeps: number, seed = 1): RatioFigures {
  const rng = createRng(seed);
  const truth = populationRate(s.base, s.mazeSd);
  const covers = (i: { low: number; high: number } | null) => (i && i.low <= truth && truth <= i.high ? 1 : 0);
  let [pooled, mean, plain] = [0, 0, 0];
  for (let i = 0; i < sweeps; i++) {
    const [sums, shares]: ClusterSums[][] = [[], []];
    for (let m = 0; m < s.mazes; m++) {
      const chance = expit(s.base + s.mazeSd * normal(rng));
      const [total, share] = [
        { num: 0, den: 0 },
        { num: 0, den: 0 },
      ];
      for (let r = 0; r < s.repeats; r++) {
        const den = s.minDen + Math.floor(rng.next() * (s.maxDen - s.minDen + 1));
        let num = 0;
        for (let k = 0; k < den; k++) if (rng.chance(chance)) num++;
        [total.num, total.den, share.num, share.den] = [
          total.num + num,
          total.den + den,
          share.num + num / den,
          share.den + 1,
        ];
      }
      sums.push(total);
      shares.push(share);
    }
    pooled += covers(mazeRate(sums));
    mean += covers(clusterShare(shares));
    plain += covers(clusterMean(shares, 0, 1));
  }
  const [pooledCoverage, meanCoverage, plainCoverage] = [pooled, mean, plain].map((c) => c / sweeps);
  return { ...s, sweeps, truth, pooledCoverage, meanCoverage, plainCoverage };
}
