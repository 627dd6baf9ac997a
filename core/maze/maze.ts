// A finished maze: grid with its goal, start, identity hash and the optima
// every run is scored against.
import { contentHash, GOAL, Grid, WALL, type Point } from './grid.ts';
import { shortestPathLength, shortestPathToSight, UNREACHABLE } from './solver.ts';
import { MazeInputError } from './errors.ts';

/** The vision the stored `shortestPathToSight` is computed for (the classic default). */
export const REFERENCE_VISION = { range: 3, seeThrough: false } as const;

export interface Maze {
  generator: string; // a generator name, or "imported"
  seed: number | null;
  width: number;
  height: number;
  grid: Grid;
  start: Point;
  goal: Point;
  hash: string;
  shortestPath: number;
  shortestPathToSight: number;
}

/** Checks solvability and computes hash and optima; throws MazeInputError naming what is wrong. */
export function buildMaze(grid: Grid, start: Point, generator: string, seed: number | null): Maze {
  if (!grid.inBounds(start.x, start.y))
    throw new MazeInputError(
      'start',
      start,
      `start (${start.x},${start.y}) is outside the ${grid.width}x${grid.height} grid`,
    );
  if (grid.get(start.x, start.y) === WALL)
    throw new MazeInputError('start', start, `start (${start.x},${start.y}) is a wall; put the start on an empty tile`);
  const goals: Point[] = [];
  for (let y = 0; y < grid.height; y++)
    for (let x = 0; x < grid.width; x++) if (grid.get(x, y) === GOAL) goals.push({ x, y });
  if (goals.length !== 1)
    throw new MazeInputError(
      'grid',
      `${goals.length} goal tiles`,
      `a maze needs exactly one goal tile (2), found ${goals.length}`,
    );
  const goal = goals[0];
  const shortestPath = shortestPathLength(grid, start, goal);
  if (shortestPath === UNREACHABLE)
    throw new MazeInputError(
      'grid',
      'unsolvable',
      `the goal (${goal.x},${goal.y}) cannot be reached from the start (${start.x},${start.y})`,
    );
  return {
    generator,
    seed,
    width: grid.width,
    height: grid.height,
    grid,
    start,
    goal,
    hash: contentHash(grid, start),
    shortestPath,
    shortestPathToSight: shortestPathToSight(grid, start, goal, REFERENCE_VISION),
  };
}
