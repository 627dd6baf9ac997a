// No picture: the moves open from here and the cells in sight as (x,y) lists,
// for models that reason better over coordinates than over ASCII art.
import type { Observation } from '../../../engine/agent.ts';
import type { ActionResult, SeenTile } from '../../../engine/game.ts';
import { DIRECTIONS, DIRECTION_NAMES, GOAL, WALL, type Point } from '../../../maze/grid.ts';
import { byCell, framed, positionLine, textResult } from './common.ts';

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
  const list = (want: (t: number) => boolean) => {
    const found = others.filter(([, , t]) => want(t)).map(([x, y]) => at(x, y));
    return found.length > 0 ? found.join(' ') : 'none';
  };
  return [
    `Open moves: ${open.length > 0 ? open.join(', ') : 'none'}.`,
    `Blocked: ${blocked.length > 0 ? blocked.join(', ') : 'none'}.`,
    `Open cells in sight: ${list((t) => t !== WALL)}`,
    `Walls in sight: ${list((t) => t === WALL)}`,
    `Goal in sight: ${list((t) => t === GOAL)}`,
  ];
}

export const coordinatesFormat = {
  observation: (obs: Observation, maxMoves: number): string =>
    framed(obs, maxMoves, [positionLine(obs.position), ...cellLines(obs.position, obs.visible)]),
  result: (r: ActionResult): string => textResult(r, cellLines(r.to, r.vision)),
};
