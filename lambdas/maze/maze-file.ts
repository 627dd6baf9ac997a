// Maze JSON import/export: { grid: number[][], start: {x,y} | [x,y] } in,
// the same plus identity and optima out, so a maze can travel between labs.
import { z } from 'zod';
import { Grid } from './grid.ts';
import { buildMaze, type Maze } from './maze.ts';
import { MazeInputError } from './errors.ts';
import { MAX_SIZE } from './generators/index.ts';
import { firstProblem } from '../config/zod-errors.ts';
import { findForbiddenKey } from '../config/forbidden-keys.ts';

const point = z.union([
  z.object({ x: z.number().int().nonnegative(), y: z.number().int().nonnegative() }),
  z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]).transform(([x, y]) => ({ x, y })),
]);

const TILE_HELP = 'a tile is 0 (empty), 1 (wall) or 2 (goal)';
const row = z
  .array(z.number({ error: TILE_HELP }).int(TILE_HELP).min(0, TILE_HELP).max(2, TILE_HELP))
  .min(2)
  .max(MAX_SIZE);

const mazeFileSchema = z.object({
  grid: z
    .array(row)
    .min(2)
    .max(MAX_SIZE)
    .refine((rows) => rows.every((r) => r.length === rows[0].length), {
      message: 'every row must have the same length',
    }),
  start: point,
  generator: z.string().max(64).optional(),
  seed: z.number().int().nullable().optional(),
});

/** Parses maze JSON text; every problem becomes a MazeInputError naming the JSON path. */
export function parseMazeJson(text: string, source = 'maze JSON'): Maze {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new MazeInputError('maze-file', source, `${source} is not valid JSON: ${(err as Error).message}`);
  }
  const forbidden = findForbiddenKey(raw);
  if (forbidden)
    throw new MazeInputError(
      forbidden.join('.'),
      source,
      `${source}: the key "${forbidden.join('.')}" is not allowed (it could reach object prototypes)`,
    );
  const parsed = mazeFileSchema.safeParse(raw);
  if (!parsed.success) {
    const p = firstProblem(parsed.error, raw, '');
    throw new MazeInputError(
      p.field || '(root)',
      p.value,
      `${source}: ${p.message}. ` +
        'Expected {"grid": [[0,1,...],...] with 0 empty, 1 wall, 2 goal, "start": {"x":..,"y":..}}',
    );
  }
  const { grid, start } = parsed.data;
  return buildMaze(Grid.fromRows(grid), start, 'imported', parsed.data.seed ?? null);
}

export function mazeToJson(maze: Maze): object {
  return {
    format: 'ariadne-maze',
    version: 1,
    generator: maze.generator,
    seed: maze.seed,
    width: maze.width,
    height: maze.height,
    start: maze.start,
    goal: maze.goal,
    hash: maze.hash,
    shortestPath: maze.shortestPath,
    shortestPathToSight: maze.shortestPathToSight,
    grid: maze.grid.toRows(),
  };
}
