// Reference formulas for the statistics views, written out here
// independently of the SQL (migration 005) they check.

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
