// What the simulated model makes of the text the engine sent, in any of the
// observation formats (config.observation): where the agent stands and which
// tiles it was shown (adjacency: every tile, from the links between open ones).
// Read line by line, so that a rays line or a tool result's view is placed
// relative to the last position read before it.
import { DIRECTIONS, EMPTY, GOAL, WALL, type Direction, type Tile } from '../core/maze/grid.ts';

export interface Reading {
  /** The last position the text gave; null when it gave none. */
  position: [number, number] | null;
  cells: Array<[number, number, Tile]>;
}

const TILE: Record<string, Tile> = { '.': EMPTY, '#': WALL, G: GOAL };
// coordinates lists (in sight, and recalled): each cell in one of them
const LISTED: Record<string, Tile> = {
  'Open cells in sight': EMPTY,
  'Walls in sight': WALL,
  'Goal in sight': GOAL,
  'Recalled open cells': EMPTY,
  'Recalled walls': WALL,
  'Recalled goal': GOAL,
};
/** The groups of an "Also in sight:" line (rays) and of also_in_sight (json), by tile. */
const GROUPS: Record<string, Tile> = { open: EMPTY, walls: WALL, goal: GOAL };

/** Facts of a JSON object the engine wrote (the json format), or null when the line holds none. */
function jsonFacts(
  line: string,
): { position: [number, number]; view?: Record<string, string>; also?: Record<string, unknown> } | null {
  const embedded = line.indexOf(': {'); // a result answered as text: "move_north: {...}"
  const start = line.trim().startsWith('{') ? line.indexOf('{') : embedded >= 0 ? embedded + 2 : -1;
  if (start < 0) return null;
  try {
    const v = JSON.parse(line.slice(start)) as { position?: unknown; view?: unknown; also_in_sight?: unknown };
    if (!Array.isArray(v.position)) return null;
    const view = v.view && typeof v.view === 'object' ? (v.view as Record<string, string>) : undefined;
    const also =
      v.also_in_sight && typeof v.also_in_sight === 'object' ? (v.also_in_sight as Record<string, unknown>) : undefined;
    return { position: [Number(v.position[0]), Number(v.position[1])], view, also };
  } catch {
    return null; // not ours
  }
}

/** The adjacency format's maze: its size, its open tiles (linked, or listed as in no link) and the goal. */
interface Graph {
  width: number;
  height: number;
  open: Set<string>;
  goal: Set<string>;
}

/** An adjacency line (its links, its open tiles in no link, its goal) read into the graph; null for another line. */
function graphLine(line: string, graph: Graph | null): Graph | null {
  const links = /^Links between open tiles \(x 0\.\.(\d+), y 0\.\.(\d+)\): (.*)$/.exec(line);
  const unlinked = /^(Open tiles in no link|Goal): (.*)$/.exec(line);
  const into = links
    ? { width: Number(links[1]) + 1, height: Number(links[2]) + 1, open: new Set<string>(), goal: new Set<string>() }
    : unlinked && graph;
  if (!into) return null;
  const cells = unlinked?.[1] === 'Goal' ? into.goal : into.open;
  for (const m of (links?.[3] ?? unlinked![2]).matchAll(/\((\d+),(\d+)\)/g)) cells.add(`${m[1]},${m[2]}`);
  return into;
}

/** Every tile of the graph's maze: the goal, an open tile, or a wall (a tile in no link and not listed as open). */
function graphTiles(out: Reading, graph: Graph): void {
  for (let y = 0; y < graph.height; y++)
    for (let x = 0; x < graph.width; x++) {
      const key = `${x},${y}`;
      out.cells.push([x, y, graph.goal.has(key) ? GOAL : graph.open.has(key) ? EMPTY : WALL]);
    }
}

export function readObservation(text: string): Reading {
  const out: Reading = { position: null, cells: [] };
  const stand = (x: number, y: number) => {
    out.position = [x, y];
    out.cells.push([x, y, EMPTY]);
  };
  const ray = (dir: Direction, tiles: string) => {
    if (!out.position) return;
    const [x0, y0] = out.position;
    [...tiles].forEach((ch, k) => {
      if (ch in TILE) out.cells.push([x0 + DIRECTIONS[dir].dx * (k + 1), y0 + DIRECTIONS[dir].dy * (k + 1), TILE[ch]]);
    });
  };
  // a picture (local_grid, full_map): rows still to read, and where the next one lies
  let picture: { x0: number; y: number; left: number } | null = null;
  // the adjacency format's maze, its tiles read out once every line naming open tiles and the goal was read
  let graph: Graph | null = null;
  for (const line of text.split('\n')) {
    if (picture && picture.left > 0) {
      [...line].forEach((ch, k) => {
        if (ch === '@') stand(picture!.x0 + k, picture!.y);
        else if (ch in TILE) out.cells.push([picture!.x0 + k, picture!.y, TILE[ch]]);
      });
      picture.y++;
      picture.left--;
      continue;
    }
    const header = /columns x=(\d+)\.\.(\d+) .*rows y=(\d+)\.\.(\d+)/.exec(line);
    if (header) {
      picture = { x0: Number(header[1]), y: Number(header[3]), left: Number(header[4]) - Number(header[3]) + 1 };
      continue;
    }
    const at = /You are at \((\d+),(\d+)\)/.exec(line);
    if (at) {
      stand(Number(at[1]), Number(at[2]));
      continue;
    }
    const direction = /^(north|south|east|west): ([.#G]*)$/.exec(line);
    if (direction) {
      ray(direction[1] as Direction, direction[2]);
      continue;
    }
    const read = graphLine(line, graph);
    if (read) {
      graph = read;
      continue;
    }
    const listed = new RegExp(`^(${Object.keys(LISTED).join('|')}): (.*)$`).exec(line);
    if (listed) {
      for (const m of listed[2].matchAll(/\((\d+),(\d+)\)/g))
        out.cells.push([Number(m[1]), Number(m[2]), LISTED[listed[1]]]);
      continue;
    }
    const also = /^Also in sight: (.*)$/.exec(line);
    if (also) {
      // "open (1,1) (3,1); walls (1,3); goal none."
      for (const group of also[1].split(';')) {
        const [name] = group.trim().split(' ');
        if (name in GROUPS)
          for (const m of group.matchAll(/\((\d+),(\d+)\)/g))
            out.cells.push([Number(m[1]), Number(m[2]), GROUPS[name]]);
      }
      continue;
    }
    const json = jsonFacts(line);
    if (json) {
      stand(...json.position);
      for (const [dir, tiles] of Object.entries(json.view ?? {}))
        if (dir in DIRECTIONS && typeof tiles === 'string') ray(dir as Direction, tiles);
      for (const [name, cells] of Object.entries(json.also ?? {}))
        if (name in GROUPS && Array.isArray(cells))
          for (const cell of cells as unknown[])
            if (Array.isArray(cell)) out.cells.push([Number(cell[0]), Number(cell[1]), GROUPS[name]]);
    }
  }
  if (graph) graphTiles(out, graph);
  return out;
}

/** True for the first observation of a game: turn 1, no action taken yet (text formats or json). */
export function isGameStart(text: string): boolean {
  if (/^Turn 1\. Actions taken so far: 0 of /m.test(text)) return true;
  const first = text.split('\n')[0].trim();
  if (!first.startsWith('{')) return false;
  try {
    const v = JSON.parse(first) as { turn?: unknown; actions?: unknown };
    return v.turn === 1 && v.actions === 0;
  } catch {
    return false;
  }
}
