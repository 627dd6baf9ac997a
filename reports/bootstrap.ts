// The maze-clustered bootstrap: runs on one maze are not independent draws (a hard maze fails every agent and
// every repeat), so an interval that treats them as such is too narrow. We resample whole mazes with replacement
// and keep every run of each maze drawn (a one-stage cluster bootstrap): resampling runs again within the drawn
// mazes would count the within-maze spread twice and widen the interval without cause (Davison & Hinkley 1997,
// Bootstrap Methods and their Application, section 3.8; Field & Welsh 2007, JRSS B 69:369). Every statistic here
// is a ratio of sums over runs (successes / runs, summed efficiency / successes, summed difference / pairs), so a
// maze is two numbers and a resample is a sum. The interval is the percentile interval: the 2.5th and 97.5th
// percentiles of the resampled statistic (sorted[floor(0.025 B)] and sorted[ceil(0.975 B) - 1]), over the
// resamples where it is defined (a resample that drew no success has no mean efficiency). Seeded (sfc32,
// lambdas/maze/rng.ts): the same data and seed give the same interval. With one run per maze it is the ordinary
// bootstrap.
import { createRng } from '../lambdas/maze/rng.ts';

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
  const m = clusters.length;
  // one maze (or one with any data) says nothing of how mazes vary: no interval rather than a point
  if (clusters.filter((c) => c.den > 0).length < 2) return null;
  const rng = createRng(seed);
  const stats: number[] = [];
  for (let b = 0; b < resamples; b++) {
    let num = 0,
      den = 0;
    for (let i = 0; i < m; i++) {
      const c = clusters[rng.int(m)];
      num += c.num;
      den += c.den;
    }
    if (den > 0) stats.push(num / den);
  }
  if (stats.length < resamples / 2) return null;
  stats.sort((x, y) => x - y);
  const B = stats.length;
  return { low: stats[Math.floor(0.025 * B)], high: stats[Math.ceil(0.975 * B) - 1], resamples, defined: B };
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
