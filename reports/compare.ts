// Two agents of a sweep on the same mazes, settings and repeats: the 2x2
// table of outcomes with McNemar's exact test (from the sweep_pairs view),
// and a paired bootstrap of the mean efficiency difference over the pairs
// both solved (seeded, so the interval is reproducible). Pairs of runs that
// exactly repeat a deterministic pair count once, in the test and the
// bootstrap alike (sweep_run_pairs), and the notes say so. The differences,
// one per pair, are read in keyset pages (the Data API's 1 MiB per response).
import type { Sql } from '../lambdas/store/sql.ts';
import { readPaged } from '../lambdas/store/pages.ts';
import { InvalidInputError } from '../lambdas/engine/errors.ts';
import { createRng } from '../lambdas/maze/rng.ts';
import { repeatsNote } from './repeats.ts';

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
  /** Run pairs left out because they repeat a counted pair exactly (deterministic repeats). */
  copiedPairs: number;
  /** How repeats were counted, in words; empty when every run is its own observation. */
  notes: string[];
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
  copied_pairs: unknown;
}

export async function compareAgents(
  db: Sql,
  sweep: string,
  a: string,
  b: string,
  resamples = 10_000,
  seed = 1,
): Promise<Comparison> {
  const counts = (
    await db.query<{ label: string; runs: unknown; independent: unknown; repeats: number }>(
      `SELECT label, count(*) AS runs, count(*) FILTER (WHERE independent) AS independent,
              (SELECT repeats FROM sweeps WHERE id = $1) AS repeats
       FROM sweep_runs WHERE sweep_id = $1 GROUP BY label ORDER BY label`,
      [sweep],
    )
  ).rows;
  const labels = counts.map((r) => r.label);
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
    await db.query<PairRow>('SELECT * FROM sweep_pairs WHERE sweep_id = $1 AND label_a = $2 AND label_b = $3', [
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
    await readPaged<{ experiment_a: string; experiment_b: string; d: number }>(
      async (last, limit) =>
        (
          await db.query<{ experiment_a: string; experiment_b: string; d: number }>(
            `SELECT experiment_a, experiment_b, eff_a::float8 - eff_b::float8 AS d FROM sweep_run_pairs
             WHERE sweep_id = $1 AND label_a = $2 AND label_b = $3 AND ok_a AND ok_b
               AND (experiment_a, experiment_b) > ($4::text, $5::text)
             ORDER BY experiment_a, experiment_b LIMIT $6`,
            [sweep, first, second, last?.experiment_a ?? '', last?.experiment_b ?? '', limit],
          )
        ).rows,
    )
  ).map((r) => (swap ? -Number(r.d) : Number(r.d)));
  const copiedPairs = Number(row.copied_pairs);
  const collapsed = new Map(
    [a, b].flatMap((label) => {
      const c = counts.find((r) => r.label === label)!;
      const note = repeatsNote({ label, runs: Number(c.runs), independent: Number(c.independent) }, c.repeats);
      return note === null ? [] : [[label, note] as const];
    }),
  );
  const notes = [...collapsed.values()];
  if (copiedPairs > 0)
    notes.push(
      `${copiedPairs} of ${Number(row.pairs) + copiedPairs} pairs of runs repeat a counted pair exactly ` +
        `and are left out: ${Number(row.pairs)} pairs`,
    );
  else if (collapsed.size === 1) {
    // one side is a copy each repeat, the other is not: each repeat is still a new pair
    const other = collapsed.has(a) ? b : a;
    notes.push(`all ${Number(row.pairs)} pairs count: each repeat of ${other} is an observation of its own`);
  }
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
    copiedPairs,
    notes,
    efficiency: {
      pairs: diffs.length,
      meanDiff: diffs.length > 0 ? mean(diffs) : null,
      low95: low,
      high95: high,
      resamples,
    },
  };
}
