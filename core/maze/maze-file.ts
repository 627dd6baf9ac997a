// Maze JSON import/export: { grid: number[][], start: {x,y} | [x,y] } in (or the classic set's
// { grid_data: number[][] }, start (2,2) unless given), the same plus identity and optima out, so a maze can
// travel between labs. parseMazeFile also takes the plain-text picture (maze-text.ts).
import { z } from 'zod';
import { Grid } from './grid.ts';
import { buildMaze, type Maze } from './maze.ts';
import { MazeInputError } from './errors.ts';
import { parseMazeText } from './maze-text.ts';
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

const rows = z
  .array(row)
  .min(2)
  .max(MAX_SIZE)
  .refine((rs) => rs.every((r) => r.length === rs[0].length), {
    message: 'every row must have the same length (ragged rows)',
  });

/** The start of the classic maze set, which files holding `grid_data` assume when they name none. */
const CLASSIC_START = { x: 2, y: 2 } as const;

const mazeFileSchema = z
  .object({
    grid: rows.optional(),
    /** The classic set's name for the same grid[y][x] of 0/1/2. */
    grid_data: rows.optional(),
    start: point.optional(),
    generator: z.string().max(64).optional(),
    seed: z.number().int().nullable().optional(),
  })
  .superRefine((m, ctx) => {
    if ((m.grid === undefined) === (m.grid_data === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [m.grid ? 'grid_data' : 'grid'],
        message: m.grid ? 'give "grid" or "grid_data", not both' : 'a maze needs "grid" (or "grid_data")',
      });
    else if (m.grid && !m.start)
      ctx.addIssue({ code: 'custom', path: ['start'], message: 'a maze with "grid" needs "start": {"x":..,"y":..}' });
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
        'Expected {"grid": [[0,1,...],...] with 0 empty, 1 wall, 2 goal, "start": {"x":..,"y":..}} ' +
        '(or {"grid_data": [[...]]}, start (2,2))',
    );
  }
  const { grid, grid_data: gridData, start } = parsed.data;
  const from = start ?? CLASSIC_START;
  try {
    return buildMaze(Grid.fromRows((grid ?? gridData)!), from, 'imported', parsed.data.seed ?? null);
  } catch (err) {
    if (!(err instanceof MazeInputError)) throw err;
    const classic = start ? '' : ` (the classic start, assumed for "grid_data" without "start")`;
    throw new MazeInputError(err.field, err.value, `${source}: ${err.message}${err.field === 'start' ? classic : ''}`);
  }
}

/** A maze file of either kind: JSON (an object) or a text picture. */
export function parseMazeFile(text: string, source = 'maze file'): Maze {
  return text.trimStart().startsWith('{') ? parseMazeJson(text, source) : parseMazeText(text, source);
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
