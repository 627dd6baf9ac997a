// Calibration by simulation of known truth for a sweep watched after every maze (reports/confidence-sequence.ts):
// the sweeps of reports/calibration.ts fed one maze at a time to each sequence (hedged capital and PrPl-EB, the same
// sweeps), stopped at the first maze where it is decided. Counts the error under continuous monitoring, mazes saved,
// coverage and width at the stop, the fixed-M sign-flip test's power, and naive repeated looks' error.
import { createRng } from '../core/maze/rng.ts';
import { populationRate, simulateSweep, type CalibrationSetting, type SimulatedMaze } from './calibration.ts';
import { ConfidenceSequence, SEQUENCE_METHODS, type SequenceMethod } from './confidence-sequence.ts';
import { signFlipTest } from './maze-inference.ts';

/** No stop before this many mazes: a sweep's first mazes say little of how mazes vary. */
const MIN_SEQUENTIAL_MAZES = 5;
/** The fixed-sample test's level, for the power and the naive looks. */
const LEVEL = 0.05;

/** One sequence's figures over the sweeps. */
export interface SequenceFigures {
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
  /** Mean width of the interval at the stop, on d. */
  width: number;
}

export interface SequentialFigures extends CalibrationSetting {
  sweeps: number;
  minMazes: number;
  /** Each sequence watched over the same sweeps. */
  methods: Record<SequenceMethod, SequenceFigures>;
  /** Share of sweeps the 5% sign-flip test on all the mazes rejected. */
  fixedRejected: number;
  /** Share of sweeps the 5% sign-flip test rejected at some look from minMazes to the last maze. */
  naiveRejected: number;
  trueDifference: number;
}

/** A maze's difference in success rate: (a's successes - b's) / repeats, in [-1, 1]. */
const difference = (m: SimulatedMaze) => (m.onlyA - m.onlyB) / m.pairs;

/** The sequence run over a sweep's mazes until decided (never before minMazes): its interval and verdict then. */
function watch(mazes: readonly SimulatedMaze[], minMazes: number, alpha: number, method: SequenceMethod) {
  const cs = new ConfidenceSequence(alpha, method);
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

/** Running sums of one sequence's stops, turned into figures at the end. */
class StopTally {
  private decided = 0;
  private forB = 0;
  private mazesRun = 0;
  private covered = 0;
  private widths = 0;
  private sweeps = 0;

  constructor(private readonly trueDifference: number) {}

  count(stop: ReturnType<typeof watch>): void {
    this.sweeps++;
    if (stop.verdict !== null) this.decided++;
    if (stop.verdict === 'b') this.forB++;
    this.mazesRun += stop.mazes;
    if (stop.low <= this.trueDifference && this.trueDifference <= stop.high) this.covered++;
    this.widths += stop.high - stop.low;
  }

  figures(maxMazes: number): SequenceFigures {
    const mazesUsed = this.mazesRun / (this.sweeps * maxMazes);
    return {
      decided: this.decided / this.sweeps,
      decidedForB: this.forB / this.sweeps,
      mazesUsed,
      saved: 1 - mazesUsed,
      coverage: this.covered / this.sweeps,
      width: this.widths / this.sweeps,
    };
  }
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
  const tallies = SEQUENCE_METHODS.map(() => new StopTally(trueDifference));
  let [fixed, naive] = [0, 0];
  for (let i = 0; i < sweeps; i++) {
    const mazes = simulateSweep(s, rng);
    SEQUENCE_METHODS.forEach((method, k) => tallies[k].count(watch(mazes, minMazes, alpha, method)));
    if (signFlipTest(mazes.map((m) => m.onlyA - m.onlyB)).p <= LEVEL) fixed++;
    if (rejectsAtSomeLook(mazes, minMazes)) naive++;
  }
  const methods = Object.fromEntries(
    SEQUENCE_METHODS.map((method, k) => [method, tallies[k].figures(s.mazes)]),
  ) as Record<SequenceMethod, SequenceFigures>;
  return {
    ...s,
    sweeps,
    minMazes,
    methods,
    fixedRejected: fixed / sweeps,
    naiveRejected: naive / sweeps,
    trueDifference,
  };
}
