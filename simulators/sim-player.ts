// The simulated model behind both simulators. It reads only what the engine
// sent (the STATE line of the observation and the JSON of each tool result),
// keeps its own map of what it saw, and walks to the nearest unexplored tile,
// as a model that really plays would.
import { nextFrontierMove } from '../lambdas/providers/frontier-agent.ts';
import { UNKNOWN } from '../lambdas/engine/game.ts';
import { DIRECTIONS, DIRECTION_NAMES, EMPTY, GOAL, WALL, type Direction } from '../lambdas/maze/grid.ts';

export interface Sighting {
  position: [number, number];
  view: Record<string, string>;
}

const TILE: Record<string, number> = { '.': EMPTY, '#': WALL, G: GOAL };

/** Facts in a text the engine wrote: a "STATE {...}" line or a tool-result JSON object. */
function sightingsIn(text: string): Sighting[] {
  const out: Sighting[] = [];
  for (const line of text.split('\n')) {
    const json = line.startsWith('STATE ')
      ? line.slice(6)
      : line.trim().startsWith('{')
        ? line.trim()
        : line.includes(': {')
          ? line.slice(line.indexOf(': {') + 2)
          : null;
    if (!json) continue;
    try {
      const v = JSON.parse(json) as Partial<Sighting>;
      if (Array.isArray(v.position) && v.view && typeof v.view === 'object')
        out.push({ position: v.position, view: v.view });
    } catch {
      /* not ours */
    }
  }
  return out;
}

export class SimPlayer {
  private maps = new Map<string, { width: number; height: number; cells: Uint8Array }>();

  /** Next moves (1..callsPerReply) for the conversation so far; `session` separates concurrent games. */
  decide(
    session: string,
    system: string,
    texts: string[],
    callsPerReply: number,
  ): Array<{ name: string; arguments: { reasoning: string } }> {
    const size = /(\d+)x(\d+) tiles/.exec(system);
    const width = size ? Number(size[1]) : 201,
      height = size ? Number(size[2]) : 201;
    const sightings = texts.flatMap(sightingsIn);
    const first = texts[0] ? /STATE (\{.*\})/.exec(texts[0]) : null;
    const fresh = first ? (JSON.parse(first[1]) as { turn: number; actions: number }) : null;
    let map = this.maps.get(session);
    if (
      !map ||
      (fresh && fresh.turn === 1 && fresh.actions === 0 && texts.length === 1) ||
      map.width !== width ||
      map.height !== height
    ) {
      map = { width, height, cells: new Uint8Array(width * height).fill(UNKNOWN) };
      this.maps.set(session, map);
    }
    for (const s of sightings) this.learn(map, s);
    const last = sightings.at(-1);
    if (!last) return [];
    let pos = { x: last.position[0], y: last.position[1] };
    const calls: Array<{ name: string; arguments: { reasoning: string } }> = [];
    for (let i = 0; i < callsPerReply; i++) {
      const dir: Direction | null = nextFrontierMove(map, pos);
      if (!dir) break;
      calls.push({ name: `move_${dir}`, arguments: { reasoning: `heading ${dir} towards unexplored tiles` } });
      pos = { x: pos.x + DIRECTIONS[dir].dx, y: pos.y + DIRECTIONS[dir].dy };
    }
    return calls;
  }

  private learn(map: { width: number; height: number; cells: Uint8Array }, s: Sighting): void {
    const [x0, y0] = s.position;
    if (x0 >= 0 && y0 >= 0 && x0 < map.width && y0 < map.height && map.cells[y0 * map.width + x0] === UNKNOWN)
      map.cells[y0 * map.width + x0] = EMPTY;
    for (const name of DIRECTION_NAMES) {
      const ray = s.view[name] ?? '';
      [...ray].forEach((ch, k) => {
        const x = x0 + DIRECTIONS[name].dx * (k + 1),
          y = y0 + DIRECTIONS[name].dy * (k + 1);
        if (x >= 0 && y >= 0 && x < map.width && y < map.height && ch in TILE) map.cells[y * map.width + x] = TILE[ch];
      });
    }
  }
}

/** Plausible token counts: about four characters a token, as most tokenizers average on English and JSON. */
export const tokensOf = (text: string): number => Math.max(1, Math.ceil(text.length / 4));
