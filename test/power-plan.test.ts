// The power plan (reports/power-plan.ts) against published and independently computed values, brute-force
// simulation and its own inverse; the pilot fit (reports/pilot-fit.ts) against lme4 and known truth; and a short
// calibration by simulation (reports/power-calibration.ts; npm run bench -- power prints the full one). Values
// marked "R" were computed with R 4.2.2 (pt, pnorm, power.t.test) and lme4 1.1-31 (glmer, nAGQ = 25).
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../core/errors.ts';
import { createRng } from '../core/maze/rng.ts';
import { mazeMean, populationRate, simulateSweep } from '../reports/calibration.ts';
import { expit } from '../reports/maze-inference.ts';
import { noncentralTCdf, normalCdf } from '../reports/noncentral-t.ts';
import { DEFAULT_MAZE_SD, fitPilot, MAX_FIT_MAZE_SD, type MazeCounts } from '../reports/pilot-fit.ts';
import { calibratePower } from '../reports/power-calibration.ts';
import {
  detectableDifference,
  differenceMoments,
  effectFor,
  fewestTestMazes,
  mazesFor,
  MAX_PLANNED_MAZES,
  optionsTable,
  pairedTPower,
  plannedPower,
} from '../reports/power-plan.ts';
import { studentTQuantile } from '../reports/student-t.ts';
import { signTestPower } from './support/reference-statistics.ts';

describe('the noncentral t distribution', () => {
  it("matches the tabulated values of Burkardt's test_values (Mathematica's NoncentralStudentTDistribution)", () => {
    // [t, df, ncp, P(T <= t)], from student_noncentral_cdf_values; R's pt agrees with every one to 5e-11
    const table: Array<[number, number, number, number]> = [
      [3, 1, 0, 0.8975836176504333],
      [3, 3, 0, 0.9711655571887813],
      [3, 1, 0.5, 0.8231218864],
      [3, 3, 0.5, 0.9363471834],
      [3, 2, 1, 0.8335594263],
      [3, 1, 2, 0.5248571617],
      [3, 3, 2, 0.6800271741],
      [3, 1, 4, 0.20590131975],
      [3, 3, 4, 0.2074730718],
      [15, 15, 7, 0.9981130072],
      [15, 25, 7, 0.9998391562],
      [0.05, 1, 1, 0.168610566972],
      [0.05, 3, 1, 0.1701041003],
      [4, 10, 2, 0.9247683363],
      [4, 10, 4, 0.4659802096],
      [5, 10, 3, 0.8979689357],
      [6, 10, 4, 0.868800735],
    ];
    for (const [t, df, ncp, p] of table) expect(Math.abs(noncentralTCdf(t, df, ncp) - p)).toBeLessThan(1e-9);
  });

  it("matches R's pt(q, df, ncp) where a power computation looks: both tails, fractional df, the far range", () => {
    const r: Array<[number, number, number, number]> = [
      [1.97, 99, 2.8, 0.20413722850669691],
      [-1.97, 99, 2.8, 1.1804005918270022e-6],
      [2.5, 7, -1.5, 0.99960228720284705],
      [-2, 12, -3, 0.83287042621484919],
      [1.984, 250, 2.9, 0.18025461016186017],
      [-1.984, 250, 2.9, 5.7795743291233492e-7],
      [40, 10, 38.5, 0.52215206434178218],
      [1, 1000, 1.2, 0.42066209239525321],
      [2, 5.5, 0.3, 0.91868166465121182],
      [45, 10, 40, 0.64921901956706485], // past the series: Abramowitz & Stegun 26.7.10, as R
    ];
    for (const [t, df, ncp, p] of r) expect(Math.abs(noncentralTCdf(t, df, ncp) - p)).toBeLessThan(1e-12);
  });

  it("gives R's pnorm in both tails", () => {
    const r: Array<[number, number]> = [
      [-10, 7.6198530241605269e-24],
      [-3, 0.0013498980316300946],
      [-1, 0.15865525393145705],
      [0.5, 0.69146246127401301],
      [2, 0.97724986805182079],
      [8, 0.99999999999999933],
    ];
    for (const [x, p] of r) expect(Math.abs(normalCdf(x) - p) / p).toBeLessThan(1e-13);
  });

  it("gives power.t.test's power: R's documented example and paired tests (R, strict = TRUE)", () => {
    // power.t.test(n = 20, delta = 1): 0.8689528, the upper tail only (strict = FALSE), df 38, ncp sqrt(10)
    expect(1 - noncentralTCdf(studentTQuantile(0.975, 38), 38, Math.sqrt(10))).toBeCloseTo(0.8689528017, 9);
    expect(pairedTPower({ mean: 0.5, sd: 1 }, 30)).toBeCloseTo(0.753964715744, 9);
    expect(pairedTPower({ mean: 0.9, sd: 1.1 }, 12, 0.01)).toBeCloseTo(0.435317224544, 9);
  });
});

