// The ceiling among agents that know only what they have seen: walk the
// shortest known route to the nearest frontier (a known open cell next to an
// unknown one); head for the goal once it is known. Unknown cells are never
// assumed open, so it cannot cheat with the true map.
import type { Agent, KnownMap, Observation } from '../engine/agent.ts';
import { frontierSearch } from '../engine/frontier.ts';
import type { Direction } from '../maze/grid.ts';
import type { MoveTool } from '../engine/tools.ts';

const TOOL_OF: Record<Direction, MoveTool> = {
  north: 'move_north',
  south: 'move_south',
  east: 'move_east',
  west: 'move_west',
};

/** First move of a shortest known route to the nearest frontier (goal first); null when nothing is left to explore. */
export function nextFrontierMove(known: KnownMap, from: { x: number; y: number }): Direction | null {
  return frontierSearch(known, from)?.direction ?? null;
}

export function frontierAgent(): Agent {
  return {
    act(obs: Observation) {
      const dir = nextFrontierMove(obs.known, obs.position);
      // Nothing left to explore: stop calling tools, which ends the turn.
      return Promise.resolve(
        dir === null
          ? { calls: [], text: 'no reachable unexplored tile left' }
          : { calls: [{ name: TOOL_OF[dir], arguments: {} }] },
      );
    },
  };
}
