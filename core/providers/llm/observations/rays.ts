// The default format: what is in sight along each of the four directions, as
// plain text, e.g. "north: ..#" (open, open, wall); under see-through vision
// also the square's other tiles, by coordinates, so that every tile in sight
// is shown.
import type { Observation } from '../../../engine/agent.ts';
import type { ActionResult, SeenTile } from '../../../engine/game.ts';
import { DIRECTION_NAMES, type Point } from '../../../maze/grid.ts';
import { cellList, framed, groupTiles, offRays, positionLine, rays, textResult } from './common.ts';

function rayLines(at: Point, seen: readonly SeenTile[], seeThrough: boolean): string[] {
  const view = rays(at, seen);
  const lines = DIRECTION_NAMES.map((d) => `${d}: ${view[d] === '' ? 'edge of the maze' : view[d]}`);
  const off = offRays(at, seen);
  if (!seeThrough && off.length === 0) return lines;
  const g = groupTiles(off);
  return [...lines, `Also in sight: open ${cellList(g.open)}; walls ${cellList(g.walls)}; goal ${cellList(g.goal)}.`];
}

export const raysFormat = {
  observation: (obs: Observation, maxMoves: number): string =>
    framed(obs, maxMoves, [positionLine(obs.position), ...rayLines(obs.position, obs.visible, obs.config.see_through)]),
  result: (r: ActionResult, obs: Observation): string =>
    textResult(r, rayLines(r.to, r.vision, obs.config.see_through)),
};
