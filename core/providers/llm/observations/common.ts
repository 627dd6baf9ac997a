// What every observation format shares: the turn's header and footer, the
// tile characters, the rays along the four directions, and the parts of a tool
// result that are the same in every format (ok or not, what happened, where
// the agent now is, recalled tiles, the goal).
import type { Observation } from '../../../engine/agent.ts';
import type { AgentStateView } from '../../../engine/agent-monitor.ts';
import type { ActionResult, SeenTile } from '../../../engine/game.ts';
import { DIRECTIONS, DIRECTION_NAMES, EMPTY, GOAL, WALL, type Direction, type Point } from '../../../maze/grid.ts';

/** Tile characters by tile number (0 empty, 1 wall, 2 goal), as the system prompt names them. */
const TILE_CHAR = ['.', '#', 'G'];
export const AGENT_CHAR = '@';
export const UNSEEN_CHAR = '?';

export const tileChar = (tile: number): string => TILE_CHAR[tile] ?? UNSEEN_CHAR;

/** The seen tiles by "x,y". */
export function byCell(seen: readonly SeenTile[]): Map<string, number> {
  return new Map(seen.map(([x, y, t]) => [`${x},${y}`, t]));
}

/** Per direction, the tiles along the ray from the agent outwards, e.g. {north: "..#"}; "" at the maze's edge. */
export function rays(at: Point, seen: readonly SeenTile[]): Record<Direction, string> {
  const cells = byCell(seen);
  const out = {} as Record<Direction, string>;
  for (const name of DIRECTION_NAMES) {
    let line = '';
    for (let d = 1; ; d++) {
      const tile = cells.get(`${at.x + DIRECTIONS[name].dx * d},${at.y + DIRECTIONS[name].dy * d}`);
      if (tile === undefined) break;
      line += tileChar(tile);
    }
    out[name] = line;
  }
  return out;
}

/**
 * The seen tiles that rays() does not show, in reading order (north to south, west to east), the agent's own cell
 * left out: none under walls-block vision (every visible cell lies on a ray), the square's off-axis cells under
 * see_through. A format that shows rays must show these too, or success under success_rule "seen" could come from
 * a cell the model was never shown.
 */
export function offRays(at: Point, seen: readonly SeenTile[]): SeenTile[] {
  const shown = new Set<string>([`${at.x},${at.y}`]);
  const view = rays(at, seen);
  for (const name of DIRECTION_NAMES)
    for (let d = 1; d <= view[name].length; d++)
      shown.add(`${at.x + DIRECTIONS[name].dx * d},${at.y + DIRECTIONS[name].dy * d}`);
  return seen.filter(([x, y]) => !shown.has(`${x},${y}`)).sort((a, b) => a[1] - b[1] || a[0] - b[0]);
}

/** Tiles grouped as open cells, walls and the goal (each cell in one group), as [x, y] pairs. */
export function groupTiles(tiles: readonly SeenTile[]): { open: number[][]; walls: number[][]; goal: number[][] } {
  const pick = (want: number) => tiles.filter(([, , t]) => t === want).map(([x, y]) => [x, y]);
  return { open: pick(EMPTY), walls: pick(WALL), goal: pick(GOAL) };
}

/** Cells as "(x,y) (x,y)", or "none". */
export const cellList = (cells: readonly number[][]): string =>
  cells.length > 0 ? cells.map(([x, y]) => `(${x},${y})`).join(' ') : 'none';

export const positionLine = (at: Point): string => `You are at (${at.x},${at.y}).`;

/** The observation around a format's body: turn and budget first, the advise policy's section last. */
export function framed(obs: Observation, maxMoves: number, body: string[]): string {
  const lines = [
    `Turn ${obs.turnNumber}. Actions taken so far: ${obs.actionsTaken} of ${maxMoves}.`,
    ...body,
    `You may take up to ${obs.actionsLeftInTurn} actions this turn.`,
  ];
  return withAgentState(lines, obs).join('\n');
}

/** The `advise` policy's section, at the end of the turn's first message (in every format). */
export function withAgentState(lines: string[], obs: Observation): string[] {
  return obs.agentState ? [...lines, '', ...describeAgentState(obs.agentState)] : lines;
}

function describeAgentState(s: AgentStateView): string[] {
  const lines = [
    '## Agent State',
    `Phase: ${s.phase} (for ${s.actionsInPhase} actions, ${s.turnsInPhase} turns)`,
    `Status: ${s.healthy ? 'HEALTHY' : 'STUCK'}`,
  ];
  for (const d of s.detected) lines.push(`Detected (${d.detector}): ${d.detail}`, `Advice: ${d.advice}`);
  return lines;
}

/** Recalled tiles as "x,y" followed by the tile's character, e.g. "2,3. 2,4#". */
export const recalledText = (recalled: readonly SeenTile[]): string =>
  recalled.map(([x, y, t]) => `${x},${y}${tileChar(t)}`).join(' ');

/**
 * A text result: "ok: ..." or "failed: ...", the position, the format's view (if it moved or looked), recalled
 * tiles (as `recalled` writes them: "Recalled tiles: x,y<tile> ..." unless the format says otherwise), the goal.
 */
export function textResult(
  r: ActionResult,
  view: string[],
  recalled = (tiles: readonly SeenTile[]): string[] => [`Recalled tiles: ${recalledText(tiles)}`],
): string {
  const lines = [`${r.success ? 'ok' : 'failed'}: ${r.message}`, positionLine(r.to)];
  if (r.executed) lines.push(...view);
  if (r.recalled) lines.push(...recalled(r.recalled));
  if (r.goalFound) lines.push('Goal found.');
  return lines.join('\n');
}
