// What the sweep report shows, straight from the statistics views: per agent
// and maze the success rate with its Wilson interval, efficiency, tokens and
// cost; pass^k; paired comparisons; and the runs that did not succeed. The
// runs (one row each) are read in keyset pages for the Data API's 1 MiB per
// response; the statistics have a row per agent and maze, and come in one.
import type { Sql } from '../lambdas/store/sql.ts';
import { readPaged } from '../lambdas/store/pages.ts';
import { InvalidInputError } from '../lambdas/engine/errors.ts';

export interface ReportData {
  sweep: { id: string; cells: number; repeats: number; created_at: string; description: string | null };
  stats: Array<Record<string, unknown>>;
  passK: Array<Record<string, unknown>>;
  pairs: Array<Record<string, unknown>>;
  runs: Array<{
    experiment_id: string;
    label: string;
    maze_generator: string;
    maze_size: number;
    maze_seed: number;
    repeat: number;
    status: string;
    goal_found: boolean;
    efficiency: number | null;
    actions: number;
    stop_reason: string | null;
    tokens: number;
  }>;
}

interface SweepRow {
  id: string;
  cells: number;
  repeats: number;
  created_at: Date;
  description: string | null;
}

/** A sweep_runs row: the view's numeric columns may arrive as text and are converted below. */
type RunRow = Omit<ReportData['runs'][number], 'maze_size' | 'maze_seed' | 'efficiency' | 'tokens'> & {
  maze_size: unknown;
  maze_seed: unknown;
  efficiency: unknown;
  tokens: unknown;
};

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export async function loadReport(db: Sql, sweepId: string): Promise<ReportData> {
  const sweep = (
    await db.query<SweepRow>(
      "SELECT id, cells, repeats, created_at, spec ->> 'description' AS description FROM sweeps WHERE id = $1",
      [sweepId],
    )
  ).rows[0];
  if (!sweep)
    throw new InvalidInputError('sweep', sweepId, `no sweep named "${sweepId}"; list them with: ariadne list --sweeps`);
  const [stats, passK, pairs, runs] = await Promise.all([
    db.query<Record<string, unknown>>(
      'SELECT * FROM sweep_stats WHERE sweep_id = $1 ORDER BY label, maze_generator, maze_size',
      [sweepId],
    ),
    db.query<Record<string, unknown>>(
      'SELECT * FROM sweep_pass_k WHERE sweep_id = $1 ORDER BY label, maze_generator, maze_size, k',
      [sweepId],
    ),
    db.query<Record<string, unknown>>('SELECT * FROM sweep_pairs WHERE sweep_id = $1 ORDER BY label_a, label_b', [
      sweepId,
    ]),
    readPaged<RunRow & { cell_index: number }>(
      async (last, limit) =>
        (
          await db.query<RunRow & { cell_index: number }>(
            `SELECT experiment_id, label, maze_generator, maze_size, maze_seed, repeat, status, goal_found, efficiency,
                    actions, stop_reason,
                    coalesce(input_tokens, 0) + coalesce(output_tokens, 0) AS tokens, cell_index
             FROM sweep_runs
             WHERE sweep_id = $1 AND ($2::text IS NULL OR (label, maze_generator, maze_size, cell_index, repeat)
                                                          > ($2::text, $3::text, $4::int, $5::int, $6::int))
             ORDER BY label, maze_generator, maze_size, cell_index, repeat LIMIT $7`,
            last
              ? [sweepId, last.label, last.maze_generator, Number(last.maze_size), last.cell_index, last.repeat, limit]
              : [sweepId, null, null, null, null, null, limit],
          )
        ).rows,
    ),
  ]);
  const numeric = (rows: Array<Record<string, unknown>>) =>
    rows.map((r) =>
      Object.fromEntries(
        Object.entries(r).map(([k, v]) => [
          k,
          typeof v === 'string' &&
          /^-?\d+(\.\d+)?(e-?\d+)?$/.test(v) &&
          !['label', 'maze_generator', 'sweep_id', 'label_a', 'label_b'].includes(k)
            ? Number(v)
            : v,
        ]),
      ),
    );
  return {
    sweep: {
      id: sweep.id,
      cells: sweep.cells,
      repeats: sweep.repeats,
      created_at: new Date(sweep.created_at).toISOString(),
      description: sweep.description,
    },
    stats: numeric(stats.rows),
    passK: numeric(passK.rows),
    pairs: numeric(pairs.rows),
    runs: runs.map(({ cell_index: _cell, ...r }) => ({
      ...r,
      maze_size: Number(r.maze_size),
      maze_seed: Number(r.maze_seed),
      efficiency: num(r.efficiency),
      tokens: Number(r.tokens),
    })),
  };
}
