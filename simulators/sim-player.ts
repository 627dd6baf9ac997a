// The simulated model behind both simulators. It reads only what the engine
// sent (the observation and each tool result, in whichever format the
// experiment shows: observation-reader.ts), keeps its own map of what it saw,
// and walks to the goal once seen, else to the nearest unexplored tile, as a
// model that really plays would.
import { nextFrontierMove } from '../core/providers/frontier-agent.ts';
import { UNKNOWN } from '../core/engine/game.ts';
import { DIRECTIONS, EMPTY, GOAL, WALL, type Direction } from '../core/maze/grid.ts';
import { isGameStart, readObservation, type Reading } from './observation-reader.ts';

export class SimPlayer {
  private maps = new Map<string, { width: number; height: number; cells: Uint8Array }>();

  /** Next moves (1..callsPerReply) for the conversation so far; `session` separates concurrent games. */
  decide(
    session: string,
    system: string,
    texts: string[],
    callsPerReply: number,
  ): Array<{ name: string; arguments: { reasoning: string } }> {
    const { width, height } = sizeOf(system);
    const readings = texts.map(readObservation);
    let map = this.maps.get(session);
    if (!map || (texts.length === 1 && isGameStart(texts[0])) || map.width !== width || map.height !== height) {
      map = { width, height, cells: new Uint8Array(width * height).fill(UNKNOWN) };
      this.maps.set(session, map);
    }
    // Requests carry no game id (real ones do not either), so concurrent games of one model share a session: what
    // contradicts the map (a wall where it knows open ground, or the reverse) means another game, so start afresh.
    if (readings.some((r) => this.contradicts(map!, r))) {
      map = { width, height, cells: new Uint8Array(width * height).fill(UNKNOWN) };
      this.maps.set(session, map);
    }
    for (const r of readings) this.learn(map, r);
    const last = readings.findLast((r) => r.position !== null)?.position;
    if (!last) return [];
    let pos = { x: last[0], y: last[1] };
    const calls: Array<{ name: string; arguments: { reasoning: string } }> = [];
    for (let i = 0; i < callsPerReply; i++) {
      const dir: Direction | null = nextFrontierMove(map, pos);
      if (!dir) break;
      calls.push({ name: `move_${dir}`, arguments: { reasoning: `heading ${dir} towards unexplored tiles` } });
      pos = { x: pos.x + DIRECTIONS[dir].dx, y: pos.y + DIRECTIONS[dir].dy };
    }
    return calls;
  }

  /**
   * The map the player believes after `texts` (a belief probe's conversation) and where it stands: its own map, what
   * the texts show added to a copy of it (it learns nothing from a probe), `noise` of its known cells remembered
   * wrong (the same cells every time). Rows of the probe's legend: . # G, @ itself, ? not known.
   */
  believe(
    session: string,
    system: string,
    texts: string[],
    noise = 0,
  ): { rows: string[]; position: [number, number] | null } {
    const { width, height } = sizeOf(system);
    const readings = texts.map(readObservation);
    const kept = this.maps.get(session);
    const same =
      kept && kept.width === width && kept.height === height && !readings.some((r) => this.contradicts(kept, r));
    const map = { width, height, cells: same ? kept.cells.slice() : new Uint8Array(width * height).fill(UNKNOWN) };
    for (const r of readings) this.learn(map, r);
    const position = readings.findLast((r) => r.position !== null)?.position ?? null;
    const rows = Array.from({ length: height }, (_, y) =>
      Array.from({ length: width }, (_, x) => {
        if (position && position[0] === x && position[1] === y) return '@';
        const tile = map.cells[y * width + x];
        if (tile === UNKNOWN) return '?';
        const wrong = tile !== GOAL && misremembered(x, y) < noise;
        return tile === GOAL ? 'G' : (tile === WALL) !== wrong ? '#' : '.';
      }).join(''),
    );
    return { rows, position };
  }

  private contradicts(map: { width: number; height: number; cells: Uint8Array }, r: Reading): boolean {
    return r.cells.some(([x, y, tile]) => {
      if (x < 0 || y < 0 || x >= map.width || y >= map.height) return false;
      const known = map.cells[y * map.width + x];
      return known !== UNKNOWN && (known === WALL) !== (tile === WALL);
    });
  }

  private learn(map: { width: number; height: number; cells: Uint8Array }, r: Reading): void {
    for (const [x, y, tile] of r.cells) {
      if (x < 0 || y < 0 || x >= map.width || y >= map.height) continue;
      // the agent's own cell is open unless the text showed more (the goal under it)
      if (tile !== EMPTY || map.cells[y * map.width + x] === UNKNOWN) map.cells[y * map.width + x] = tile;
    }
  }
}

/** The maze's size as the system prompt gives it ("11x11 tiles"); 201x201 when it gives none. */
function sizeOf(system: string): { width: number; height: number } {
  const size = /(\d+)x(\d+) tiles/.exec(system);
  return size ? { width: Number(size[1]), height: Number(size[2]) } : { width: 201, height: 201 };
}

/** A cell's fixed draw in [0, 1): below beliefNoise, the simulated model remembers the cell wrong. */
const misremembered = (x: number, y: number): number => ((((x * 73_856_093) ^ (y * 19_349_663)) >>> 0) % 1000) / 1000;

/** Plausible token counts: about four characters a token, as most tokenizers average on English and JSON. */
export const tokensOf = (text: string): number => Math.max(1, Math.ceil(text.length / 4));
