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

/** Walls in blobs of 1 to 9 cells until about 25% of the grid is wall. */
export function randomScatter(width: number, height: number, rng: Rng, start: Point): GeneratedLayout {
  const grid = new Grid(width, height);
  const target = Math.floor(width * height * 0.25);
  let walls = 0;
  while (walls < target) {
    const cx = rng.int(width), cy = rng.int(height);
    const rw = rng.int(3), rh = rng.int(3);
    for (let y = cy; y <= cy + rh && y < height; y++) {
      for (let x = cx; x <= cx + rw && x < width; x++) {
        if (grid.get(x, y) !== WALL) { grid.set(x, y, WALL); walls++; }
      }
    }
  }
  carveRoute(grid, start, farCorner(grid, rng), rng);
  return { grid };
}

/** Wall streaks running diagonally (both slopes, mostly down-right), about 30% wall. */
export function diagonalBias(width: number, height: number, rng: Rng, start: Point): GeneratedLayout {
  const grid = new Grid(width, height);
  const target = Math.floor(width * height * 0.3);
  let walls = 0;
  while (walls < target) {
    let x = rng.int(width), y = rng.int(height);
    const dx = rng.chance(0.8) ? 1 : -1;
    const length = 3 + rng.int(6);
    for (let i = 0; i < length && grid.inBounds(x, y); i++) {
      if (grid.get(x, y) !== WALL) { grid.set(x, y, WALL); walls++; }
      x += dx; y += 1;
    }
  }
  carveRoute(grid, start, farCorner(grid, rng), rng);
  return { grid };
}

/** Almost empty: a few single-cell obstacles (3%). */
export function openField(width: number, height: number, rng: Rng, start: Point): GeneratedLayout {
  const grid = new Grid(width, height);
  for (let i = 0; i < grid.cells.length; i++) grid.cells[i] = rng.chance(0.03) ? WALL : EMPTY;
  grid.set(start.x, start.y, EMPTY);
  return { grid };
}
