// An ASCII square of what is in sight around the agent (vision_range each
// way, clipped to the maze), the agent as @ and cells out of sight as ?: the
// picture encoding of the maze studies, limited to what the agent sees.
import type { Observation } from '../../../engine/agent.ts';
import type { ActionResult, SeenTile } from '../../../engine/game.ts';
import type { Point } from '../../../maze/grid.ts';
import { byCell, framed, positionLine, textResult, tileChar, UNSEEN_CHAR } from './common.ts';
import { picture, type Area } from './picture.ts';

// under see_through every cell of the square is in sight: no "?" to explain
const legend = (obs: Observation): string =>
  `Legend: @ you, . open, # wall, G goal${obs.config.see_through ? '' : ', ? out of sight'}.`;

/** The square in sight around `at`: vision_range each way, clipped to the maze (the image format draws the same). */
export function sightSquare(
  at: Point,
  obs: { config: { vision_range: number }; known: { width: number; height: number } },
): Area {
  const r = obs.config.vision_range;
  const { width, height } = obs.known;
  return {
    x0: Math.max(0, at.x - r),
    y0: Math.max(0, at.y - r),
    x1: Math.min(width - 1, at.x + r),
    y1: Math.min(height - 1, at.y + r),
  };
}

function square(at: Point, seen: readonly SeenTile[], obs: Observation): string[] {
  const area = sightSquare(at, obs);
  const cells = byCell(seen);
  return picture('In sight around you', area, at, (x, y) => {
    const tile = cells.get(`${x},${y}`);
    return tile === undefined ? UNSEEN_CHAR : tileChar(tile);
  });
}

export const localGridFormat = {
  observation: (obs: Observation, maxMoves: number): string =>
    framed(obs, maxMoves, [positionLine(obs.position), ...square(obs.position, obs.visible, obs), legend(obs)]),
  result: (r: ActionResult, obs: Observation): string => textResult(r, square(r.to, r.vision, obs)),
};
