// Helpers shared by generators: guaranteeing a route and picking walls to open.
import { EMPTY, WALL, type Grid, type Point } from '../grid.ts';
import type { Rng } from '../rng.ts';

/**
 * Opens a wandering route from `from` to `to` (a random walk biased towards
 * the target), so an obstacle field stays solvable without looking carved.
 */
export function carveRoute(grid: Grid, from: Point, to: Point, rng: Rng): void {
  let { x, y } = from;
  grid.set(x, y, EMPTY);
  while (x !== to.x || y !== to.y) {
    const towardsX = to.x === x ? 0 : Math.sign(to.x - x);
    const towardsY = to.y === y ? 0 : Math.sign(to.y - y);
    if (rng.chance(0.25)) {
      // sideways step so the route is not a straight staircase
      const horizontal = rng.chance(0.5);
      const step = rng.chance(0.5) ? 1 : -1;
      const nx = horizontal ? x + step : x,
        ny = horizontal ? y : y + step;
      if (grid.inBounds(nx, ny)) {
        x = nx;
        y = ny;
      }
    } else if (towardsX !== 0 && (towardsY === 0 || rng.chance(0.5))) {
      x += towardsX;
    } else {
      y += towardsY;
    }
    grid.set(x, y, EMPTY);
  }
}

/** Fills interior cells (optionally keeping a border) with walls at probability `density`. */
export function scatterWalls(grid: Grid, density: number, rng: Rng): void {
  for (let y = 0; y < grid.height; y++) {
    for (let x = 0; x < grid.width; x++) {
      grid.set(x, y, rng.chance(density) ? WALL : EMPTY);
    }
  }
}

/** A cell in the quadrant opposite the start, where routes are carved to. */
export function farCorner(grid: Grid, rng: Rng): Point {
  const x0 = Math.floor(grid.width * 0.6),
    y0 = Math.floor(grid.height * 0.6);
  return {
    x: Math.min(grid.width - 1, x0 + rng.int(Math.max(1, grid.width - 1 - x0))),
    y: Math.min(grid.height - 1, y0 + rng.int(Math.max(1, grid.height - 1 - y0))),
  };
}

/** Iterative recursive-backtracker over odd cells: a perfect maze (one route between any two cells). */
export function backtrackerMaze(grid: Grid, rng: Rng, start: Point): void {
  grid.cells.fill(WALL);
  const stack: Point[] = [start];
  grid.set(start.x, start.y, EMPTY);
  const steps = [
    [0, -2],
    [0, 2],
    [2, 0],
    [-2, 0],
  ] as const;
  while (stack.length > 0) {
    const cur = stack[stack.length - 1];
    const options = steps
      .map(([dx, dy]) => ({ x: cur.x + dx, y: cur.y + dy, wx: cur.x + dx / 2, wy: cur.y + dy / 2 }))
      .filter(
        (n) => n.x > 0 && n.y > 0 && n.x < grid.width - 1 && n.y < grid.height - 1 && grid.get(n.x, n.y) === WALL,
      );
    if (options.length === 0) {
      stack.pop();
      continue;
    }
    const next = rng.pick(options);
    grid.set(next.wx, next.wy, EMPTY);
    grid.set(next.x, next.y, EMPTY);
    stack.push({ x: next.x, y: next.y });
  }
}
