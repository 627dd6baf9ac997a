// A rectangle of the maze as ASCII rows, north up, with a header that names
// the columns' x and the rows' y, so a reader can turn any character back
// into coordinates.
import type { Point } from '../../../maze/grid.ts';
import { AGENT_CHAR } from './common.ts';

export interface Area {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The header, the rows (the agent as @) and the legend; `charAt` gives any other cell's character. */
export function picture(title: string, area: Area, agent: Point, charAt: (x: number, y: number) => string): string[] {
  const rows: string[] = [];
  for (let y = area.y0; y <= area.y1; y++) {
    let row = '';
    for (let x = area.x0; x <= area.x1; x++) row += x === agent.x && y === agent.y ? AGENT_CHAR : charAt(x, y);
    rows.push(row);
  }
  return [
    `${title}, columns x=${area.x0}..${area.x1} (west to east), rows y=${area.y0}..${area.y1} (north to south):`,
    ...rows,
  ];
}
