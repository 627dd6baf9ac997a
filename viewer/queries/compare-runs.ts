// Two to eight experiments on one maze, for the compare page: each one's numbers and its path (the cell after
// every executed action, packed as base64 Uint16 like the replay's), and the maze once; both read by the read model
// (results/compared-runs.ts, results/replay-logs.ts). Runs on different mazes
// are refused by name: an overlaid path means nothing on another maze. Each run's varied settings come with it
// (observation, memory, ...), so two runs of one agent under two formats are never shown as one agent's.
import { z } from 'zod';
import type { Sql } from '../../core/store/sql.ts';
import { comparedSummaries } from '../../results/compared-runs.ts';
import { executedPath } from '../../results/replay-logs.ts';
import { PgStore } from '../../core/store/pg-store.ts';
import { b64, packMaze } from '../../reports/replay-data.ts';
import { ExperimentNotFoundError } from '../../core/errors.ts';
import { EXPERIMENT_ID_PATTERN } from '../../core/machine/contracts.ts';
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

export async function compareRuns(db: Sql, ids: string[], pageRows?: number) {
  const rows = await comparedSummaries(db, ids);
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
      const cells = await executedPath(db, r.experiment_id, pageRows);
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
