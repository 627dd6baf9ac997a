// A small deterministic minimizer for the pilot fit (reports/pilot-fit.ts): Nelder and Mead's (1965) simplex with
// the usual coefficients (reflect 1, expand 2, contract 1/2, shrink 1/2), restarted from its best point until a
// restart no longer improves it, since one run can stall on a collapsed simplex. No gradients, no randomness.

export interface Minimum {
  x: number[];
  value: number;
  evaluations: number;
}

type Vertex = { x: number[]; f: number };

const along = (from: number[], to: number[], t: number) => from.map((v, i) => v + t * (to[i] - v));

/** One simplex run from `start`, edges of length `step`, until the values and the simplex shrink below tolerance. */
function simplexRun(f: (x: number[]) => number, start: number[], step: number, maxEvaluations: number): Minimum {
  let evaluations = 0;
  const at = (x: number[]): Vertex => {
    evaluations++;
    return { x, f: f(x) };
  };
  const simplex = [at(start), ...start.map((_, i) => at(start.map((v, j) => (i === j ? v + step : v))))];
  const n = start.length;
  while (evaluations < maxEvaluations) {
    simplex.sort((a, b) => a.f - b.f);
    const [best, worst] = [simplex[0], simplex[n]];
    const size = Math.max(...simplex.map((v) => Math.max(...v.x.map((c, i) => Math.abs(c - best.x[i])))));
    if (worst.f - best.f <= 1e-12 * (1 + Math.abs(best.f)) && size < 1e-9) break;
    const centroid = start.map((_, i) => simplex.slice(0, n).reduce((s, v) => s + v.x[i], 0) / n);
    const reflected = at(along(centroid, worst.x, -1));
    if (reflected.f < best.f) {
      const expanded = at(along(centroid, worst.x, -2));
      simplex[n] = expanded.f < reflected.f ? expanded : reflected;
    } else if (reflected.f < simplex[n - 1].f) simplex[n] = reflected;
    else {
      const inside = reflected.f < worst.f;
      const contracted = at(along(centroid, worst.x, inside ? -0.5 : 0.5));
      if (contracted.f < (inside ? reflected.f : worst.f)) simplex[n] = contracted;
      else for (let k = 1; k <= n; k++) simplex[k] = at(along(best.x, simplex[k].x, 0.5));
    }
  }
  simplex.sort((a, b) => a.f - b.f);
  return { x: simplex[0].x, value: simplex[0].f, evaluations };
}

/** The minimum of f near `start`: simplex runs, each restarted from the last one's best, until one gains nothing. */
export function nelderMead(f: (x: number[]) => number, start: number[], step = 0.5, maxEvaluations = 20_000): Minimum {
  let result = simplexRun(f, start, step, maxEvaluations);
  let evaluations = result.evaluations;
  for (let restart = 0; restart < 10 && evaluations < maxEvaluations; restart++) {
    const next = simplexRun(f, result.x, step / 4, maxEvaluations - evaluations);
    evaluations += next.evaluations;
    const gained = result.value - next.value;
    if (next.value < result.value) result = next;
    if (!(gained > 1e-10 * (1 + Math.abs(result.value)))) break;
  }
  return { ...result, evaluations };
}
