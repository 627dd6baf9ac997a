import type { Grid, Point } from '../grid.ts';
import type { Rng } from '../rng.ts';

/** What a generator produces before shared placement; it may fix the goal itself. */
export interface GeneratedLayout {
  grid: Grid;
  start?: Point;
  goal?: Point;
}

export type LayoutFn = (width: number, height: number, rng: Rng, start: Point) => GeneratedLayout;
