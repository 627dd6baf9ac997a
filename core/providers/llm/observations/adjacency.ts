// The whole maze as a graph, every turn: the links between neighbouring open tiles ("(x,y) <--> (x,y)", each once),
// the open tiles that have no open neighbour, and the goal. A full-information format as full_map is (and refused
// with success_rule "seen" for the same reason), the maze given as an adjacency list instead of a picture: the
// representation SpatialBench (Li et al. 2026, arXiv:2604.10690) compares with a character grid. Tool results give
// only the new position: the graph does not change.
import type { Observation } from '../../../engine/agent.ts';
import type { ActionResult } from '../../../engine/game.ts';
import { GOAL, type Grid } from '../../../maze/grid.ts';
import { cellList, framed, positionLine, textResult } from './common.ts';

const at = (x: number, y: number): string => `(${x},${y})`;

/**
 * Every link between two open tiles (east and south neighbours, so each once), in reading order of the tile it
 * starts from, and the open tiles in no link.
 */
function mazeLinks(grid: Grid): { links: string[]; isolated: number[][]; goal: number[][] } {
  const open = (x: number, y: number) => grid.isOpen(x, y);
  const links: string[] = [];
  const linked = new Set<string>();
  const isolated: number[][] = [];
  const goal: number[][] = [];
  for (let y = 0; y < grid.height; y++)
    for (let x = 0; x < grid.width; x++) {
      if (!open(x, y)) continue;
      if (grid.get(x, y) === GOAL) goal.push([x, y]);
      for (const [nx, ny] of [
        [x + 1, y],
        [x, y + 1],
      ])
        if (open(nx, ny)) {
          links.push(`${at(x, y)} <--> ${at(nx, ny)}`);
          linked.add(`${x},${y}`).add(`${nx},${ny}`);
        }
    }
  for (let y = 0; y < grid.height; y++)
    for (let x = 0; x < grid.width; x++) if (open(x, y) && !linked.has(`${x},${y}`)) isolated.push([x, y]);
  return { links, isolated, goal };
}

function wholeGraph(obs: Observation): string[] {
  const { grid } = obs;
  const { links, isolated, goal } = mazeLinks(grid);
  return [
    `Links between open tiles (x 0..${grid.width - 1}, y 0..${grid.height - 1}): ${links.join(' ; ')}`,
    `Open tiles in no link: ${cellList(isolated)}`,
    `Goal: ${cellList(goal)}`,
  ];
}

export const adjacencyFormat = {
  observation: (obs: Observation, maxMoves: number): string =>
    framed(obs, maxMoves, [positionLine(obs.position), ...wholeGraph(obs)]),
  result: (r: ActionResult): string => textResult(r, []),
};
