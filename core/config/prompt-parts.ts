// The variables a prompt version is rendered with. v1's never change, so old runs reproduce; v2's parts say exactly
// what the experiment's observation format shows under its vision mode, which tools are offered, when the run ends
// and what carries over between turns: a prompt describing another picture than the model gets would confound the
// format with a wrong instruction.
import { CELL_PX } from './observation-pictures.ts';
import type { ExperimentConfig } from './experiment-config.ts';

interface MazeFacts {
  width: number;
  height: number;
  start: { x: number; y: number };
}

type Config = Pick<
  ExperimentConfig,
  | 'observation'
  | 'see_through'
  | 'vision_range'
  | 'success_rule'
  | 'memory'
  | 'memory_history_actions'
  | 'recall_tool'
  | 'max_recall_actions'
  | 'recall_interval'
  | 'max_actions_per_turn'
  | 'stuck_policy'
>;

const TILES = 'Tiles: "." open, "#" wall, "G" goal.';
const DIRECTIONS = 'for each of the four directions (north, south, east, west)';

/** The words the formats share, for the config's vision range. */
interface Wording {
  tiles: string;
  line: string;
  square: string;
  picture: string;
}

/** What a turn's first message and each tool result show, in the config's format and vision mode. */
function observationText(c: Config): string {
  const r = c.vision_range;
  const tiles = r === 1 ? '1 tile' : `${r} tiles`;
  const w: Wording = {
    tiles,
    line: `the tiles in a straight line from you outwards, nearest first, up to ${tiles}`,
    square:
      `every tile within ${tiles} of you in both x and y (the square around you); ` + 'walls do not block your view',
    picture: "north at the top; its header gives the columns' x and the rows' y",
  };
  return OBSERVATION_TEXT[c.observation](c, w);
}

const OBSERVATION_TEXT: Record<Config['observation'], (c: Config, w: Wording) => string> = {
  rays: (c, { line, square }) =>
    c.see_through
      ? [
          `You see ${square}.`,
          `Each turn starts with your position, ${DIRECTIONS} ${line} ("edge of the maze" means nothing lies ` +
            'that way), and "Also in sight:" the other tiles of the square by coordinates, as open, walls and goal.',
          'After each action, its result gives your new position and the same lines.',
          TILES,
        ].join('\n')
      : [
          `Each turn starts with your position and, ${DIRECTIONS}, ${line}: a wall blocks your view and is the ` +
            'last tile shown; "edge of the maze" means nothing lies that way.',
          'After each action, its result gives your new position and the same four lines.',
          TILES,
        ].join('\n'),
  local_grid: (c, { tiles, picture }) =>
    [
      `Each turn starts with your position and a picture of the square around you, up to ${tiles} each way ` +
        `(cut off at the maze's edge), ${picture}.`,
      c.see_through
        ? 'You see every tile of the square; walls do not block your view.'
        : `You see along the four directions (north, south, east, west) only, up to ${tiles}, and a wall blocks ` +
          'your view: every other tile of the square shows "?".',
      'After each action, its result gives your new position and the picture around it.',
      `Legend: @ you, . open, # wall, G goal${c.see_through ? '' : ', ? out of sight'}.`,
    ].join('\n'),
  full_map: (_c, { picture }) =>
    [
      `Each turn starts with your position and the whole maze as a picture, ${picture}. ` +
        'The maze does not change: only @ moves.',
      'After each action, its result gives only whether it worked and your new position, not the picture.',
      'Legend: @ you, . open, # wall, G goal.',
    ].join('\n'),
  adjacency: () =>
    [
      'Each turn starts with your position and the whole maze as the links between its open tiles: ' +
        '"(x1,y1) <--> (x2,y2)" means you can move between those two neighbouring tiles. A tile in no link is a ' +
        'wall, or an open tile that no move reaches (listed as "Open tiles in no link"). The goal tile is named. ' +
        'The maze does not change.',
      'After each action, its result gives only whether it worked and your new position, not the links.',
    ].join('\n'),
  coordinates: (c, { tiles, square }) =>
    [
      'Each turn starts with your position, the moves open from here (with the cell each leads to), the ' +
        'blocked directions (a wall or the edge of the maze), and the cells in sight listed by coordinates: ' +
        'open cells, walls, and the goal ("none" when none is in sight).',
      c.see_through
        ? `You see ${square}.`
        : `You see along the four directions (north, south, east, west), up to ${tiles}; a wall blocks your ` +
          'view (the wall itself is listed).',
      'After each action, its result gives your new position and the same lists.',
    ].join('\n'),
  json: (c, { line, square }) => {
    const view = c.see_through
      ? `view: ${DIRECTIONS} ${line}, as a string ("" at the edge of the maze); also_in_sight: the other tiles ` +
        'of the square as [x, y] lists under open, walls and goal'
      : `view: ${DIRECTIONS} ${line}, as a string; a wall blocks your view and is the last tile shown; "" ` +
        'means the edge of the maze';
    const extras = [c.see_through ? 'also_in_sight' : '', c.recall_tool ? 'recalled' : '', 'goal_found']
      .filter(Boolean)
      .join(', ');
    return [
      c.see_through ? `You see ${square}.` : '',
      'Each turn starts with one JSON line: turn, actions (taken so far), max_moves, actions_left_in_turn, ' +
        `position [x, y], and ${view}.`,
      'After each action, its result is one JSON line: ok, result, position, view (when the action was ' +
        `executed), and ${extras} when they apply.`,
      TILES,
    ]
      .filter(Boolean)
      .join('\n');
  },
  image: (c, { tiles }) =>
    [
      `Each turn starts with your position and a picture (PNG, ${CELL_PX}x${CELL_PX} pixels a tile) of the ` +
        `square around you, up to ${tiles} each way (cut off at the maze's edge), north at the top; the text ` +
        "before it gives the columns' x and the rows' y the picture covers. The tiles are shown only in pictures.",
      c.see_through
        ? 'You see every tile of the square; walls do not block your view.'
        : `You see along the four directions (north, south, east, west) only, up to ${tiles}, and a wall blocks ` +
          'your view: every other tile of the square is gray.',
      'After each action, its result gives your new position; a message after the results shows, for each ' +
        'action, a line naming it and the square it covers, then the picture around your new position.',
      'In the pictures: black is a wall, white is open floor, green is the goal, ' +
        `${c.see_through ? '' : 'gray is out of sight, '}and the red dot is you.`,
    ].join('\n'),
};

