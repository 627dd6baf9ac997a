// The maze-level tests and intervals (reports/maze-inference.ts) against independent implementations and published
// tables, and their calibration by simulation of known truth (reports/calibration.ts; npm run bench prints the
// full figures). Reference values marked "SciPy" were computed with SciPy 1.17 (scipy.stats.t.ppf,
// scipy.stats.permutation_test with permutation_type='samples', scipy.stats.beta.ppf).
import { describe, expect, it } from 'vitest';
import { studentTQuantile } from '../reports/student-t.ts';
import {
  clusterMean,
  clusterPositive,
  clusterShare,
  clusterStandardError,
  holm,
  mazeRate,
  pairedDifference,
  signFlipTest,
} from '../reports/maze-inference.ts';
import { calibrate, calibrateRatio } from '../reports/calibration.ts';
import { signFlip } from './support/reference-statistics.ts';

describe('Student t quantiles', () => {
  it('match the published table (0.975 quantile, df 1, 3, 7, 15, 31, 120)', () => {
    const table: Array<[number, number]> = [
      [1, 12.706205],
      [3, 3.182446],
      [7, 2.364624],
      [15, 2.13145],
      [31, 2.039513],
      [120, 1.97993],
    ];
    for (const [df, t] of table) expect(studentTQuantile(0.975, df)).toBeCloseTo(t, 5);
    expect(studentTQuantile(0.025, 7)).toBeCloseTo(-2.364624, 5);
  });
});

describe('the sign-flip test of per-maze differences', () => {
  it('equals SciPy permutation_test on the same differences', () => {
    const scipy: Array<[number[], number]> = [
      [[6, 6, 6, 6], 0.125],
      [[3, -1, 2, 0, 4, 1, 2, 5], 0.046875],
      [[1, 1, 1, 1, 1, 1, -1, 2, 3, 1], 0.017578125],
      [[2, -3, 4, 1, -1, 5, 2, 3, 1, 0, 2, 4], 0.041015625],
    ];
    for (const [d, p] of scipy) expect(signFlipTest(d).p).toBeCloseTo(p, 12);
  });

  it('equals enumeration of every sign assignment on random data', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let k = 0; k < 40; k++) {
      const d = Array.from({ length: 1 + Math.floor(next() * 12) }, () => Math.floor(next() * 9) - 3);
      expect(signFlipTest(d).p).toBeCloseTo(signFlip(d), 12);
    }
  });

  it('never goes below what the number of mazes allows: 4 mazes, 24 pairs all one way, p = 0.125', () => {
    const t = signFlipTest([6, 6, 6, 6]);
    expect(t).toMatchObject({ p: 0.125, mazes: 4, differing: 4, minP: 0.125 });
    // mazes whose pairs agree carry no sign: they do not buy resolution
    expect(signFlipTest([6, 6, 6, 6, 0, 0])).toMatchObject({ p: 0.125, mazes: 6, differing: 4 });
    expect(signFlipTest([0, 0, 0]).p).toBe(1);
  });
});

