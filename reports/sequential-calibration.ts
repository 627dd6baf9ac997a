// Calibration by simulation of known truth for a sweep watched after every maze (reports/confidence-sequence.ts):
// the sweeps of reports/calibration.ts fed one maze at a time, stopped at the first maze where the sequence is
// decided. Counts the error under continuous monitoring, the mazes saved, coverage at the stop, the fixed-M sign-flip
// test's power for comparison, and how often naive repeated looks with the fixed-sample test reject identical agents.
import { createRng } from '../core/maze/rng.ts';
import { populationRate, simulateSweep, type CalibrationSetting, type SimulatedMaze } from './calibration.ts';
import { ConfidenceSequence } from './confidence-sequence.ts';
import { signFlipTest } from './maze-inference.ts';

/** No stop before this many mazes: a sweep's first mazes say little of how mazes vary. */
const MIN_SEQUENTIAL_MAZES = 5;
/** The fixed-sample test's level, for the power and the naive looks. */
const LEVEL = 0.05;

export interface SequentialFigures extends CalibrationSetting {
  sweeps: number;
  minMazes: number;
  /** Share of sweeps the sequence decided (either way) by the last maze: under effect 0, the type-I error. */
  decided: number;
  /** Share decided for b: with a better than b, decisions the wrong way. */
  decidedForB: number;
  /** Mean mazes run before the stop (or all of them), over the most a sweep may run (settings.mazes). */
  mazesUsed: number;
  /** 1 - mazesUsed: the share of mazes, and so of runs, a stop saves. */
  saved: number;
  /** Share of sweeps whose interval at the stop held the true difference. */
  coverage: number;
  /** Share of sweeps the 5% sign-flip test on all the mazes rejected. */
  fixedRejected: number;
  /** Share of sweeps the 5% sign-flip test rejected at some look from minMazes to the last maze. */
  naiveRejected: number;
  trueDifference: number;
}

/** A maze's difference in success rate: (a's successes - b's) / repeats, in [-1, 1]. */
const difference = (m: SimulatedMaze) => (m.onlyA - m.onlyB) / m.pairs;

/** The sequence run over a sweep's mazes until decided (never before minMazes): its interval and verdict then. */
function watch(mazes: readonly SimulatedMaze[], minMazes: number, alpha: number) {
  const cs = new ConfidenceSequence(alpha);
  for (const m of mazes) {
    cs.add(difference(m));
    if (cs.interval.mazes >= minMazes && cs.decided() !== null) break;
  }
  return { ...cs.interval, verdict: cs.decided() };
}

/** Whether the fixed-sample sign-flip test rejects at any look from minMazes on: what peeking without a CS does. */
function rejectsAtSomeLook(mazes: readonly SimulatedMaze[], minMazes: number): boolean {
  const counts = mazes.map((m) => m.onlyA - m.onlyB);
  for (let n = minMazes; n <= counts.length; n++) if (signFlipTest(counts.slice(0, n)).p <= LEVEL) return true;
  return false;
}

/** The figures of `sweeps` simulated sweeps of at most s.mazes mazes under one setting, seeded. */
export function calibrateSequential(
  s: CalibrationSetting,
  sweeps: number,
  seed = 1,
  minMazes = MIN_SEQUENTIAL_MAZES,
  alpha = 0.05,
): SequentialFigures {
  const rng = createRng(seed);
  const trueDifference = populationRate(s.base + s.effect, s.mazeSd) - populationRate(s.base, s.mazeSd);
  let [decided, forB, mazesRun, covered, fixed, naive] = [0, 0, 0, 0, 0, 0];
  for (let i = 0; i < sweeps; i++) {
    const mazes = simulateSweep(s, rng);
    const stop = watch(mazes, minMazes, alpha);
    if (stop.verdict !== null) decided++;
    if (stop.verdict === 'b') forB++;
    mazesRun += stop.mazes;
    if (stop.low <= trueDifference && trueDifference <= stop.high) covered++;
    if (signFlipTest(mazes.map((m) => m.onlyA - m.onlyB)).p <= LEVEL) fixed++;
    if (rejectsAtSomeLook(mazes, minMazes)) naive++;
  }
  const mazesUsed = mazesRun / (sweeps * s.mazes);
  return {
    ...s,
    sweeps,
    minMazes,
    decided: decided / sweeps,
    decidedForB: forB / sweeps,
    mazesUsed,
    saved: 1 - mazesUsed,
    coverage: covered / sweeps,
    fixedRejected: fixed / sweeps,
    naiveRejected: naive / sweeps,
    trueDifference,
  };
}