/** Mean and variance of d = (a's successes - b's) / repeats over many simulated mazes, with their standard errors. */
function simulatedMoments(setting: { base: number; mazeSd: number; effect: number; repeats: number }, mazes: number) {
  const sweep = simulateSweep({ ...setting, mazes }, createRng(11));
  const d = sweep.map((m) => (m.onlyA - m.onlyB) / setting.repeats);
  const mean = d.reduce((s, x) => s + x, 0) / mazes;
  const variance = d.reduce((s, x) => s + (x - mean) ** 2, 0) / (mazes - 1);
  const fourth = d.reduce((s, x) => s + (x - mean) ** 4, 0) / mazes;
  return {
    mean,
    variance,
    meanSe: Math.sqrt(variance / mazes),
    varianceSe: Math.sqrt((fourth - variance ** 2) / mazes),
  };
}

describe('the variance model of the per-maze difference', () => {
  it('gives the mean and variance a brute-force simulation of 200,000 mazes finds (within 4 standard errors)', () => {
    for (const setting of [
      { base: 0.5, mazeSd: 1.5, effect: 0.7, repeats: 3 },
      { base: -1, mazeSd: 2, effect: 1.2, repeats: 1 },
      { base: 1, mazeSd: 0.5, effect: 0.4, repeats: 5 },
    ]) {
      const model = differenceMoments(setting);
      const sim = simulatedMoments(setting, 200_000);
      expect(Math.abs(model.mean - sim.mean)).toBeLessThan(4 * sim.meanSe);
      expect(Math.abs(model.sd ** 2 - sim.variance)).toBeLessThan(4 * sim.varianceSe);
      expect(model.mean).toBeCloseTo(
        populationRate(setting.base + setting.effect, setting.mazeSd) - populationRate(setting.base, setting.mazeSd),
        12,
      );
    }
  });

  it('splits the variance: repeats shrink only the within-maze share', () => {
    const one = differenceMoments({ base: 0, mazeSd: 2, effect: 1, repeats: 1 });
    const four = differenceMoments({ base: 0, mazeSd: 2, effect: 1, repeats: 4 });
    expect(four.betweenMazes).toBeCloseTo(one.betweenMazes, 12);
    expect(four.withinMaze).toBeCloseTo(one.withinMaze / 4, 12);
    expect(one.betweenMazes).toBeGreaterThan(0);
  });

  it('solves for the logit effect that gives a difference in rate', () => {
    for (const [difference, base, mazeSd] of [
      [0.1, 0, 2],
      [0.15, 1, 1],
      [0.3, -2, 0],
    ]) {
      const effect = effectFor({ difference, base, mazeSd });
      expect(populationRate(base + effect, mazeSd) - populationRate(base, mazeSd)).toBeCloseTo(difference, 9);
    }
  });
});

describe("the planned power against the sign-flip test's exact power with one run a maze", () => {
  // with r = 1 the sign-flip test is the exact sign test on the mazes that differ, whose power is a finite sum
  it('is within 1.5 points at the planned mazes, where the plain t test overstates it by 2 points or more', () => {
    for (const [difference, base, mazeSd] of [
      [0.1, 0, 1],
      [0.1, 1, 2],
      [0.15, 0, 2],
      [0.15, 1, 1],
      [0.2, -1, 1.5],
    ]) {
      const plan = mazesFor({ difference, base, mazeSd, repeats: 1 });
      const [pa, pb] = [(u: number) => expit(base + plan.effect + u), (u: number) => expit(base + u)];
      const plus = mazeMean((u) => pa(u) * (1 - pb(u)), mazeSd);
      const minus = mazeMean((u) => pb(u) * (1 - pa(u)), mazeSd);
      const exact = signTestPower(plus, minus, plan.mazes);
      expect(Math.abs(plan.power - exact)).toBeLessThan(0.015);
      const plain = plannedPower({ difference, base, mazeSd, repeats: 1, mazes: plan.mazes, continuity: false });
      expect(plain - exact).toBeGreaterThan(0.02);
    }
  });
});

