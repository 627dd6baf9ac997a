// What a simulated vision model makes of the image format's pictures: each picture decoded (fast-png) and read
// tile by tile by the colours the prompt names (black wall, white open, green goal, gray out of sight, a red dot
// for the agent), classified by brightness and hue rather than by the renderer's exact values, so that this reader
// is not the renderer run backwards. The picture's caption line names the columns and rows it covers; the tiles go
// in right after it as the text grid observation-reader.ts already reads (the local_grid format's rows).
import { decode } from 'fast-png';

const CAPTION = /columns x=(\d+)\.\.(\d+) .*rows y=(\d+)\.\.(\d+)/;

function tileAt(rgb: readonly number[]): string {
  const [r, g, b] = rgb;
  const spread = Math.max(r, g, b) - Math.min(r, g, b);
  if (spread < 40) {
    const light = (r + g + b) / 3;
    return light < 70 ? '#' : light > 225 ? '.' : '?';
  }
  if (g > r && g > b) return 'G';
  return r > g && r > b ? '@' : '?';
}

/** The rows of one picture covering `cols` x `rows` tiles: a character per tile, @ where the red dot is. */
function readPicture(png: Uint8Array, cols: number, rows: number): string[] {
  const image = decode(png);
  const channels = image.channels ?? 3;
  const cell = image.width / cols;
  const pixel = (x: number, y: number) => {
    const at = (Math.floor(y) * image.width + Math.floor(x)) * channels;
    return [image.data[at], image.data[at + 1], image.data[at + 2]];
  };
  const out: string[] = [];
  for (let row = 0; row < rows; row++) {
    let line = '';
    for (let col = 0; col < cols; col++) {
      // the centre shows the agent's dot; inside the tile's corner (clear of the dot and the edge line), the tile
      const centre = tileAt(pixel((col + 0.5) * cell, (row + 0.5) * cell));
      line += centre === '@' ? '@' : tileAt(pixel(col * cell + cell / 6, row * cell + cell / 6));
    }
    out.push(line);
  }
  return out;
}

/**
 * A message's text with each picture read into it: after each caption line, in order, the rows of the next picture.
 * Captions beyond the pictures given stay as they are.
 */
export function withPicturesRead(text: string, pngs: readonly Uint8Array[]): string {
  if (pngs.length === 0) return text;
  let next = 0;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    out.push(line);
    const caption = CAPTION.exec(line);
    if (!caption || next >= pngs.length) continue;
    const cols = Number(caption[2]) - Number(caption[1]) + 1;
    const rows = Number(caption[4]) - Number(caption[3]) + 1;
    out.push(...readPicture(pngs[next++], cols, rows));
  }
  return out.join('\n');
}

/** The bytes of a base64 picture, or of a data URL ("data:image/png;base64,..."). */
export const pictureBytes = (encoded: string): Uint8Array =>
  new Uint8Array(Buffer.from(encoded.replace(/^data:[^,]*;base64,/, ''), 'base64'));
