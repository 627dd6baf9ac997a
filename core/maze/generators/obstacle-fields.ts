// Obstacle-field generators: random walls at a density, in clusters or along
// diagonals. A carved route from start to the far corner keeps them solvable.
import { EMPTY, WALL, Grid, type Point } from '../grid.ts';
import type { Rng } from '../rng.ts';
import { carveRoute, farCorner, scatterWalls } from './carve.ts';
import type { GeneratedLayout } from './types.ts';

export function densityField(density: number) {
  return (width: number, height: number, rng: Rng, start: Point): GeneratedLayout => {
    const grid = new Grid(width, height);
    scatterWalls(grid, density, rng);
    carveRoute(grid, start, farCorner(grid, rng), rng);
    return { grid };
  };
}

/**
 * Repeatedly stamps a wall shape (`stamp` calls `put` for each cell) until
 * `fraction` of the grid is wall, then carves the route that keeps it solvable.
 */
function stampedField(
  width: number,
  height: number,
  rng: Rng,
  start: Point,
  fraction: number,
  stamp: (put: (x: number, y: number) => void) => void,
): GeneratedLayout {
  const grid = new Grid(width, height);
  const target = Math.floor(width * height * fraction);
  let walls = 0;
  const put = (x: number, y: number) => {
    if (grid.get(x, y) !== WALL) {
      grid.set(x, y, WALL);
      walls++;
    }
  };
  while (walls < target) stamp(put);
  carveRoute(grid, start, farCorner(grid, rng), rng);
  return { grid };
}

/** Walls in blobs of 1 to 9 cells until about 25% of the grid is wall. */
export function randomScatter(width: number, height: number, rng: Rng, start: Point): GeneratedLayout {
  return stampedField(width, height, rng, start, 0.25, (put) => {
    const cx = rng.int(width),
      cy = rng.int(height);
    const rw = rng.int(3),
      rh = rng.int(3);
    for (let y = cy; y <= cy + rh && y < height; y++) for (let x = cx; x <= cx + rw && x < width; x++) put(x, y);
  });
}

/** Wall streaks running diagonally (both slopes, mostly down-right), about 30% wall. */
export function diagonalBias(width: number, height: number, rng: Rng, start: Point): GeneratedLayout {
  return stampedField(width, height, rng, start, 0.3, (put) => {
    let x = rng.int(width),
      y = rng.int(height);
    const dx = rng.chance(0.8) ? 1 : -1;
    const length = 3 + rng.int(6);
    for (let i = 0; i < length && x >= 0 && x < width && y < height; i++) {
      put(x, y);
      x += dx;
      y += 1;
    }
  });
}

/** Almost empty: a few single-cell obstacles (3%). */
export function openField(width: number, height: number, rng: Rng, start: Point): GeneratedLayout {
  const grid = new Grid(width, height);
  for (let i = 0; i < grid.cells.length; i++) grid.cells[i] = rng.chance(0.03) ? WALL : EMPTY;
  grid.set(start.x, start.y, EMPTY);
  return { grid };
}
