// No picture and no tile characters: the moves open from here and the cells in
// sight as (x,y) lists (recalled tiles too), for models that reason better
// over coordinates than over ASCII art.
import type { Observation } from '../../../engine/agent.ts';
import type { ActionResult, SeenTile } from '../../../engine/game.ts';
import { DIRECTIONS, DIRECTION_NAMES, WALL, type Point } from '../../../maze/grid.ts';
import { byCell, cellList, framed, groupTiles, positionLine, textResult } from './common.ts';

const at = (x: number, y: number): string => `(${x},${y})`;

function cellLines(pos: Point, seen: readonly SeenTile[]): string[] {
  const cells = byCell(seen);
  const open: string[] = [];
  const blocked: string[] = [];
  for (const d of DIRECTION_NAMES) {
    const x = pos.x + DIRECTIONS[d].dx,
      y = pos.y + DIRECTIONS[d].dy;
    const tile = cells.get(`${x},${y}`);
    if (tile === undefined) blocked.push(`${d} (edge of the maze)`);
    else if (tile === WALL) blocked.push(`${d} (wall at ${at(x, y)})`);
    else open.push(`${d} to ${at(x, y)}`);
  }
  // reading order (north to south, west to east), the agent's own cell left out
  const others = [...seen].filter(([x, y]) => x !== pos.x || y !== pos.y).sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  const g = groupTiles(others);
  return [
    `Open moves: ${open.length > 0 ? open.join(', ') : 'none'}.`,
    `Blocked: ${blocked.length > 0 ? blocked.join(', ') : 'none'}.`,
    `Open cells in sight: ${cellList(g.open)}`,
    `Walls in sight: ${cellList(g.walls)}`,
    `Goal in sight: ${cellList(g.goal)}`,
  ];
}

/** Recalled tiles as the same lists (no tile characters: the prompt of this format names none). */
function recalledLines(tiles: readonly SeenTile[]): string[] {
  const g = groupTiles(tiles);
  return [
    `Recalled open cells: ${cellList(g.open)}`,
    `Recalled walls: ${cellList(g.walls)}`,
    `Recalled goal: ${cellList(g.goal)}`,
  ];
}

export const coordinatesFormat = {
  observation: (obs: Observation, maxMoves: number): string =>
    framed(obs, maxMoves, [positionLine(obs.position), ...cellLines(obs.position, obs.visible)]),
  result: (r: ActionResult): string => textResult(r, cellLines(r.to, r.vision), recalledLines),
};