/** The tools offered (recall_all only with config.recall_tool) and what recall_all answers in this format. */
function toolsText(c: Config): string {
  const moves =
    'Tools: move_north, move_south, move_east, move_west move you one tile (each may carry a short "reasoning"); ' +
    'a move into a wall or off the maze fails and you stay where you are.';
  if (!c.recall_tool) return moves;
  const cooldown = c.recall_interval > 0 ? ` (at most once every ${c.recall_interval} actions)` : '';
  const shape =
    c.observation === 'coordinates'
      ? 'by coordinates, as open cells, walls and the goal'
      : 'as x,y followed by the tile, e.g. 2,3#';
  const recall = `recall_all lists the tiles you saw during your last ${c.max_recall_actions} actions`;
  return `${moves}\n${recall}${cooldown}, ${shape}.`;
}

function goalText(c: Config): string {
  return c.success_rule === 'seen'
    ? 'The experiment ends as soon as the goal is in sight, in an observation or a tool result; ' +
        'you need not stand on it.'
    : 'The experiment ends when you stand on the goal tile; seeing it is not enough.';
}

/** What carries over between turns, the advise policy's section, and advice that the agent can act on. */
function turnText(c: Config): string {
  const memory = {
    fresh:
      'Each turn starts afresh: you are shown the current observation, not earlier turns' +
      (c.recall_tool ? ' (recall_all is your memory of them).' : '.'),
    history:
      `Each turn starts with your last ${c.memory_history_actions} actions, oldest first (step, tool, outcome, ` +
      'position after), then the current observation.',
    conversation: 'The conversation carries over from turn to turn; when it grows long, its oldest turns are dropped.',
  }[c.memory];
  const advise =
    c.stuck_policy === 'advise'
      ? 'When you seem stuck, a section "## Agent State" at the end of a turn\'s first message says so, with advice.'
      : '';
  // the whole-maze formats need no memory to avoid revisits (the maze is there); elsewhere only a memory can know them
  const advice =
    c.observation === 'full_map'
      ? 'Plan a short path on the map and follow it; avoid walking into walls.'
      : c.observation === 'adjacency'
        ? 'Plan a short path along the links and follow it; avoid walking into walls.'
        : c.memory === 'fresh'
          ? 'Avoid walking into walls.'
          : 'Explore efficiently: avoid revisiting tiles and walking into walls.';
  return [memory, advise, advice].filter(Boolean).join('\n');
}

/** Every variable a prompt version may use. */
export function promptVariables(maze: MazeFacts, config: Config): Record<string, string | number> {
  return {
    width: maze.width,
    height: maze.height,
    start_x: maze.start.x,
    start_y: maze.start.y,
    vision_range: config.vision_range,
    max_recall_actions: config.max_recall_actions,
    recall_interval: config.recall_interval,
    max_actions_per_turn: config.max_actions_per_turn,
    // v1's two variables, worded as they always were
    success_text: config.success_rule === 'seen' ? 'the goal tile comes into your view' : 'you stand on the goal tile',
    recall_text: config.recall_tool
      ? `, and recall_all to list the tiles you saw during your last ${config.max_recall_actions} actions ` +
        `(at most once every ${config.recall_interval} actions)`
      : '',
    observation_text: observationText(config),
    tools_text: toolsText(config),
    goal_text: goalText(config),
    turn_text: turnText(config),
  };
}
