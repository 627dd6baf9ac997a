// The full-information setting: the whole maze, agent and goal marked, every
// turn. Tool results give only the new position: the map does not change, and
// drawing it again after every move would multiply the tokens of a turn.
import type { Observation } from '../../../engine/agent.ts';
import type { ActionResult } from '../../../engine/game.ts';
import { framed, positionLine, textResult, tileChar } from './common.ts';
import { picture } from './picture.ts';

const LEGEND = 'Legend: @ you, . open, # wall, G goal.';

function wholeMaze(obs: Observation): string[] {
  const { grid } = obs;
  const area = { x0: 0, y0: 0, x1: grid.width - 1, y1: grid.height - 1 };
  return picture('The whole maze', area, obs.position, (x, y) => tileChar(grid.get(x, y)));
}

export const fullMapFormat = {
  observation: (obs: Observation, maxMoves: number): string =>
    framed(obs, maxMoves, [positionLine(obs.position), ...wholeMaze(obs), LEGEND]),
  result: (r: ActionResult): string => textResult(r, []),
};
