// The maze-clustered bootstrap: runs on one maze are not independent draws, so whole mazes are resampled with
// replacement, keeping every run of each (a one-stage cluster bootstrap; resampling runs within mazes would count
// their spread twice: Davison & Hinkley 1997, section 3.8; Field & Welsh 2007, JRSS B 69:369). Every statistic is a
// ratio of sums, so a maze is two numbers; the interval is the 2.5th-97.5th percentile of the resamples where it is
// defined. Seeded (sfc32, core/maze/rng.ts): the same data and seed give the same interval.
import { sfc32State } from '../core/maze/rng.ts';

/** One maze's share of a ratio statistic: the sum of the numerator and of the denominator over its runs. */
export interface ClusterSums {
  num: number;
  den: number;
}

export interface BootstrapInterval {
  low: number;
  high: number;
  /** Resamples drawn, and those where the statistic was defined (a denominator above 0). */
  resamples: number;
  defined: number;
}

/** The number of resamples unless a caller asks for another; reported with every interval. */
export const DEFAULT_RESAMPLES = 2_000;
/** The seed unless a caller asks for another; reported with every interval. */
export const DEFAULT_SEED = 1;

/**
 * The 95% percentile interval of sum(num) / sum(den) over clusters drawn with replacement; null when fewer than two
 * clusters have data (den > 0) or fewer than half the resamples define the statistic.
 */
export function clusterBootstrap(
  clusters: readonly ClusterSums[],
  resamples = DEFAULT_RESAMPLES,
  seed = DEFAULT_SEED,
): BootstrapInterval | null {
  return clusterBootstraps([clusters], resamples, seed)[0];
}

/**
 * clusterBootstrap of one or two statistics over the same clusters (the same length and order: a group's success
 * and its efficiency by maze), from one set of draws: each interval is the one clusterBootstrap gives alone with this
 * seed, as the same seed draws the same mazes, at the cost of one.
 */
export function clusterBootstraps(
  sets: ReadonlyArray<readonly ClusterSums[]>,
  resamples = DEFAULT_RESAMPLES,
  seed = DEFAULT_SEED,
): Array<BootstrapInterval | null> {
  const m = sets[0]?.length ?? 0;
  if (sets.length > 2 || sets.some((s) => s.length !== m))
    throw new RangeError('clusterBootstraps needs one or two lists of one length');
  // one maze (or one with any data) says nothing of how mazes vary: no interval rather than a point
  const live = sets.map((s) => s.filter((c) => c.den > 0).length >= 2);
  if (!live.includes(true)) return sets.map(() => null);
  // typed arrays, two scalar sums and the stream inlined: 2,000 resamples of 1,000 mazes are 2 million draws; each
  // draw is the index createRng(seed).int(m) gives (floor(u32 / 2^32 * m)), so the intervals are the plain loop's
  // with one list, the second sums repeat the first's and are not read
  const second = sets[1] ?? sets[0];
  const [num0, den0] = [Float64Array.from(sets[0], (x) => x.num), Float64Array.from(sets[0], (x) => x.den)];
  const [num1, den1] = [Float64Array.from(second, (x) => x.num), Float64Array.from(second, (x) => x.den)];
  const stats = [new Float64Array(resamples), new Float64Array(resamples)];
  const defined = [0, 0];
  // sfc32 on signed 32-bit integers (| 0 keeps the low 32 bits >>> 0 keeps, and V8 keeps them small integers: twice
  // as fast); the output read unsigned
  let [a, b, c, d] = sfc32State(seed).map((x) => x | 0);
  for (let r = 0; r < resamples; r++) {
    let sn0 = 0,
      sd0 = 0,
      sn1 = 0,
      sd1 = 0;
    for (let i = 0; i < m; i++) {
      const t = (a + b + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) | 0;
      const j = Math.floor(((t >>> 0) / 4294967296) * m);
      sn0 += num0[j];
      sd0 += den0[j];
      sn1 += num1[j];
      sd1 += den1[j];
    }
    if (sd0 > 0) stats[0][defined[0]++] = sn0 / sd0;
    if (sd1 > 0) stats[1][defined[1]++] = sn1 / sd1;
  }
  return sets.map((_, k) => {
    const B = defined[k];
    if (!live[k] || B < resamples / 2) return null;
    const sorted = stats[k].subarray(0, B).sort();
    return { low: sorted[Math.floor(0.025 * B)], high: sorted[Math.ceil(0.975 * B) - 1], resamples, defined: B };
  });
}

/** Sums per cluster key, in the order keys first appear. */
export function clusterSums<T>(items: readonly T[], key: (t: T) => string, sums: (t: T) => ClusterSums): ClusterSums[] {
  const byKey = new Map<string, ClusterSums>();
  for (const t of items) {
    const k = key(t);
    const s = sums(t);
    const c = byKey.get(k) ?? { num: 0, den: 0 };
    c.num += s.num;
    c.den += s.den;
    byKey.set(k, c);
  }
  return [...byKey.values()];
}
