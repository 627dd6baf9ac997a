// The ceiling among agents that know only what they have seen: walk the
// shortest known route to the nearest frontier (a known open cell next to an
// unknown one); head for the goal once it is known. Unknown cells are never
// assumed open, so it cannot cheat with the true map.
import type { Agent, KnownMap, Observation } from '../engine/agent.ts';
import { UNKNOWN } from '../engine/game.ts';
import { DIRECTIONS, DIRECTION_NAMES, GOAL, WALL, type Direction } from '../maze/grid.ts';
import type { MoveTool } from '../engine/tools.ts';

const TOOL_OF: Record<Direction, MoveTool> = { north: 'move_north', south: 'move_south', east: 'move_east', west: 'move_west' };

function isTarget(known: KnownMap, i: number): boolean {
  if (known.cells[i] === GOAL) return true;
  const x = i % known.width, y = (i - x) / known.width;
  for (const name of DIRECTION_NAMES) {
    const nx = x + DIRECTIONS[name].dx, ny = y + DIRECTIONS[name].dy;
    if (nx >= 0 && ny >= 0 && nx < known.width && ny < known.height && known.cells[ny * known.width + nx] === UNKNOWN) return true;
  }
  return false;
}

/** First move of a shortest known route to the nearest target, goal first; null when nothing is left to explore. */
export function nextFrontierMove(known: KnownMap, from: { x: number; y: number }): Direction | null {
  const size = known.width * known.height;
  const firstStep = new Int8Array(size).fill(-1);
  const seen = new Uint8Array(size);
  const queue = new Int32Array(size);
  let head = 0, tail = 0;
  const start = from.y * known.width + from.x;
  seen[start] = 1;
  queue[tail++] = start;
  let goalAt = -1, frontierAt = -1;
  for (let i = 0; i < size; i++) if (known.cells[i] === GOAL) goalAt = i;
  while (head < tail) {
    const i = queue[head++];
    if (i !== start && (goalAt >= 0 ? i === goalAt : isTarget(known, i))) { frontierAt = i; break; }
    const x = i % known.width, y = (i - x) / known.width;
    DIRECTION_NAMES.forEach((name, d) => {
      const nx = x + DIRECTIONS[name].dx, ny = y + DIRECTIONS[name].dy;
      if (nx < 0 || ny < 0 || nx >= known.width || ny >= known.height) return;
      const j = ny * known.width + nx;
      const tile = known.cells[j];
      if (seen[j] || tile === UNKNOWN || tile === WALL) return;
      seen[j] = 1;
      firstStep[j] = i === start ? d : firstStep[i];
      queue[tail++] = j;
    });
  }
  return frontierAt >= 0 ? DIRECTION_NAMES[firstStep[frontierAt]] : null;
}

export function frontierAgent(): Agent {
  return {
    async act(obs: Observation) {
      const dir = nextFrontierMove(obs.known, obs.position);
      // Nothing left to explore: stop calling tools, which ends the turn.
      return dir === null ? { calls: [], text: 'no reachable unexplored tile left' } : { calls: [{ name: TOOL_OF[dir], arguments: {} }] };
    },
  };
}
