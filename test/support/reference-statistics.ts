// Reference formulas written out independently of what they check: the statistics views' SQL (migration 005), the
// maze-level tests and the power plan's approximation (reports/).
import { lnGamma } from '../../reports/student-t.ts';

export function wilson(k: number, n: number, z = 1.959963984540054): [number, number] {
  const p = k / n,
    d = 1 + (z * z) / n;
  const centre = p + (z * z) / (2 * n);
  const half = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [Math.max(0, (centre - half) / d), Math.min(1, (centre + half) / d)];
}

function choose(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

export function allKSucceed(c: number, n: number, k: number): number {
  return choose(c, k) / choose(n, k);
}

export function mcnemar(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let tail = 0;
  for (let i = 0; i <= Math.min(b, c); i++) tail += choose(n, i) / 2 ** n;
  return Math.min(1, 2 * tail);
}

/** The exact sign-flip test, by enumerating every one of the 2^m sign assignments of the per-maze differences. */
export function signFlip(d: number[]): number {
  const observed = Math.abs(d.reduce((s, x) => s + x, 0));
  let extreme = 0;
  for (let mask = 0; mask < 2 ** d.length; mask++) {
    const sum = d.reduce((s, x, i) => s + (mask & (1 << i) ? -x : x), 0);
    if (Math.abs(sum) >= observed) extreme++;
  }
  return extreme / 2 ** d.length;
}

const logBinomial = (n: number, k: number, p: number) =>
  lnGamma(n + 1) -
  lnGamma(k + 1) -
  lnGamma(n - k + 1) +
  (k > 0 ? k * Math.log(p) : 0) +
  (n > k ? (n - k) * Math.log(1 - p) : 0);

/**
 * The exact power of the sign-flip test with one run a maze: each maze's difference is +1, -1 or 0, so the test is
 * the exact two-sided sign test on the mazes that differ. Summed over how many differ (binomial in the mazes) and
 * how many of those favour a: no simulation, no approximation but the quadrature of P(+1) and P(-1).
 */
export function signTestPower(plus: number, minus: number, mazes: number, alpha = 0.05): number {
  const [differ, favourA] = [plus + minus, plus / (plus + minus)];
  let power = 0;
  for (let k = 1; k <= mazes; k++) {
    const tails = new Float64Array(k + 2); // tails[x] = P(Bin(k, 1/2) >= x)
    for (let x = k; x >= 0; x--) tails[x] = tails[x + 1] + Math.exp(logBinomial(k, x, 0.5));
    let reject = 0;
    for (let x = 0; x <= k; x++) {
      if (2 * tails[Math.max(x, k - x)] <= alpha) reject += Math.exp(logBinomial(k, x, favourA));
    }
    power += Math.exp(logBinomial(mazes, k, differ)) * reject;
  }
  return power;
}
