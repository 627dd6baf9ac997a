// Two to eight experiments on one maze, for the compare page: each one's numbers and its path (the cell after
// every executed action, packed as base64 Uint16 like the replay's), and the maze once. Runs on different mazes
// are refused by name: an overlaid path means nothing on another maze. Each run's varied settings come with it
// (observation, memory, ...), so two runs of one agent under two formats are never shown as one agent's.
import { z } from 'zod';
import type { Sql } from '../../lambdas/store/sql.ts';
import { readPaged } from '../../lambdas/store/pages.ts';
import { PgStore } from '../../lambdas/store/pg-store.ts';
import { b64, packMaze } from '../../reports/replay-data.ts';
import { ExperimentNotFoundError } from '../../lambdas/engine/errors.ts';
import { EXPERIMENT_ID_PATTERN } from '../../lambdas/machine/contracts.ts';
import { InvalidRequestError } from '../request-params.ts';

const MAX_RUNS = 8;

export const compareQuery = z
  .object({
    ids: z
      .string()
      .max(MAX_RUNS * 65, `at most ${MAX_RUNS} ids`)
      .transform((s) => s.split(',').map((x) => x.trim()))
      .refine((ids) => ids.length >= 2 && ids.length <= MAX_RUNS, `2 to ${MAX_RUNS} experiment ids, comma-separated`)
      .refine(
        (ids) => ids.every((id) => EXPERIMENT_ID_PATTERN.test(id)),
        'experiment ids: 1-64 letters, digits, - or _',
      )
      .refine((ids) => new Set(ids).size === ids.length, 'each id once'),
  })
  .strict();

interface ComparedRun {
  experiment_id: string;
  label: string | null;
  agent: string;
  model: string | null;
  status: string;
  goal_found: boolean;
  stop_reason: string | null;
  actions: number;
  optimal_moves: number;
  efficiency: number | null;
  tiles_seen: number;
  turns: number;
  tokens: number | null;
  cost_usd: number | null;
  stuck_signals: number;
  /** Its sweep cell's settings that reach its agent ({} outside a sweep): runs differing only there told apart. */
  settings: Record<string, unknown>;
  /** base64 Uint16Array, one entry per step 0..steps (step 0 is the start). */
  x: string;
  y: string;
  steps: number;
}

interface SummaryRow extends Omit<ComparedRun, 'x' | 'y' | 'steps'> {
  maze_id: number;
  maze_hash: string;
  maze_generator: string;
  maze_width: number;
  maze_seed: number | null;
}

export async function compareRuns(db: Sql, ids: string[], pageRows?: number) {
  const { rows } = await db.query<SummaryRow>(
    `SELECT s.experiment_id, c.label, s.agent, s.model, s.status, s.goal_found, s.stop_reason, s.actions,
            s.optimal_moves, s.efficiency::float8 AS efficiency, s.tiles_seen, s.turns,
            (s.input_tokens + s.output_tokens)::float8 AS tokens,
            -- unknown (null) only when a model was called without a price: a baseline costs nothing
            CASE WHEN cost_known(s.cost_usd, s.llm_calls) THEN coalesce(s.cost_usd, 0) END::float8 AS cost_usd,
            s.stuck_signals::int AS stuck_signals, e.maze_id::int AS maze_id, s.maze_hash, s.maze_generator,
            s.maze_width, s.maze_seed::float8 AS maze_seed,
            coalesce(reaching_settings(e.provider, c.settings), '{}'::jsonb) AS settings
     FROM experiment_summary s
     JOIN experiments e ON e.id = s.experiment_id
     LEFT JOIN sweep_cells c ON c.sweep_id = e.sweep_id AND c.cell_index = e.sweep_cell
     WHERE s.experiment_id = ANY($1::text[])`,
    [ids],
  );
  const missing = ids.find((id) => !rows.some((r) => r.experiment_id === id));
  if (missing) throw new ExperimentNotFoundError(missing);
  const byId = ids.map((id) => rows.find((r) => r.experiment_id === id)!);
  if (new Set(byId.map((r) => r.maze_hash)).size > 1)
    throw new InvalidRequestError(
      'ids',
      ids.join(','),
      `these runs are on different mazes (${byId
        .map((r) => `${r.experiment_id}: ${r.maze_generator} ${r.maze_width} seed ${r.maze_seed ?? '-'}`)
        .join('; ')}); compare runs of one maze (filter the experiments table by maze)`,
    );
  const maze = await new PgStore(db).loadMaze(byId[0].maze_id);
  const runs = await Promise.all(
    byId.map(async ({ maze_id: _id, maze_hash: _h, maze_generator: _g, maze_width: _w, maze_seed: _s, ...r }) => {
      const cells = await readPaged<{ step_number: number; to_x: number; to_y: number }>(
        async (last, limit) =>
          (
            await db.query<{ step_number: number; to_x: number; to_y: number }>(
              `SELECT step_number, to_x, to_y FROM actions
               WHERE experiment_id = $1 AND executed AND step_number > $2 ORDER BY step_number LIMIT $3`,
              [r.experiment_id, last?.step_number ?? 0, limit],
            )
          ).rows,
        pageRows,
      );
      const x = new Uint16Array(cells.length + 1);
      const y = new Uint16Array(cells.length + 1);
      x[0] = maze.start.x;
      y[0] = maze.start.y;
      cells.forEach((c, k) => {
        x[k + 1] = c.to_x;
        y[k + 1] = c.to_y;
      });
      return { ...r, x: b64(x), y: b64(y), steps: cells.length };
    }),
  );
  return {
    maze: { ...packMaze(maze), generator: maze.generator, seed: maze.seed },
    runs,
  };
}
