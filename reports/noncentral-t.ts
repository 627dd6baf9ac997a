// The noncentral t distribution, for the power of a t test: its CDF by Lenth's (1989) series, algorithm AS 243
// (Applied Statistics 38, 185-189; what R's pt(q, df, ncp) evaluates), and the normal CDF that series needs, by the
// incomplete gamma function. reports/power-plan.ts plans with it; test/power-plan.test.ts checks it against
// tabulated values and R's.
import { incompleteBeta, lnGamma } from './student-t.ts';

const TINY = 1e-300;

/** Q(a, x), the regularized upper incomplete gamma function: series below a + 1, continued fraction above (NR 6.2). */
function upperGamma(a: number, x: number): number {
  if (x <= 0) return 1;
  const front = Math.exp(-x + a * Math.log(x) - lnGamma(a));
  if (x < a + 1) {
    let [term, sum, n] = [1 / a, 1 / a, a];
    while (Math.abs(term) > Math.abs(sum) * 1e-17) {
      n++;
      term *= x / n;
      sum += term;
    }
    return 1 - front * sum;
  }
  let [b, c, d] = [x + 1 - a, 1 / TINY, 1 / (x + 1 - a)];
  let h = d;
  for (let i = 1; i <= 300; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    d = 1 / (Math.abs(d) < TINY ? TINY : d);
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    h *= d * c;
    if (Math.abs(d * c - 1) < 1e-16) break;
  }
  return front * h;
}

/** P(Z <= x) for a standard normal Z: Phi(-|x|) = Q(1/2, x^2 / 2) / 2, so the far tail keeps its digits. */
export function normalCdf(x: number): number {
  const lower = 0.5 * upperGamma(0.5, (x * x) / 2);
  return x >= 0 ? 1 - lower : lower;
}

/**
 * AS 243's sum for t >= 0: P(0 < T <= t), T noncentral t (df, del), as a Poisson mixture of incomplete beta
 * functions, the odd and even terms kept apart; it stops once the Poisson mass left bounds the error below 1e-12.
 */
function lenthSum(t: number, df: number, del: number): number {
  const x = (t * t) / (t * t + df);
  if (x <= 0) return 0;
  const lambda = del * del;
  let p = 0.5 * Math.exp(-0.5 * lambda);
  let q = Math.sqrt(2 / Math.PI) * p * del;
  let left = lambda < 2e-7 ? -0.5 * Math.expm1(-0.5 * lambda) : 0.5 - p; // the Poisson mass not yet summed
  let a = 0.5;
  const b = 0.5 * df;
  const rxb = Math.pow(1 - x, b);
  const lnBeta = 0.5 * Math.log(Math.PI) + lnGamma(b) - lnGamma(0.5 + b);
  let xodd = incompleteBeta(x, a, b);
  let godd = 2 * rxb * Math.exp(a * Math.log(x) - lnBeta);
  let xeven = b * x < Number.EPSILON ? b * x : 1 - rxb;
  let geven = b * x * rxb;
  let sum = p * xodd + q * xeven;
  for (let it = 1; it <= 1000; it++) {
    a += 1;
    xodd -= godd;
    xeven -= geven;
    godd *= (x * (a + b - 1)) / a;
    geven *= (x * (a + b - 0.5)) / (a + 0.5);
    p *= lambda / (2 * it);
    q *= lambda / (2 * it + 1);
    sum += p * xodd + q * xeven;
    left -= p;
    if (left <= 0 && it > 1) break;
    if (Math.abs(2 * left * (xodd - godd)) < 1e-12) break;
  }
  return sum;
}

/**
 * P(T <= t) for T noncentral t with df > 0 degrees of freedom and noncentrality ncp. Beyond the series' range
 * (df over 400,000, or ncp^2 so large that exp(-ncp^2 / 2) underflows) it takes Abramowitz & Stegun's normal
 * approximation 26.7.10, as R does; a t test's power there is 1 or 0 to many digits.
 */
export function noncentralTCdf(t: number, df: number, ncp: number): number {
  if (!(df > 0) || Number.isNaN(t) || !Number.isFinite(ncp)) {
    throw new RangeError(`noncentralTCdf needs df > 0 and finite t, ncp (t ${t}, df ${df}, ncp ${ncp})`);
  }
  if (t === Infinity) return 1;
  if (t === -Infinity) return 0;
  // P(T <= t; ncp) = 1 - P(T <= -t; -ncp): the series is for t >= 0
  const flip = t < 0;
  const [tt, del] = flip ? [-t, -ncp] : [t, ncp];
  let lower: number;
  if (df > 4e5 || del * del > 2 * Math.LN2 * 1021) {
    const s = 1 / (4 * df);
    lower = normalCdf((tt * (1 - s) - del) / Math.sqrt(1 + tt * tt * 2 * s));
  } else lower = Math.min(1, lenthSum(tt, df, del) + normalCdf(-del));
  return flip ? 1 - lower : lower;
}
