// Two agents of a sweep on the same mazes, settings and repeats: the 2x2
// table of outcomes with McNemar's exact test (from the sweep_pairs view),
// and a paired bootstrap of the mean efficiency difference over the pairs
// both solved (seeded, so the interval is reproducible).
import type { Database } from '../lambdas/store/database.ts';
import { InvalidInputError } from '../lambdas/engine/errors.ts';
import { createRng } from '../lambdas/maze/rng.ts';

export interface Comparison {
  sweep: string;
  a: string;
  b: string;
  pairs: number;
  bothSolved: number;
  onlyA: number;
  onlyB: number;
  neither: number;
  mcnemarP: number;
  efficiency: {
    pairs: number;
    meanDiff: number | null;
    low95: number | null;
    high95: number | null;
    resamples: number;
  };
}

/** The counts of a sweep_pairs row this reads (numbers, or numeric text: they go through Number()). */
interface PairRow {
  pairs: unknown;
  both_solved: unknown;
  only_a: unknown;
  only_b: unknown;
  neither: unknown;
  mcnemar_p: unknown;
}

export async function compareAgents(
  db: Database,
  sweep: string,
  a: string,
  b: string,
  resamples = 10_000,
  seed = 1,
): Promise<Comparison> {
  const labels = (
    await db.pool.query<{ label: string }>('SELECT DISTINCT label FROM sweep_runs WHERE sweep_id = $1 ORDER BY label', [
      sweep,
    ])
  ).rows.map((r) => r.label);
  if (labels.length === 0) throw new InvalidInputError('sweep', sweep, `no runs in sweep "${sweep}"`);
  for (const [field, label] of [
    ['a', a],
    ['b', b],
  ] as const) {
    if (!labels.includes(label))
      throw new InvalidInputError(
        field,
        label,
        `agent "${label}" is not in sweep "${sweep}"; its agents are: ${labels.join(', ')}`,
      );
  }
  if (a === b) throw new InvalidInputError('b', b, 'compare two different agents');
  const [first, second] = a < b ? [a, b] : [b, a];
  const row = (
    await db.pool.query<PairRow>('SELECT * FROM sweep_pairs WHERE sweep_id = $1 AND label_a = $2 AND label_b = $3', [
      sweep,
      first,
      second,
    ])
  ).rows[0];
  if (!row)
    throw new InvalidInputError(
      'sweep',
      sweep,
      `agents "${a}" and "${b}" share no maze, setting and repeat in sweep "${sweep}"`,
    );
  const swap = first !== a;
  const diffs = (
    await db.pool.query<{ d: number }>(
      `SELECT x.efficiency::float8 - y.efficiency::float8 AS d FROM sweep_runs x JOIN sweep_runs y
       ON x.sweep_id = y.sweep_id AND x.maze_generator = y.maze_generator AND x.maze_size = y.maze_size
      AND x.maze_seed = y.maze_seed AND x.settings = y.settings AND x.repeat = y.repeat
     WHERE x.sweep_id = $1 AND x.label = $2 AND y.label = $3 AND x.goal_found AND y.goal_found`,
      [sweep, a, b],
    )
  ).rows.map((r) => Number(r.d));
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  let low: number | null = null,
    high: number | null = null;
  if (diffs.length > 0) {
    const rng = createRng(seed);
    const means = Array.from({ length: resamples }, () =>
      mean(Array.from(diffs, () => diffs[rng.int(diffs.length)])),
    ).sort((x, y) => x - y);
    low = means[Math.floor(0.025 * resamples)];
    high = means[Math.ceil(0.975 * resamples) - 1];
  }
  return {
    sweep,
    a,
    b,
    pairs: Number(row.pairs),
    bothSolved: Number(row.both_solved),
    onlyA: Number(swap ? row.only_b : row.only_a),
    onlyB: Number(swap ? row.only_a : row.only_b),
    neither: Number(row.neither),
    mcnemarP: Number(row.mcnemar_p),
    efficiency: {
      pairs: diffs.length,
      meanDiff: diffs.length > 0 ? mean(diffs) : null,
      low95: low,
      high95: high,
      resamples,
    },
  };
}
