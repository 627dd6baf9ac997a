// Distances on what the agent knows: the shortest known route to the nearest
// frontier (a known open cell next to an unknown one), or to the goal once it
// is known. Used by the frontier baseline to choose moves and by stuck
// detection to tell a purposeful walk back across explored ground from a loop.
import type { KnownMap } from './agent.ts';
import { UNKNOWN } from './game.ts';
import { DIRECTIONS, DIRECTION_NAMES, GOAL, WALL, type Direction } from '../maze/grid.ts';

function isTarget(known: KnownMap, i: number): boolean {
  if (known.cells[i] === GOAL) return true;
  const x = i % known.width,
    y = (i - x) / known.width;
  for (const name of DIRECTION_NAMES) {
    const nx = x + DIRECTIONS[name].dx,
      ny = y + DIRECTIONS[name].dy;
    if (nx >= 0 && ny >= 0 && nx < known.width && ny < known.height && known.cells[ny * known.width + nx] === UNKNOWN)
      return true;
  }
  return false;
}

// Scratch buffers reused across searches (one set per maze size): a search
// then costs the region it explores, not an allocation and a fill of the
// whole maze, which matters when stuck detection asks after every move.
const buffers = new Map<
  number,
  { seen: Uint32Array; firstStep: Int8Array; dist: Int32Array; queue: Int32Array; generation: number }
>();

function scratch(size: number) {
  let b = buffers.get(size);
  if (!b) {
    if (buffers.size > 8) buffers.clear();
    b = {
      seen: new Uint32Array(size),
      firstStep: new Int8Array(size),
      dist: new Int32Array(size),
      queue: new Int32Array(size),
      generation: 0,
    };
    buffers.set(size, b);
  }
  if (++b.generation === 0xffffffff) {
    b.seen.fill(0);
    b.generation = 1;
  }
  return b;
}

/**
 * First move and length of a shortest known route to the nearest target (the
 * goal first, if known); null when none is reachable in fewer than
 * `below` moves (any distance by default).
 */
export function frontierSearch(
  known: KnownMap,
  from: { x: number; y: number },
  below = Infinity,
): { direction: Direction; distance: number } | null {
  const { width, height, cells } = known;
  const { seen, firstStep, dist, queue, generation } = scratch(width * height);
  let head = 0,
    tail = 0;
  const start = from.y * width + from.x;
  seen[start] = generation;
  dist[start] = 0;
  queue[tail++] = start;
  const goalAt = cells.indexOf(GOAL);
  while (head < tail) {
    const i = queue[head++];
    if (dist[i] >= below) return null; // breadth-first: everything after is at least as far
    if (i !== start && (goalAt >= 0 ? i === goalAt : isTarget(known, i)))
      return { direction: DIRECTION_NAMES[firstStep[i]], distance: dist[i] };
    const x = i % width,
      y = (i - x) / width;
    for (let d = 0; d < DIRECTION_NAMES.length; d++) {
      const { dx, dy } = DIRECTIONS[DIRECTION_NAMES[d]];
      const nx = x + dx,
        ny = y + dy;
      if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
      const j = ny * width + nx;
      const tile = cells[j];
      if (seen[j] === generation || tile === UNKNOWN || tile === WALL) continue;
      seen[j] = generation;
      dist[j] = dist[i] + 1;
      firstStep[j] = i === start ? d : firstStep[i];
      queue[tail++] = j;
    }
  }
  return null;
}
