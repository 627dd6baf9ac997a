// The default format: what is in sight along each of the four directions, as
// plain text, e.g. "north: ..#" (open, open, wall).
import type { Observation } from '../../../engine/agent.ts';
import type { ActionResult, SeenTile } from '../../../engine/game.ts';
import { DIRECTION_NAMES, type Point } from '../../../maze/grid.ts';
import { framed, positionLine, rays, textResult } from './common.ts';

function rayLines(at: Point, seen: readonly SeenTile[]): string[] {
  const view = rays(at, seen);
  return DIRECTION_NAMES.map((d) => `${d}: ${view[d] === '' ? 'edge of the maze' : view[d]}`);
}

export const raysFormat = {
  observation: (obs: Observation, maxMoves: number): string =>
    framed(obs, maxMoves, [positionLine(obs.position), ...rayLines(obs.position, obs.visible)]),
  result: (r: ActionResult): string => textResult(r, rayLines(r.to, r.vision)),
};
