// The square in sight around the agent (as local_grid shows it) drawn as a picture instead of text: the encoding
// a published maze benchmark found models read far worse than a text grid, so a factor to measure. The text says
// where the agent is and which columns and rows each picture covers; the tiles are only in the picture. A tool
// result says what happened; its picture follows the results in a message of its own (a tool result cannot carry an
// image on every provider), each picture after a caption line naming the action and the square it covers.
import type { Observation } from '../../../engine/agent.ts';
import type { ActionResult } from '../../../engine/game.ts';
import type { Point } from '../../../maze/grid.ts';
import { byCell, framed, positionLine, textResult } from './common.ts';
import { sightSquare } from './local-grid.ts';
import type { Area } from './picture.ts';
import { drawView, type ViewImage } from './view-image.ts';

// under see_through every tile of the square is in sight: no gray to explain
const legend = (obs: Observation): string =>
  'In the picture each tile is a square, north at the top: black is a wall, white is open floor, green is the ' +
  `goal, ${obs.config.see_through ? '' : 'gray is out of sight, '}and the red dot is you.`;

const covers = (a: Area): string =>
  `columns x=${a.x0}..${a.x1} (west to east), rows y=${a.y0}..${a.y1} (north to south)`;

/** What a picture is drawn from: the vision range, and the maze's size (the square is clipped to it). */
interface Sight {
  config: { vision_range: number };
  known: { width: number; height: number };
}

/**
 * The picture of the square around `at` with the tiles `seen` (the rest out of sight): as the turn showed it, and as
 * the viewer draws it again from the stored vision (results/observation-pictures.ts).
 */
export function viewPicture(at: Point, seen: Observation['visible'], sight: Sight): ViewImage {
  const cells = byCell(seen);
  return drawView(sightSquare(at, sight), at, (x, y) => cells.get(`${x},${y}`));
}

export const imageFormat = {
  observation: (obs: Observation, maxMoves: number): string =>
    framed(obs, maxMoves, [
      positionLine(obs.position),
      `The picture shows the tiles in sight around you: ${covers(sightSquare(obs.position, obs))}.`,
      legend(obs),
    ]),
  result: (r: ActionResult): string => textResult(r, ['Your view from here is in a picture after these results.']),
  /** An executed action's caption in the message that carries its picture. */
  caption: (r: ActionResult, obs: Observation): string =>
    `After ${r.tool} you are at (${r.to.x},${r.to.y}); the next picture shows ${covers(sightSquare(r.to, obs))}.`,
  /** The turn's first picture, and one per executed action after it. */
  picture: viewPicture,
};
