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
