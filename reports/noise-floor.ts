// A suite's noise floor: how far one agent's success on the same mazes moves from one set of runs to another. Each
// maze keeps its several runs of one agent; a resampled repeat set takes one of them per maze (mazes held fixed, so
// only run-to-run luck is in it), and a gap compares two different runs per maze. A gain smaller than the gap's 95%
// bound is within what running the same agent twice gives; an agent nearer 50% per maze varies more than this one.
import { createRng, type Rng } from '../core/maze/rng.ts';
import { suiteNumber } from '../core/maze/suites.ts';

export interface NoiseFloor {
  /** Runs per maze the floor was made from, and the resampling (seeded, so it is made again exactly). */
  repeats: number;
  resamples: number;
  seed: number;
  mazes: number;
  /** Success over all runs, and the spread of a repeat set's success: its sd and its 2.5th-97.5th percentiles. */
  success_rate: number;
  sd: number;
  low: number;
  high: number;
  /** 95% of the gaps between two repeat sets (different runs on each maze) are at most this, in success rate. */
  gap95: number;
}

/** The q-quantile of sorted values (type 7, R's default: linear between order statistics). */
function quantile(sorted: readonly number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return sorted[lo] + (h - lo) * ((sorted[Math.min(lo + 1, sorted.length - 1)] ?? sorted[lo]) - sorted[lo]);
}

/** One repeat set's success, and a gap between two sets drawing different runs of each maze. */
function draw(mazes: ReadonlyArray<readonly boolean[]>, rng: Rng): { rate: number; gap: number } {
  let [one, other] = [0, 0];
  for (const runs of mazes) {
    const i = rng.int(runs.length);
    const j = (i + 1 + rng.int(runs.length - 1)) % runs.length; // another run of the same maze
    one += Number(runs[i]);
    other += Number(runs[j]);
  }
  const n = mazes.length;
  return { rate: one / n, gap: Math.abs(one - other) / n };
}

/**
 * The noise floor of runs `mazes[m][r]` (success of run r on maze m): every maze needs the same number of runs, at
 * least 2. RangeError otherwise, naming the maze.
 */
export function noiseFloor(mazes: ReadonlyArray<readonly boolean[]>, resamples = 2_000, seed = 1): NoiseFloor {
  const repeats = mazes[0]?.length ?? 0;
  if (repeats < 2) throw new RangeError('a noise floor needs at least 2 runs of every maze');
  mazes.forEach((runs, m) => {
    if (runs.length !== repeats) throw new RangeError(`maze ${m} has ${runs.length} runs, not ${repeats}`);
  });
  const rng = createRng(seed);
  const rates: number[] = [];
  const gaps: number[] = [];
  for (let i = 0; i < resamples; i++) {
    const { rate, gap } = draw(mazes, rng);
    rates.push(rate);
    gaps.push(gap);
  }
  const mean = rates.reduce((s, x) => s + x, 0) / resamples;
  const sd = Math.sqrt(rates.reduce((s, x) => s + (x - mean) ** 2, 0) / (resamples - 1));
  rates.sort((a, b) => a - b);
  gaps.sort((a, b) => a - b);
  const all = mazes.flat();
  return {
    repeats,
    resamples,
    seed,
    mazes: mazes.length,
    success_rate: suiteNumber(all.filter(Boolean).length / all.length),
    sd: suiteNumber(sd),
    low: suiteNumber(quantile(rates, 0.025)),
    high: suiteNumber(quantile(rates, 0.975)),
    gap95: suiteNumber(quantile(gaps, 0.95)),
  };
}

const points = (x: number) => `${(x * 100).toFixed(1)}`;

/** The floor in a sentence, as `stats` prints it beside a suite sweep and `suite show` under the reference. */
export function noiseFloorText(suite: string, f: Omit<NoiseFloor, 'repeats' | 'resamples' | 'seed'>, repeats: number) {
  return (
    `noise floor of suite ${suite}: sets of runs of the random baseline on these mazes (${repeats} runs a maze, one ` +
    `drawn per maze) scored ${points(f.success_rate)}% with sd ${points(f.sd)} points (95% of sets within ` +
    `[${points(f.low)}%, ${points(f.high)}%]), and two sets differed by at most ${points(f.gap95)} points 95% of ` +
    'the time: a gain smaller than that is what running one agent twice can give (an agent nearer 50% on each ' +
    'maze varies more; a deterministic one not at all).'
  );
}
