// The floor: a seeded random walk. It picks uniformly among the moves not
// blocked by a wall it can see next to it (all four if boxed in). Its choice at
// step n depends only on (seed, n) and what it sees, so a turn re-run in a
// fresh Lambda makes the same moves.
import type { Agent, Observation } from '../engine/agent.ts';
import { UNKNOWN } from '../engine/game.ts';
import { createRng, mixSeed } from '../maze/rng.ts';
import { DIRECTIONS, WALL } from '../maze/grid.ts';
import { MOVE_TOOLS, type MoveTool } from '../engine/tools.ts';

const MOVES = Object.keys(MOVE_TOOLS) as MoveTool[];

export function randomAgent(seed: number): Agent {
  return {
    act(obs: Observation) {
      const { known, position } = obs;
      const open = MOVES.filter((tool) => {
        const { dx, dy } = DIRECTIONS[MOVE_TOOLS[tool]];
        const x = position.x + dx,
          y = position.y + dy;
        if (x < 0 || y < 0 || x >= known.width || y >= known.height) return false;
        const tile = known.cells[y * known.width + x];
        return tile === UNKNOWN || tile !== WALL;
      });
      const rng = createRng(mixSeed('random-agent', seed, obs.actionsTaken));
      const tool = rng.pick(open.length > 0 ? open : MOVES);
      return Promise.resolve({ calls: [{ name: tool, arguments: {} }] });
    },
  };
}