describe('the maze-level interval of a success rate (Korn-Graubard)', () => {
  // SciPy: beta.ppf on the effective sample, the design effect written out in NumPy from the same definitions
  const scipy: Array<[number[], number[], number, number, number]> = [
    [[6, 6, 6, 6], [6, 6, 6, 6], 0.08791167510523626, 1, 6],
    [[0, 1, 3, 4, 2, 4, 0, 4], [4, 4, 4, 4, 4, 4, 4, 4], 0.17914321570812186, 0.8955785123826414, 3.1201814058956914],
    [[1, 0, 1, 1, 0, 1, 1, 1, 0, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 0.29277665969595124, 0.9536311302248092, 1],
    [[5, 2, 0, 3], [5, 4, 3, 6], 0.050367957585220516, 0.9764913314282265, 2.3629629629629636],
  ];
  it('equals the SciPy computation', () => {
    for (const [ys, ns, low, high, deff] of scipy) {
      const r = mazeRate(ys.map((y, i) => ({ num: y, den: ns[i] })))!;
      expect(r.low).toBeCloseTo(low, 7);
      expect(r.high).toBeCloseTo(high, 7);
      expect(r.designEffect).toBeCloseTo(deff, 9);
    }
  });

  it('does not collapse at 100% and says nothing from one maze', () => {
    const all = mazeRate([1, 2, 3, 4].map(() => ({ num: 6, den: 6 })))!;
    expect(all.high).toBe(1);
    expect(all.low).toBeLessThan(0.5);
    expect(mazeRate([{ num: 6, den: 6 }])).toBeNull();
  });

  it('is wider when repeats on a maze move together than when they do not', () => {
    const together = mazeRate([0, 4, 0, 4, 0, 4, 0, 4].map((y) => ({ num: y, den: 4 })))!;
    const apart = mazeRate([2, 2, 2, 2, 2, 2, 2, 2].map((y) => ({ num: y, den: 4 })))!;
    expect(together.high - together.low).toBeGreaterThan(apart.high - apart.low);
    expect(together.designEffect).toBe(4);
    expect(apart.designEffect).toBe(1);
  });
});

describe('the paired difference and cluster means', () => {
  it('with one pair per maze, is Agresti and Min with t on mazes - 1 df', () => {
    // 20 pairs: 6 only a, 2 only b; the textbook formula, written out: half a pair added to each cell
    const mazes = [
      ...Array.from({ length: 6 }, () => ({ pairs: 1, onlyA: 1, onlyB: 0 })),
      ...Array.from({ length: 2 }, () => ({ pairs: 1, onlyA: 0, onlyB: 1 })),
      ...Array.from({ length: 12 }, () => ({ pairs: 1, onlyA: 0, onlyB: 0 })),
    ];
    const [b, c, n] = [6.5, 2.5, 22];
    const d = (b - c) / n;
    const se = Math.sqrt((b / n + c / n - d * d) / n);
    const r = pairedDifference(mazes)!;
    expect(r.designEffect).toBe(1);
    expect(r.low).toBeCloseTo(d - 2.093024 * se, 5);
    expect(r.high).toBeCloseTo(d + 2.093024 * se, 5);
  });

  it('does not collapse when every pair agrees, and widens with few mazes', () => {
    const agree = (m: number) => pairedDifference(Array.from({ length: m }, () => ({ pairs: 6, onlyA: 0, onlyB: 0 })))!;
    expect(agree(4).low).toBeLessThan(-0.1);
    expect(agree(4).high).toBeGreaterThan(0.1);
    expect(agree(32).high - agree(32).low).toBeLessThan(agree(4).high - agree(4).low);
    const oneWay = pairedDifference([1, 2, 3, 4].map(() => ({ pairs: 6, onlyA: 6, onlyB: 0 })))!;
    expect(oneWay.high).toBe(1);
    expect(oneWay.low).toBeLessThan(0.6);
  });

  it('a cluster mean is the ratio with a t interval over mazes', () => {
    // mazes with means 0.2, 0.4, 0.6: one run each, so the interval is the one-sample t interval
    const r = clusterMean([0.2, 0.4, 0.6].map((x) => ({ num: x, den: 1 })))!;
    const half = 4.302653 * (0.2 / Math.sqrt(3));
    expect(r.low).toBeCloseTo(0.4 - half, 5);
    expect(r.high).toBeCloseTo(0.4 + half, 5);
    expect(
      clusterMean(
        [0.2, 0.4, 0.6].map((x) => ({ num: x, den: 1 })),
        0,
        1,
      )!.low,
    ).toBe(0);
  });
});

describe('the standard error over mazes, as a log gives it beside a mean', () => {
  it("with as many runs on each maze, is the standard error of the mazes' means (Inspect's epochs reduced)", () => {
    // three mazes, two runs each: successes 2, 1, 0 (maze means 1, 0.5, 0); sd of the means 0.5, so 0.5 / sqrt(3)
    const r = clusterStandardError([2, 1, 0].map((k) => ({ num: k, den: 2 })))!;
    expect(r).toMatchObject({ value: 0.5, mazes: 3, n: 6 });
    expect(r.stderr).toBeCloseTo(0.5 / Math.sqrt(3), 12);
    // the same six runs taken as independent: sqrt(p(1-p) / (n-1)) = 0.2236, narrower than the mazes allow
    expect(r.stderr!).toBeGreaterThan(Math.sqrt((0.5 * 0.5) / 5));
  });

  it('gives none for one maze, however many runs, and nothing without runs', () => {
    expect(clusterStandardError([{ num: 3, den: 10 }])).toEqual({ value: 0.3, stderr: null, mazes: 1, n: 10 });
    expect(clusterStandardError([{ num: 0, den: 0 }])).toBeNull();
  });
});

describe('a share or a positive mean over mazes, on the logit or log scale', () => {
  // mazes with means 0.2, 0.4, 0.6, one run each: r = 0.4, standard error 0.2 / sqrt(3), t(0.975, 2 df) = 4.302653
  const se = 0.2 / Math.sqrt(3);
  const three = [0.2, 0.4, 0.6].map((x) => ({ num: x, den: 1 }));

  it('a share: logit(r) +- t se / (r (1 - r)), taken back, inside (0, 1) where the plain one is clipped at 0', () => {
    const half = (4.302653 * se) / (0.4 * 0.6);
    const r = clusterShare(three)!;
    expect(r.low).toBeCloseTo(1 / (1 + Math.exp(-(Math.log(0.4 / 0.6) - half))), 5);
    expect(r.high).toBeCloseTo(1 / (1 + Math.exp(-(Math.log(0.4 / 0.6) + half))), 5);
    expect(r.low).toBeGreaterThan(0);
    expect(r.high).toBeLessThan(1);
  });

  it('a positive mean: r exp(+- t se / r)', () => {
    const r = clusterPositive(three)!;
    expect(r.low).toBeCloseTo(0.4 * Math.exp((-4.302653 * se) / 0.4), 5);
    expect(r.high).toBeCloseTo(0.4 * Math.exp((4.302653 * se) / 0.4), 5);
  });

  it('at 0 or 1 exactly, the plain interval; below 2 mazes, none', () => {
    const zeros = [0, 0, 0].map((x) => ({ num: x, den: 1 }));
    expect(clusterShare(zeros)).toEqual({ low: 0, high: 0, mazes: 3 });
    expect(clusterShare([1, 1].map((x) => ({ num: x, den: 1 })))).toEqual({ low: 1, high: 1, mazes: 2 });
    expect(clusterPositive(zeros)).toEqual({ low: 0, high: 0, mazes: 3 });
    expect(clusterShare([{ num: 0.3, den: 1 }])).toBeNull();
  });
});

describe("Holm's adjustment", () => {
  it("equals R's p.adjust(method = 'holm')", () => {
    // p.adjust(c(0.01, 0.04, 0.03, 0.005), 'holm') = 0.03 0.06 0.06 0.02
    const adjusted = holm([0.01, 0.04, 0.03, 0.005]);
    [0.03, 0.06, 0.06, 0.02].forEach((p, i) => expect(adjusted[i]).toBeCloseTo(p, 12));
    expect(holm([null, 0.2])).toEqual([null, 0.2]);
  });
});

describe('calibration by simulation (a fast version of npm run bench calibration)', () => {
  const sweeps = 400;
  // binomial slack: 5% plus 2.33 standard errors of a rate estimated from `sweeps` sweeps
  const slack = 0.05 + 2.33 * Math.sqrt((0.05 * 0.95) / sweeps);
  for (const mazes of [4, 8, 16, 32]) {
    it(`${mazes} mazes, strong maze effect: the 5% test holds its level and the 95% intervals cover`, () => {
      const none = calibrate({ mazes, repeats: 4, mazeSd: 2, effect: 0, base: 0 }, sweeps, 3);
      expect(none.rejected).toBeLessThanOrEqual(slack);
      expect(none.differenceCoverage).toBeGreaterThanOrEqual(0.93);
      const some = calibrate({ mazes, repeats: 4, mazeSd: 2, effect: 1, base: 1 }, sweeps, 5);
      expect(some.differenceCoverage).toBeGreaterThanOrEqual(0.93);
      expect(some.rateCoverage).toBeGreaterThanOrEqual(0.93);
    });
  }

  it('the test has power where the mazes allow it', () => {
    const clear = calibrate({ mazes: 32, repeats: 4, mazeSd: 2, effect: 2, base: 0 }, 200, 9);
    expect(clear.rejected).toBeGreaterThan(0.8);
  });

  // the behaviour figures' shares: a share of moves (mazeRate) and a mean of runs' shares (clusterShare), runs of
  // 20 to 200 moves, 4 a maze, the per-move chance skewed over mazes (logit sd 1 around 12%)
  const shares = (mazes: number, base: number, mazeSd: number, seed: number) =>
    calibrateRatio({ mazes, repeats: 4, mazeSd, base, minDen: 20, maxDen: 200 }, sweeps, seed);
  for (const mazes of [8, 16, 32])
    it(`${mazes} mazes: the intervals of a share of moves and of a mean of runs' shares cover`, () => {
      const f = shares(mazes, -2, 1, mazes);
      expect(f.pooledCoverage).toBeGreaterThanOrEqual(0.91);
      expect(f.meanCoverage).toBeGreaterThanOrEqual(0.91);
    });

  it('where mazes differ strongly, the logit scale covers better than the plain interval', () => {
    const f = shares(8, -3, 2, 8);
    expect(f.meanCoverage - f.plainCoverage).toBeGreaterThan(0.03);
  });
});
