// What an agent standing at a cell sees: rays in the four cardinal directions
// up to `range` tiles, each stopped by (and including) the first wall; or, in
// see-through mode, every tile of the (2r+1)^2 square clipped to the grid.
import { DIRECTIONS, DIRECTION_NAMES, WALL, type Grid, type Point } from './grid.ts';

export interface VisionOptions {
  range: number;
  seeThrough: boolean;
}

/** Indices (y*width+x) of the visible cells, the agent's own cell first. */
export function visibleCells(grid: Grid, at: Point, opts: VisionOptions): number[] {
  const out = [grid.index(at.x, at.y)];
  if (opts.seeThrough) {
    for (let y = at.y - opts.range; y <= at.y + opts.range; y++) {
      for (let x = at.x - opts.range; x <= at.x + opts.range; x++) {
        if ((x !== at.x || y !== at.y) && grid.inBounds(x, y)) out.push(grid.index(x, y));
      }
    }
    return out;
  }
  for (const name of DIRECTION_NAMES) {
    const { dx, dy } = DIRECTIONS[name];
    for (let d = 1; d <= opts.range; d++) {
      const x = at.x + dx * d,
        y = at.y + dy * d;
      if (!grid.inBounds(x, y)) break;
      out.push(grid.index(x, y));
      if (grid.get(x, y) === WALL) break;
    }
  }
  return out;
}

/** Cells from which `target` is visible (the reverse of visibleCells). */
export function cellsSeeing(grid: Grid, target: Point, opts: VisionOptions): number[] {
  if (opts.seeThrough) return visibleCells(grid, target, opts).filter((i) => grid.cells[i] !== WALL);
  // Rays are symmetric when nothing but walls blocks them: walk outwards from
  // the target and keep open cells until a wall interrupts the line.
  const out = [grid.index(target.x, target.y)];
  for (const name of DIRECTION_NAMES) {
    const { dx, dy } = DIRECTIONS[name];
    for (let d = 1; d <= opts.range; d++) {
      const x = target.x + dx * d,
        y = target.y + dy * d;
      if (!grid.inBounds(x, y) || grid.get(x, y) === WALL) break;
      out.push(grid.index(x, y));
    }
  }
  return out;
}
