// The `image` observation format's pictures: the square in sight drawn as a PNG, one square of CELL_PX pixels a
// tile, north up, encoded by fast-png (its deflate is fflate's, pure JS: the same tiles give the same bytes on every
// machine). What the model saw is recorded as a hash of the decoded pixels (width, height and RGB bytes), not of the
// PNG's bytes, so a re-encoding never changes it; the viewer redraws the picture from the stored vision and checks
// the hash (viewer/).
import { createHash } from 'node:crypto';
import { encode } from 'fast-png';
import { EMPTY, GOAL, WALL, type Point } from '../../../maze/grid.ts';
import type { Area } from './picture.ts';
import { CELL_PX, PALETTE } from '../../../config/observation-pictures.ts';

type Rgb = readonly [number, number, number];

const TILE_RGB: Record<number, Rgb> = { [EMPTY]: PALETTE.open, [WALL]: PALETTE.wall, [GOAL]: PALETTE.goal };

export interface ViewImage {
  png: Uint8Array;
  /** sha256 of `${width}x${height}:` and the RGB pixels: what the model saw, whatever the encoding. */
  sha256: string;
  width: number;
  height: number;
}

/** `tileAt`: the tile shown at a cell of the area, or undefined when it is out of sight. */
export function drawView(area: Area, agent: Point, tileAt: (x: number, y: number) => number | undefined): ViewImage {
  const cols = area.x1 - area.x0 + 1;
  const rows = area.y1 - area.y0 + 1;
  const width = cols * CELL_PX;
  const height = rows * CELL_PX;
  const data = new Uint8Array(width * height * 3);
  const radius = CELL_PX * 0.3;
  for (let cy = 0; cy < rows; cy++)
    for (let cx = 0; cx < cols; cx++) {
      const x = area.x0 + cx;
      const y = area.y0 + cy;
      const tile = tileAt(x, y);
      const fill = tile === undefined ? PALETTE.unseen : (TILE_RGB[tile] ?? PALETTE.unseen);
      const here = x === agent.x && y === agent.y;
      for (let py = 0; py < CELL_PX; py++) {
        // byte by byte: the tuples' own set() per pixel was most of a picture's time
        let at = ((cy * CELL_PX + py) * width + cx * CELL_PX) * 3;
        for (let px = 0; px < CELL_PX; px++, at += 3) {
          // a one-pixel line on each tile's north and west edge, so that tiles can be counted
          const edge = px === 0 || py === 0;
          const dx = px + 0.5 - CELL_PX / 2;
          const dy = py + 0.5 - CELL_PX / 2;
          const rgb = here && dx * dx + dy * dy <= radius * radius ? PALETTE.agent : edge ? PALETTE.grid : fill;
          data[at] = rgb[0];
          data[at + 1] = rgb[1];
          data[at + 2] = rgb[2];
        }
      }
    }
  const png = encode({ width, height, data, depth: 8, channels: 3 });
  return { png, sha256: pixelHash(width, height, data), width, height };
}

function pixelHash(width: number, height: number, rgb: Uint8Array): string {
  return createHash('sha256').update(`${width}x${height}:`).update(rgb).digest('hex');
}
