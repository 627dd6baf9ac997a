// Draws a maze with what an agent has seen, its view cone, paths and agents. The tiles go through one ImageData
// pass at one pixel per cell, scaled up without smoothing, so a 201x201 maze with a 10,000-step path redraws in a
// few milliseconds. One drawing for every page: the viewer loads it as a module (its experiment and compare pages);
// the replay file inlines it as a classic script (html.ts classicScript drops the `export`s), so it needs no import.

/** Decodes the replay's base64 bytes (the viewer's pages import it through common.js; the replay file's global). */
export const bytes = (b64) => {
  // a plain loop: Uint8Array.from(string, fn) goes through the iterator per character, ~10x slower on a 10,000-step run
  const s = atob(b64);
  const u = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
  return u;
};
/** A base64 typed array of the replay (Uint16Array, Uint32Array, ...). */
export const typed = (b64, T) => {
  const u = bytes(b64);
  return new T(u.buffer, u.byteOffset, u.byteLength / T.BYTES_PER_ELEMENT);
};

const rgba = (r, g, b, a = 255) => ((a << 24) | (b << 16) | (g << 8) | r) >>> 0; // ABGR, little-endian
const C = {
  openKnown: rgba(245, 242, 232),
  wallKnown: rgba(40, 44, 52),
  goalKnown: rgba(46, 160, 67),
  openUnknown: rgba(214, 214, 214),
  wallUnknown: rgba(150, 150, 150),
  goalUnknown: rgba(120, 190, 130),
  cone: rgba(255, 214, 92),
  coneWall: rgba(150, 110, 20),
};
const NEVER = 0xffffffff;
export const PATH_COLOURS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4b5563', '#ca8a04'];

export class MazeCanvas {
  /** `maze`: the replay's {width, height, grid (base64), start, goal}. */
  constructor(canvas, maze, maxPx = 640) {
    this.canvas = canvas;
    this.W = maze.width;
    this.H = maze.height;
    this.maze = maze;
    this.grid = bytes(maze.grid);
    this.scale = Math.max(2, Math.floor(Math.min(maxPx / this.W, maxPx / this.H)));
    canvas.width = this.W * this.scale;
    canvas.height = this.H * this.scale;
    this.ctx = canvas.getContext('2d');
    this.layer = document.createElement('canvas');
    this.layer.width = this.W;
    this.layer.height = this.H;
    this.lctx = this.layer.getContext('2d');
    this.img = this.lctx.createImageData(this.W, this.H);
    this.px = new Uint32Array(this.img.data.buffer);
  }

  /**
   * One frame. `seenAt` (per cell, the first step it was seen; omitted: all known) and `step` dim what was not
   * yet seen; `cone` is the cells in view now; each path is {xs, ys, upTo, colour}; each agent {x, y, colour}.
   */
  draw({ seenAt = null, step = 0, cone = [], paths = [], agents = [] } = {}) {
    const { grid, px, W, H, scale, ctx } = this;
    for (let i = 0; i < W * H; i++) {
      const known = seenAt === null || (seenAt[i] !== NEVER && seenAt[i] <= step);
      const t = grid[i];
      px[i] =
        t === 1
          ? known
            ? C.wallKnown
            : C.wallUnknown
          : t === 2
            ? known
              ? C.goalKnown
              : C.goalUnknown
            : known
              ? C.openKnown
              : C.openUnknown;
    }
    for (const i of cone) px[i] = grid[i] === 1 ? C.coneWall : grid[i] === 2 ? C.goalKnown : C.cone;
    this.lctx.putImageData(this.img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.layer, 0, 0, W * scale, H * scale);
    ctx.lineWidth = Math.max(1, scale / 3);
    paths.forEach((p, k) => {
      // overlaid paths are offset a little each, so two runs that share a corridor both stay visible
      const off = paths.length > 1 ? ((k - (paths.length - 1) / 2) * scale) / (paths.length + 1) : 0;
      ctx.strokeStyle = p.colour;
      ctx.globalAlpha = paths.length > 1 ? 0.8 : 0.55;
      ctx.beginPath();
      ctx.moveTo((p.xs[0] + 0.5) * scale + off, (p.ys[0] + 0.5) * scale + off);
      for (let s = 1; s <= p.upTo; s++) ctx.lineTo((p.xs[s] + 0.5) * scale + off, (p.ys[s] + 0.5) * scale + off);
      ctx.stroke();
    });
    ctx.globalAlpha = 1;
    ctx.fillStyle = 'rgb(124, 58, 237)';
    ctx.fillRect(this.maze.start[0] * scale, this.maze.start[1] * scale, scale, scale);
    for (const a of agents) {
      ctx.fillStyle = a.colour;
      ctx.beginPath();
      ctx.arc((a.x + 0.5) * scale, (a.y + 0.5) * scale, Math.max(2, scale * 0.45), 0, Math.PI * 2);
      ctx.fill();
    }
  }

  /** The canvas pixel at the centre of cell (x, y), for tests that look at what was drawn. */
  pixelOf(x, y) {
    return { x: (x + 0.5) * this.scale, y: (y + 0.5) * this.scale };
  }
}
