// The maze as the database stores it (mazes.cells, migration 014): 2 bits a cell (0 empty, 1 wall, 2 goal) in
// row-major order, cell i = y * width + x at bits 2 * (i % 4) of byte floor(i / 4), as base64 text. A 201x201 maze
// is 13,468 characters; as jsonb it printed 121,609 bytes, over the RDS Data API's 64 KB per row. Text rather than
// bytea, so pg and the Data API hand back the same string with no value decoding of their own.
// migrations/014_compact_mazes.sql reads the same layout in SQL (maze_grid).
import { Grid, GOAL } from './grid.ts';

/** A typed array as base64: the replay pages decode theirs this way, and mazes.cells is one. */
export const b64 = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');

/** Base64 characters of a packed maze of `cells` cells: 4 per 3 bytes, a byte per 4 cells. */
export const packedLength = (cells: number) => 4 * Math.ceil(cells / 12);

export function packCells(grid: Grid): string {
  const bytes = new Uint8Array(Math.ceil(grid.cells.length / 4));
  grid.cells.forEach((tile, i) => {
    bytes[i >> 2] |= tile << ((i & 3) * 2);
  });
  return b64(bytes);
}

/** The grid packCells wrote; a text of the wrong length or holding a tile other than 0, 1, 2 is refused. */
export function unpackCells(text: string, width: number, height: number): Grid {
  const n = width * height;
  if (text.length !== packedLength(n))
    throw new RangeError(
      `a ${width}x${height} maze packs into ${packedLength(n)} base64 characters, got ${text.length}`,
    );
  const bytes = Buffer.from(text, 'base64');
  const grid = new Grid(width, height);
  for (let i = 0; i < n; i++) {
    const tile = (bytes[i >> 2] >> ((i & 3) * 2)) & 3;
    if (tile > GOAL) throw new RangeError(`packed maze cell ${i} (x ${i % width}, y ${Math.floor(i / width)}) is 3`);
    grid.cells[i] = tile;
  }
  return grid;
}
