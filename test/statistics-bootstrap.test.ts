// The maze-clustered bootstrap (reports/bootstrap.ts) against answers computed another way: with one run per maze
// it is the ordinary bootstrap of a proportion, whose resampled mean is exactly Binomial(m, p)/m; with clusters of
// different sizes, its exact distribution comes from enumerating every one of the m^m equally likely resamples.
import { describe, expect, it } from 'vitest';
import { clusterBootstrap, clusterBootstraps, type ClusterSums } from '../reports/bootstrap.ts';
import { createRng } from '../core/maze/rng.ts';

/** The exact percentile bounds of a discrete distribution: the smallest x with P(X <= x) >= q (q 2.5%, 97.5%). */
function exactBounds(atoms: Array<[number, number]>): { low: number; high: number; cdf: number[] } {
  const sorted = [...atoms].sort((a, b) => a[0] - b[0]);
  const cdf: number[] = [];
  let c = 0;
  for (const [, p] of sorted) cdf.push((c += p));
  const quantile = (q: number) => sorted[cdf.findIndex((v) => v >= q - 1e-12)][0];
  return { low: quantile(0.025), high: quantile(0.975), cdf };
}

/** No atom's cumulative probability within `gap` of 2.5% or 97.5%: Monte Carlo percentiles land on the exact ones. */
const clearOfBounds = (cdf: number[], gap: number) =>
  cdf.every((v) => Math.abs(v - 0.025) > gap && Math.abs(v - 0.975) > gap);

function binomialAtoms(m: number, k: number): Array<[number, number]> {
  const p = k / m;
  const atoms: Array<[number, number]> = [];
  let choose = 1;
  for (let i = 0; i <= m; i++) {
    atoms.push([i / m, choose * p ** i * (1 - p) ** (m - i)]);
    choose = (choose * (m - i)) / (i + 1);
  }
  return atoms;
}

