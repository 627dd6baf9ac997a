// Breadth-first search over open cells: the optimum every run is scored against.
import { DIRECTIONS, DIRECTION_NAMES, type Grid, type Point } from './grid.ts';
import { cellsSeeing, type VisionOptions } from './vision.ts';

export const UNREACHABLE = -1;

/** Moves from `from` to every cell (UNREACHABLE for walls and cut-off cells). */
export function distancesFrom(grid: Grid, from: Point): Int32Array {
  const dist = new Int32Array(grid.width * grid.height).fill(UNREACHABLE);
  if (!grid.isOpen(from.x, from.y)) return dist;
  const queue = new Int32Array(grid.width * grid.height);
  let head = 0,
    tail = 0;
  const startIndex = grid.index(from.x, from.y);
  dist[startIndex] = 0;
  queue[tail++] = startIndex;
  while (head < tail) {
    const i = queue[head++];
    const x = i % grid.width,
      y = (i - x) / grid.width;
    for (const name of DIRECTION_NAMES) {
      const nx = x + DIRECTIONS[name].dx,
        ny = y + DIRECTIONS[name].dy;
      if (!grid.isOpen(nx, ny)) continue;
      const j = ny * grid.width + nx;
      if (dist[j] !== UNREACHABLE) continue;
      dist[j] = dist[i] + 1;
      queue[tail++] = j;
    }
  }
  return dist;
}

/** Fewest moves from start to goal, or UNREACHABLE. */
export function shortestPathLength(grid: Grid, start: Point, goal: Point): number {
  return distancesFrom(grid, start)[grid.index(goal.x, goal.y)];
}

/** Fewest moves from start to any cell from which the goal is in view (the `seen` rule's optimum). */
export function shortestPathToSight(grid: Grid, start: Point, goal: Point, vision: VisionOptions): number {
  const dist = distancesFrom(grid, start);
  let best = UNREACHABLE;
  for (const i of cellsSeeing(grid, goal, vision)) {
    const d = dist[i];
    if (d !== UNREACHABLE && (best === UNREACHABLE || d < best)) best = d;
  }
  return best;
}
