// Structured generators: perfect mazes (and braided ones with loops), a
// spiral corridor, and rooms joined by doors.
import { EMPTY, WALL, Grid, type Point } from '../grid.ts';
import type { Rng } from '../rng.ts';
import { backtrackerMaze } from './carve.ts';
import type { GeneratedLayout } from './types.ts';

export function perfect(width: number, height: number, rng: Rng, start: Point): GeneratedLayout {
  const grid = new Grid(width, height);
  backtrackerMaze(grid, rng, start);
  return { grid };
}

/** A perfect maze with about 10% of its inner walls knocked out: several routes, loops. */
export function multiplePaths(width: number, height: number, rng: Rng, start: Point): GeneratedLayout {
  const { grid } = perfect(width, height, rng, start);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      if (grid.get(x, y) !== WALL) continue;
      const joinsRow = grid.get(x - 1, y) === EMPTY && grid.get(x + 1, y) === EMPTY;
      const joinsColumn = grid.get(x, y - 1) === EMPTY && grid.get(x, y + 1) === EMPTY;
      if ((joinsRow || joinsColumn) && rng.chance(0.1)) grid.set(x, y, EMPTY);
    }
  }
  return { grid };
}

/**
 * One corridor winding inwards with a wall between laps; the goal is its
 * centre end. A seeded mirror/rotation varies the entry corner and direction.
 */
export function spiral(width: number, height: number, rng: Rng): GeneratedLayout {
  const base = Grid.filled(width, height, WALL);
  const carved = (x: number, y: number) => base.inBounds(x, y) && base.get(x, y) === EMPTY;
  const dirs = [
    [1, 0],
    [0, 1],
    [-1, 0],
    [0, -1],
  ] as const; // east, south, west, north: clockwise
  let x = 0,
    y = 0,
    d = 0;
  base.set(0, 0, EMPTY);
  for (;;) {
    let moved = false;
    for (const turn of [0, 1]) {
      const [dx, dy] = dirs[(d + turn) % 4];
      const n1x = x + dx,
        n1y = y + dy;
      if (!base.inBounds(n1x, n1y) || carved(n1x, n1y) || carved(n1x + dx, n1y + dy)) continue;
      d = (d + turn) % 4;
      x = n1x;
      y = n1y;
      base.set(x, y, EMPTY);
      moved = true;
      break;
    }
    if (!moved) break;
  }
  const flipX = rng.chance(0.5),
    flipY = rng.chance(0.5);
  const grid = new Grid(width, height);
  const map = (p: Point): Point => ({ x: flipX ? width - 1 - p.x : p.x, y: flipY ? height - 1 - p.y : p.y });
  for (let j = 0; j < height; j++)
    for (let i = 0; i < width; i++) {
      const m = map({ x: i, y: j });
      grid.set(m.x, m.y, base.get(i, j));
    }
  return { grid, start: map({ x: 0, y: 0 }), goal: map({ x, y }) };
}

/** Rooms 3 to 6 cells wide separated by one-cell walls, joined by doors along a random spanning tree plus extras. */
export function roomsAndCorridors(width: number, height: number, rng: Rng): GeneratedLayout {
  const grid = new Grid(width, height);
  const cuts = (size: number): number[] => {
    const lines: number[] = [];
    let at = 3 + rng.int(4);
    while (at < size - 3) {
      lines.push(at);
      at += 4 + rng.int(4);
    }
    return lines;
  };
  const xs = cuts(width),
    ys = cuts(height);
  for (const cx of xs) for (let y = 0; y < height; y++) grid.set(cx, y, WALL);
  for (const cy of ys) for (let x = 0; x < width; x++) grid.set(x, cy, WALL);
  // room (i, j) spans the open band between consecutive wall lines
  const bands = (lines: number[], size: number) =>
    [-1, ...lines].map((from, k) => ({ lo: from + 1, hi: (k < lines.length ? lines[k] : size) - 1 }));
  const cols = bands(xs, width),
    rows = bands(ys, height);
  const visited = new Set<string>();
  const door = (i: number, j: number, horizontal: boolean) => {
    if (horizontal) {
      // between room (i,j) and (i+1,j): a gap in wall column xs[i]
      const band = rows[j];
      grid.set(xs[i], band.lo + rng.int(band.hi - band.lo + 1), EMPTY);
    } else {
      // between (i,j) and (i,j+1): a gap in wall row ys[j]
      const band = cols[i];
      grid.set(band.lo + rng.int(band.hi - band.lo + 1), ys[j], EMPTY);
    }
  };
  const stack: Array<[number, number]> = [[0, 0]];
  visited.add('0,0');
  while (stack.length > 0) {
    const [i, j] = stack[stack.length - 1];
    const next = (
      [
        [i + 1, j],
        [i - 1, j],
        [i, j + 1],
        [i, j - 1],
      ] as Array<[number, number]>
    ).filter(([a, b]) => a >= 0 && b >= 0 && a < cols.length && b < rows.length && !visited.has(`${a},${b}`));
    if (next.length === 0) {
      stack.pop();
      continue;
    }
    const [a, b] = rng.pick(next);
    if (a !== i) door(Math.min(a, i), j, true);
    else door(i, Math.min(b, j), false);
    visited.add(`${a},${b}`);
    stack.push([a, b]);
  }
  for (let i = 0; i < cols.length; i++)
    for (let j = 0; j < rows.length; j++) {
      if (i + 1 < cols.length && rng.chance(0.25)) door(i, j, true);
      if (j + 1 < rows.length && rng.chance(0.25)) door(i, j, false);
    }
  return { grid };
}