describe('the number of mazes for a power', () => {
  const model = { base: 0.5, mazeSd: 1.5, repeats: 2 };

  it('is the fewest: the planned power reaches the target there and not one maze sooner', () => {
    for (const difference of [0.06, 0.1, 0.2]) {
      const plan = mazesFor({ ...model, difference });
      expect(plan.capped).toBe(false);
      expect(plan.power).toBeGreaterThanOrEqual(0.8);
      expect(plannedPower({ ...model, difference, mazes: plan.mazes })).toBe(plan.power);
      expect(plannedPower({ ...model, difference, mazes: plan.mazes - 1 })).toBeLessThan(0.8);
      expect(plan.runs).toBe(2 * plan.mazes * model.repeats);
    }
  });

  it('falls as the difference grows and rises with the power asked for', () => {
    const byDifference = [0.04, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3].map(
      (d) => mazesFor({ ...model, difference: d }).mazes,
    );
    byDifference.slice(1).forEach((m, i) => expect(m).toBeLessThan(byDifference[i]));
    const byPower = [0.5, 0.7, 0.8, 0.9, 0.95, 0.99].map(
      (power) => mazesFor({ ...model, difference: 0.1, power }).mazes,
    );
    byPower.slice(1).forEach((m, i) => expect(m).toBeGreaterThan(byPower[i]));
  });

  it('never plans fewer mazes than the sign-flip test needs to reject at all, and says when it hits the cap', () => {
    expect(fewestTestMazes(0.05)).toBe(6); // 2 / 2^6 = 0.031 <= 0.05 < 2 / 2^5
    const big = { base: -1, mazeSd: 1.5, difference: 0.6, repeats: 20 };
    expect(mazesFor(big)).toMatchObject({ mazes: 6, capped: false });
    expect(pairedTPower(mazesFor(big).moments, 5)).toBeGreaterThan(0.95); // the t test alone would take 5
    expect(plannedPower({ ...big, mazes: 5 })).toBe(0);
    const tiny = mazesFor({ ...model, difference: 0.001 });
    expect(tiny).toMatchObject({ mazes: MAX_PLANNED_MAZES, capped: true });
    expect(tiny.power).toBeLessThan(0.8);
  });

  it('is inverted by detectableDifference, both ways round', () => {
    for (const mazes of [12, 40, 150, 600]) {
      const difference = detectableDifference({ ...model, mazes })!;
      expect(mazesFor({ ...model, difference }).mazes).toBe(mazes);
    }
    for (const difference of [0.07, 0.12, 0.25]) {
      const { mazes } = mazesFor({ ...model, difference });
      expect(detectableDifference({ ...model, mazes })!).toBeLessThanOrEqual(difference);
      expect(detectableDifference({ ...model, mazes: mazes - 1 })!).toBeGreaterThan(difference);
    }
    expect(detectableDifference({ ...model, mazes: 5 })).toBeNull();
  });

  it('shows the options: repeats cut the mazes but not the runs when mazes vary', () => {
    const options = optionsTable({ difference: 0.1, base: 0, mazeSd: 2 });
    expect(options.map((o) => o.repeats)).toEqual([1, 2, 3, 5]);
    options.slice(1).forEach((o, i) => {
      expect(o.mazes).toBeLessThan(options[i].mazes);
      expect(o.runs).toBeGreaterThan(options[i].runs);
    });
    for (const o of options) expect(o.runs).toBe(2 * o.mazes * o.repeats);
  });

  it('refuses impossible inputs, naming the field', () => {
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof InvalidInputError ? e.field : 'not InvalidInputError';
      }
      return 'none';
    };
    expect(refusal(() => mazesFor({ ...model, difference: 0.5 }))).toBe('difference'); // b's rate is 0.59
    expect(refusal(() => mazesFor({ ...model, difference: -0.1 }))).toBe('difference');
    expect(refusal(() => mazesFor({ ...model, difference: 0.1, repeats: 0 }))).toBe('repeats');
    expect(refusal(() => mazesFor({ ...model, difference: 0.1, power: 1 }))).toBe('power');
    expect(refusal(() => mazesFor({ ...model, difference: 0.1, alpha: 0 }))).toBe('alpha');
    expect(refusal(() => mazesFor({ ...model, difference: 0.1, mazeSd: -1 }))).toBe('mazeSd');
    expect(refusal(() => detectableDifference({ ...model, mazes: 1.5 }))).toBe('mazes');
  });
});

