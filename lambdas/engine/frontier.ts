// Distances on what the agent knows: the shortest known route to the nearest
// frontier (a known open cell next to an unknown one), or to the goal once it
// is known. Used by the frontier baseline to choose moves and by stuck
// detection to tell a purposeful walk back across explored ground from a loop.
import type { KnownMap } from './agent.ts';
import { UNKNOWN } from './game.ts';
import { DIRECTIONS, DIRECTION_NAMES, GOAL, WALL, type Direction } from '../maze/grid.ts';

function isTarget(known: KnownMap, i: number): boolean {
  if (known.cells[i] === GOAL) return true;
  const x = i % known.width, y = (i - x) / known.width;
  for (const name of DIRECTION_NAMES) {
    const nx = x + DIRECTIONS[name].dx, ny = y + DIRECTIONS[name].dy;
    if (nx >= 0 && ny >= 0 && nx < known.width && ny < known.height && known.cells[ny * known.width + nx] === UNKNOWN) return true;
  }
  return false;
}

/** First move and length of a shortest known route to the nearest target (the goal first, if known); null when none is reachable. */
export function frontierSearch(known: KnownMap, from: { x: number; y: number }): { direction: Direction; distance: number } | null {
  const size = known.width * known.height;
  const firstStep = new Int8Array(size).fill(-1);
  const dist = new Int32Array(size).fill(-1);
  const queue = new Int32Array(size);
  let head = 0, tail = 0;
  const start = from.y * known.width + from.x;
  dist[start] = 0;
  queue[tail++] = start;
  let goalAt = -1;
  for (let i = 0; i < size; i++) if (known.cells[i] === GOAL) goalAt = i;
  while (head < tail) {
    const i = queue[head++];
    if (i !== start && (goalAt >= 0 ? i === goalAt : isTarget(known, i))) return { direction: DIRECTION_NAMES[firstStep[i]], distance: dist[i] };
    const x = i % known.width, y = (i - x) / known.width;
    DIRECTION_NAMES.forEach((name, d) => {
      const nx = x + DIRECTIONS[name].dx, ny = y + DIRECTIONS[name].dy;
      if (nx < 0 || ny < 0 || nx >= known.width || ny >= known.height) return;
      const j = ny * known.width + nx;
      const tile = known.cells[j];
      if (dist[j] >= 0 || tile === UNKNOWN || tile === WALL) return;
      dist[j] = dist[i] + 1;
      firstStep[j] = i === start ? d : firstStep[i];
      queue[tail++] = j;
    });
  }
  return null;
}
