// Calibration by simulation of known truth: sweeps of two agents on M mazes with a strong maze effect (difficulty
// drawn on the logit scale), r repeats a maze; counts how often the 5% sign-flip test rejects identical agents
// (type-I error) and how often the 95% intervals cover the true rate and difference. bench/calibration.ts prints the
// full figures; the test suite runs fewer sweeps with the same code.
import { createRng, type Rng } from '../core/maze/rng.ts';
import { mazeRate, pairedDifference, signFlipTest, type MazePairs } from './maze-inference.ts';

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

/** The logistic function: a rate from the logit scale. */
export const expit = (x: number) => 1 / (1 + Math.exp(-x));

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

/** One simulated maze: a's and b's pairs as maze-inference.ts takes them, and a's successes. */
export interface SimulatedMaze extends MazePairs {
  successesA: number;
}

/** One simulated sweep: per maze, a's successes and the pairs' discordant counts. */
export function simulateSweep(s: CalibrationSetting, rng: Rng): SimulatedMaze[] {
  const mazes: SimulatedMaze[] = [];
  for (let m = 0; m < s.mazes; m++) {
    const u = s.mazeSd * normal(rng);
    const [pa, pb] = [expit(s.base + s.effect + u), expit(s.base + u)];
    const maze = { pairs: s.repeats, onlyA: 0, onlyB: 0, successesA: 0 };
    for (let r = 0; r < s.repeats; r++) {
      const [a, b] = [rng.chance(pa), rng.chance(pb)];
      if (a) maze.successesA++;
      if (a && !b) maze.onlyA++;
      if (b && !a) maze.onlyB++;
    }
    mazes.push(maze);
  }
  return mazes;
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