const counts = (successes: number[], runs: number | number[]): MazeCounts[] =>
  successes.map((s, i) => ({ successes: s, runs: Array.isArray(runs) ? runs[i] : runs }));

/** The log likelihood of the saturated model, sum log dbinom(s, n, s / n): lme4's nAGQ > 1 logLik leaves it out. */
const saturated = (cs: readonly MazeCounts[]) =>
  cs.reduce((sum, { successes: s, runs: n }) => {
    const choose = Array.from({ length: s }, (_, k) => Math.log((n - k) / (k + 1))).reduce((a, b) => a + b, 0);
    return sum + choose + (s > 0 ? s * Math.log(s / n) : 0) + (s < n ? (n - s) * Math.log(1 - s / n) : 0);
  }, 0);

describe('the pilot fit of the maze model', () => {
  it("equals lme4's glmer(cbind(s, n - s) ~ 1 + (1 | maze), binomial, nAGQ = 25) (R)", () => {
    const even = counts([0, 1, 4, 3, 2, 4, 0, 1, 3, 2, 4, 1, 0, 3, 2], 4);
    const uneven = counts([1, 5, 0, 2, 3, 6, 0, 2, 1, 4], [2, 6, 3, 5, 3, 8, 1, 4, 6, 4]);
    for (const [pilot, base, sd, logLik] of [
      [even, -0.0000000367, 1.6878453741, -16.0212782935],
      [uneven, 0.2687646676, 1.2918838107, -9.697483259],
    ] as const) {
      const fit = fitPilot({ baseline: pilot });
      expect(fit.base).toBeCloseTo(base, 5);
      expect(fit.mazeSd!).toBeCloseTo(sd, 5);
      expect(fit.logLik - saturated(pilot)).toBeCloseTo(logLik, 5);
    }
  });

  it('equals lme4 with both agents: glmer(cbind(s, n - s) ~ agent + (1 | maze), nAGQ = 25) (R)', () => {
    const baseline = counts([0, 1, 2, 2, 1, 0, 2, 1, 0, 2, 1, 1], 2);
    const candidate = counts([1, 2, 2, 2, 1, 0, 2, 2, 1, 2, 2, 1], 2);
    const fit = fitPilot({ baseline, candidate });
    expect(fit.base).toBeCloseTo(0.2664613901, 5);
    expect(fit.effect!).toBeCloseTo(1.4377770711, 5);
    expect(fit.mazeSd!).toBeCloseTo(1.8397730666, 5);
    expect(fit.logLik - saturated(baseline) - saturated(candidate)).toBeCloseTo(-14.5814772223, 5);
  });
});

/** A simulated pilot of both agents on `mazes` mazes, from reports/calibration.ts's simulator. */
function pilot(truth: { base: number; mazeSd: number; effect: number; repeats: number }, mazes: number, seed: number) {
  const sweep = simulateSweep({ ...truth, mazes }, createRng(seed));
  return {
    candidate: sweep.map((m) => ({ successes: m.successesA, runs: truth.repeats })),
    baseline: sweep.map((m) => ({ successes: m.successesA - m.onlyA + m.onlyB, runs: truth.repeats })),
  };
}

