// The maze grid. Stored and exchanged as grid[y][x] with 0 empty, 1 wall,
// 2 goal (x grows east, y grows south); held in memory as one flat byte array
// because the solver and vision run thousands of times per experiment.
import { createHash } from 'node:crypto';

export const EMPTY = 0;
export const WALL = 1;
export const GOAL = 2;
export type Tile = typeof EMPTY | typeof WALL | typeof GOAL;

export interface Point {
  x: number;
  y: number;
}

export const DIRECTIONS = {
  north: { dx: 0, dy: -1 },
  south: { dx: 0, dy: 1 },
  east: { dx: 1, dy: 0 },
  west: { dx: -1, dy: 0 },
} as const;
export type Direction = keyof typeof DIRECTIONS;
export const DIRECTION_NAMES = Object.keys(DIRECTIONS) as Direction[];

export class Grid {
  readonly cells: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
    cells?: Uint8Array,
  ) {
    this.cells = cells ?? new Uint8Array(width * height);
    if (this.cells.length !== width * height) {
      throw new RangeError(`grid of ${width}x${height} needs ${width * height} cells, got ${this.cells.length}`);
    }
  }
  static filled(width: number, height: number, tile: Tile): Grid {
    return new Grid(width, height, new Uint8Array(width * height).fill(tile));
  }
  static fromRows(rows: readonly (readonly number[])[]): Grid {
    const height = rows.length;
    const width = height > 0 ? rows[0].length : 0;
    const grid = new Grid(width, height);
    rows.forEach((row, y) =>
      row.forEach((tile, x) => {
        grid.cells[y * width + x] = tile;
      }),
    );
    return grid;
  }
  inBounds(x: number, y: number): boolean {
    return x >= 0 && y >= 0 && x < this.width && y < this.height;
  }
  index(x: number, y: number): number {
    return y * this.width + x;
  }
  get(x: number, y: number): Tile {
    return this.cells[y * this.width + x] as Tile;
  }
  set(x: number, y: number, tile: Tile): void {
    this.cells[y * this.width + x] = tile;
  }
  isOpen(x: number, y: number): boolean {
    return this.inBounds(x, y) && this.get(x, y) !== WALL;
  }
  toRows(): number[][] {
    const rows: number[][] = [];
    for (let y = 0; y < this.height; y++)
      rows.push(Array.from(this.cells.subarray(y * this.width, (y + 1) * this.width)));
    return rows;
  }
  clone(): Grid {
    return new Grid(this.width, this.height, this.cells.slice());
  }
  count(tile: Tile): number {
    let n = 0;
    for (const c of this.cells) if (c === tile) n++;
    return n;
  }
}

/** sha256 over a canonical text of size, start and rows: the maze's identity. */
export function contentHash(grid: Grid, start: Point): string {
  const rows: string[] = [];
  for (let y = 0; y < grid.height; y++)
    rows.push(Array.from(grid.cells.subarray(y * grid.width, (y + 1) * grid.width)).join(''));
  return createHash('sha256')
    .update(`ariadne-maze-v1\n${grid.width}x${grid.height}\nstart ${start.x},${start.y}\n${rows.join('\n')}\n`)
    .digest('hex');
}

/** A printable picture of a grid, used by the CLI and in test failure messages. */
export function renderAscii(grid: Grid, marks: Array<{ at: Point; ch: string }> = []): string {
  const chars = ['.', '#', 'G'];
  const lines: string[][] = [];
  for (let y = 0; y < grid.height; y++) {
    lines.push([]);
    for (let x = 0; x < grid.width; x++) lines[y].push(chars[grid.get(x, y)] ?? '?');
  }
  for (const m of marks) if (grid.inBounds(m.at.x, m.at.y)) lines[m.at.y][m.at.x] = m.ch;
  return lines.map((l) => l.join('')).join('\n');
}