describe('the maze-clustered bootstrap', () => {
  it('with one run per maze is the ordinary bootstrap: its bounds are the Binomial(m, k/m)/m percentiles', () => {
    for (const [m, k] of [
      [20, 14],
      [26, 12],
      [12, 3],
    ]) {
      const exact = exactBounds(binomialAtoms(m, k));
      expect(clearOfBounds(exact.cdf, 0.006)).toBe(true); // else a Monte Carlo bound may fall on the next atom
      const clusters: ClusterSums[] = Array.from({ length: m }, (_, i) => ({ num: i < k ? 1 : 0, den: 1 }));
      const b = clusterBootstrap(clusters, 40_000, 7)!;
      expect({ m, k, low: b.low, high: b.high }).toEqual({ m, k, low: exact.low, high: exact.high });
      expect([b.resamples, b.defined]).toEqual([40_000, 40_000]);
    }
  });

  it('with clusters of different sizes matches the exact distribution over all m^m resamples', () => {
    // five mazes: runs and successes per maze (a ratio of sums: successes / runs)
    const clusters: ClusterSums[] = [
      { num: 3, den: 3 },
      { num: 0, den: 2 },
      { num: 1, den: 4 },
      { num: 2, den: 2 },
      { num: 0, den: 1 },
    ];
    const m = clusters.length;
    const counts = new Map<number, number>();
    for (let code = 0; code < m ** m; code++) {
      let num = 0,
        den = 0;
      for (let i = 0, c = code; i < m; i++, c = Math.floor(c / m)) {
        num += clusters[c % m].num;
        den += clusters[c % m].den;
      }
      const ratio = Math.round((num / den) * 1e9) / 1e9;
      counts.set(ratio, (counts.get(ratio) ?? 0) + 1);
    }
    const exact = exactBounds([...counts].map(([x, n]) => [x, n / m ** m]));
    // 3 standard errors of a 40,000-resample percentile
    expect(clearOfBounds(exact.cdf, 0.0025)).toBe(true);
    const b = clusterBootstrap(clusters, 40_000, 3)!;
    expect(b.low).toBeCloseTo(exact.low, 9);
    expect(b.high).toBeCloseTo(exact.high, 9);
    // wider than an interval that takes the 12 runs as independent draws of 6 successes
    const asRuns = clusterBootstrap(
      Array.from({ length: 12 }, (_, i) => ({ num: i < 6 ? 1 : 0, den: 1 })),
      40_000,
      3,
    )!;
    expect(b.high - b.low).toBeGreaterThan(asRuns.high - asRuns.low);
  });

  it('is seeded; leaves out resamples where the statistic is undefined; none without clusters', () => {
    const clusters = [
      { num: 1, den: 1 },
      { num: 0, den: 1 },
      { num: 1, den: 2 },
    ];
    expect(clusterBootstrap(clusters, 500, 11)).toEqual(clusterBootstrap(clusters, 500, 11));
    expect(clusterBootstrap([], 500, 1)).toBeNull();
    // efficiency where one maze has successes: the mazes' spread is unknown, no interval (not a point)
    expect(
      clusterBootstrap(
        [
          { num: 0.4, den: 2 },
          { num: 0, den: 0 },
        ],
        2_000,
        1,
      ),
    ).toBeNull();
    expect(clusterBootstrap([{ num: 1, den: 3 }], 2_000, 1)).toBeNull();
    // one success in three mazes: the resamples that draw none of the successes are left out
    const rare = [
      { num: 0.5, den: 1 },
      { num: 0, den: 0 },
      { num: 0, den: 0 },
    ];
    const some = clusterBootstrap([...rare, { num: 0.25, den: 1 }, { num: 0.75, den: 1 }], 2_000, 1)!;
    expect(some.defined).toBeLessThan(2_000);
    expect(some.defined).toBeGreaterThan(1_000);
    expect([some.low, some.high]).toEqual([0.25, 0.75]);
  });

  it('drawn in one pass for several statistics gives each the interval of the plain loop over createRng', () => {
    // the plain loop the fast one replaced: createRng(seed).int(m) per draw, sorted by value
    const plain = (clusters: ClusterSums[], resamples: number, seed: number) => {
      if (clusters.filter((c) => c.den > 0).length < 2) return null;
      const rng = createRng(seed);
      const stats: number[] = [];
      for (let b = 0; b < resamples; b++) {
        let num = 0,
          den = 0;
        for (let i = 0; i < clusters.length; i++) {
          const c = clusters[rng.int(clusters.length)];
          num += c.num;
          den += c.den;
        }
        if (den > 0) stats.push(num / den);
      }
      if (stats.length < resamples / 2) return null;
      stats.sort((x, y) => x - y);
      const B = stats.length;
      return { low: stats[Math.floor(0.025 * B)], high: stats[Math.ceil(0.975 * B) - 1], resamples, defined: B };
    };
    const rng = createRng(5);
    for (const m of [2, 3, 17, 250]) {
      const success = Array.from({ length: m }, () => ({ num: rng.int(4), den: 3 }));
      const efficiency = success.map((c) =>
        c.num === 0 ? { num: 0, den: 0 } : { num: rng.next() * c.num, den: c.num },
      );
      const empty = success.map(() => ({ num: 0, den: 0 }));
      for (const seed of [1, 9, 123_456]) {
        const both = [
          ...clusterBootstraps([success, efficiency], 1_000, seed),
          ...clusterBootstraps([empty], 1_000, seed),
        ];
        expect(both).toEqual([plain(success, 1_000, seed), plain(efficiency, 1_000, seed), null]);
        expect(clusterBootstrap(efficiency, 1_000, seed)).toEqual(plain(efficiency, 1_000, seed));
        expect(clusterBootstraps([empty, success], 1_000, seed)).toEqual([null, plain(success, 1_000, seed)]);
      }
    }
    expect(() => clusterBootstraps([[{ num: 1, den: 1 }], []])).toThrow(/one length/);
    expect(() => clusterBootstraps([[], [], []])).toThrow(/one or two/);
  });
});