describe('the pilot fit on simulated pilots of known truth', () => {
  // tolerances are about 4 standard errors: over 20 seeded pilots of 2,000 mazes at 3 runs the estimates spread by
  // 0.03 (base) and 0.05 (mazeSd, effect), and their means were within 0.02 of the truth
  it('recovers base and mazeSd from the baseline alone, and the effect from both agents', () => {
    for (const [truth, seed] of [
      [{ base: 0.5, mazeSd: 1.5, effect: 0.6, repeats: 3 }, 1],
      [{ base: -1, mazeSd: 2.5, effect: 1, repeats: 4 }, 2],
      [{ base: 1, mazeSd: 0.7, effect: 0.4, repeats: 5 }, 3],
    ] as const) {
      const { baseline, candidate } = pilot(truth, 8000, seed);
      const alone = fitPilot({ baseline });
      expect(Math.abs(alone.base - truth.base)).toBeLessThan(0.1);
      expect(Math.abs(alone.mazeSd! - truth.mazeSd)).toBeLessThan(0.12);
      expect(alone.effect).toBeNull();
      const both = fitPilot({ baseline, candidate });
      expect(Math.abs(both.base - truth.base)).toBeLessThan(0.1);
      expect(Math.abs(both.mazeSd! - truth.mazeSd)).toBeLessThan(0.12);
      expect(Math.abs(both.effect! - truth.effect)).toBeLessThan(0.1);
    }
  });

  it('with one run a maze cannot tell the spread from one agent, but can from two agents on the same mazes', () => {
    const truth = { base: 0.3, mazeSd: 2, effect: 0.8, repeats: 1 };
    const { baseline, candidate } = pilot(truth, 20_000, 4);
    const alone = fitPilot({ baseline });
    expect(alone).toMatchObject({ mazeSd: null, assumedMazeSd: DEFAULT_MAZE_SD, effect: null });
    // with the spread fixed, the ML base is the one whose population rate is the pilot's rate
    const rate = baseline.reduce((s, c) => s + c.successes, 0) / baseline.length;
    expect(populationRate(alone.base, DEFAULT_MAZE_SD)).toBeCloseTo(rate, 6);
    expect(fitPilot({ baseline, assumedMazeSd: 0.5 }).assumedMazeSd).toBe(0.5);
    // the two agents' agreement maze by maze carries the spread, under the model's shared maze effect
    const both = fitPilot({ baseline, candidate });
    expect(Math.abs(both.mazeSd! - truth.mazeSd)).toBeLessThan(0.25);
    expect(Math.abs(both.effect! - truth.effect)).toBeLessThan(0.15);
  });

  it('caps the spread when every maze was all-or-nothing (the likelihood rises without end)', () => {
    const fit = fitPilot({ baseline: counts([0, 4, 4, 0, 0, 4, 4, 4, 0, 4], 4) });
    expect(fit.mazeSd).toBe(MAX_FIT_MAZE_SD);
  });

  it('refuses a pilot whose baseline always (or never) succeeded, or whose sides differ in mazes', () => {
    expect(() => fitPilot({ baseline: counts([3, 3, 3], 3) })).toThrow(InvalidInputError);
    expect(() => fitPilot({ baseline: counts([0, 1, 4], 3) })).toThrow(/baseline\[2\]/);
    expect(() => fitPilot({ baseline: counts([1, 2], 3), candidate: counts([1, 2, 0], 3) })).toThrow(/candidate/);
    expect(() => fitPilot({ baseline: counts([1], 3) })).toThrow(/baseline has 1 mazes/);
  });
});

describe('the plan against simulation (short; npm run bench -- power runs 16 settings of 1,000 sweeps)', () => {
  // 1,000 sweeps: the achieved power's standard error is at most sqrt(0.8 x 0.2 / 1000) = 1.3 points, so 2.58 of
  // them (3.3 points, 99% two-sided) go beside the 5 points allowed; the size may pass 5% by 2.33 of its 0.7
  const SWEEPS = 1000;
  const margin = 0.05 + 2.58 * Math.sqrt((0.8 * 0.2) / SWEEPS);
  it('reaches the planned power with the exact sign-flip test, and keeps its size at no effect', () => {
    for (const setting of [
      { difference: 0.15, base: 0, mazeSd: 2, repeats: 1 },
      { difference: 0.15, base: 1, mazeSd: 2, repeats: 3 },
    ]) {
      const c = calibratePower(setting, SWEEPS, 7);
      expect(c.plannedPower).toBeGreaterThanOrEqual(0.8);
      expect(Math.abs(c.achievedPower - c.plannedPower)).toBeLessThan(margin);
      expect(c.size).toBeLessThan(0.05 + 2.33 * Math.sqrt((0.05 * 0.95) / SWEEPS));
    }
  });
});
