// The rules of the game as pure functions over a GameState: moves, vision,
// recall window and cooldown, and the success rule. No I/O here.
import { DIRECTIONS, GOAL, WALL, type Point, type Tile } from '../maze/grid.ts';
import type { Maze } from '../maze/maze.ts';
import { visibleCells } from '../maze/vision.ts';
import type { ExperimentConfig } from '../config/experiment-config.ts';
import {
  isMoveTool,
  MOVE_TOOLS,
  moveArgsSchema,
  RECALL_TOOL,
  recallArgsSchema,
  type MoveTool,
  type ToolCall,
} from './tools.ts';

export const UNKNOWN = 255;

export interface GameState {
  position: Point;
  actionsTaken: number;
  turnsCompleted: number;
  tilesSeen: number;
  goalFound: boolean;
  lastRecallStep: number | null;
  /** Cells seen by each of the most recent actions (oldest first), for recall_all. */
  recentVision: number[][];
  /** What the agent has seen: UNKNOWN or the tile, one byte per cell. */
  known: Uint8Array;
  /**
   * How often the agent has entered each cell (moves whose outcome is 'moved'; the start is not entered): what the
   * kept totals' loop cells and most visits follow from (core/store/turn-sql.ts loopCellsOf).
   */
  entries: Uint32Array;
}

/** One tile as the agent sees it: [x, y, tile]. */
export type SeenTile = [number, number, Tile];

export type Outcome =
  | 'moved'
  | 'blocked_by_wall'
  | 'blocked_by_edge'
  | 'recalled'
  | 'recall_cooldown'
  | 'unknown_tool'
  | 'invalid_arguments'
  | 'refused_action_limit'
  | 'refused_turn_over';

export interface ActionResult {
  callIndex: number;
  /** Global 1-based number of the executed action; null for calls not executed. */
  step: number | null;
  tool: string;
  arguments: unknown;
  reasoning: string | null;
  assistantText: string | null;
  parsedFromText: boolean;
  executed: boolean;
  success: boolean;
  outcome: Outcome;
  message: string;
  from: Point;
  to: Point;
  vision: SeenTile[];
  newTiles: number;
  recalled: SeenTile[] | null;
  goalFound: boolean;
}

export function visionOf(config: ExperimentConfig) {
  return { range: config.vision_range, seeThrough: config.see_through };
}

/** Cell indices as the agent sees them: [x, y, tile]. */
export function toSeen(maze: Maze, cells: number[]): SeenTile[] {
  return cells.map((i) => [i % maze.width, Math.floor(i / maze.width), maze.grid.cells[i] as Tile]);
}

function goalVisible(maze: Maze, cells: number[]): boolean {
  return cells.some((i) => maze.grid.cells[i] === GOAL);
}

/** Marks cells known; returns how many were new. */
function learn(state: GameState, maze: Maze, cells: number[]): number {
  let fresh = 0;
  for (const i of cells) {
    if (state.known[i] === UNKNOWN) {
      state.known[i] = maze.grid.cells[i];
      fresh++;
    }
  }
  state.tilesSeen += fresh;
  return fresh;
}

/**
 * The success rule. Under "seen" any visible cell counts: every observation format shows every visible cell (rays
 * and json list the square's off-axis cells under see_through; full_map and adjacency show the whole maze and are
 * refused with "seen"; test/observations.test.ts reads each cell back), so a run is never found from a cell the
 * model was not shown, and baselines score as before.
 */
function isFound(state: GameState, maze: Maze, cells: number[], config: ExperimentConfig): boolean {
  return config.success_rule === 'seen'
    ? goalVisible(maze, cells)
    : state.position.x === maze.goal.x && state.position.y === maze.goal.y;
}

/** The state before the first action: at the start, having looked around once. */
export function initialState(maze: Maze, config: ExperimentConfig): GameState {
  const state: GameState = {
    position: { ...maze.start },
    actionsTaken: 0,
    turnsCompleted: 0,
    tilesSeen: 0,
    goalFound: false,
    lastRecallStep: null,
    recentVision: [],
    known: new Uint8Array(maze.width * maze.height).fill(UNKNOWN),
    entries: new Uint32Array(maze.width * maze.height),
  };
  const cells = visibleCells(maze.grid, state.position, visionOf(config));
  learn(state, maze, cells);
  state.recentVision.push(cells);
  state.goalFound = isFound(state, maze, cells, config);
  return state;
}

export function cloneState(state: GameState): GameState {
  return {
    ...state,
    position: { ...state.position },
    recentVision: state.recentVision.map((v) => v.slice()),
    known: state.known.slice(),
    entries: state.entries.slice(),
  };
}

interface CallContext {
  callIndex: number;
  assistantText: string | null;
}

/** A call that is logged but not executed (over the turn's limit, or after the turn ended). */
export function refuseCall(
  state: GameState,
  call: ToolCall,
  ctx: CallContext,
  outcome: 'refused_action_limit' | 'refused_turn_over',
  message: string,
): ActionResult {
  return {
    callIndex: ctx.callIndex,
    step: null,
    tool: String(call.name),
    arguments: call.arguments ?? null,
    reasoning: reasoningOf(call.arguments),
    assistantText: ctx.assistantText,
    parsedFromText: call.parsedFromText === true,
    executed: false,
    success: false,
    outcome,
    message,
    from: { ...state.position },
    to: { ...state.position },
    vision: [],
    newTiles: 0,
    recalled: null,
    goalFound: state.goalFound,
  };
}

function reasoningOf(args: unknown): string | null {
  if (args && typeof args === 'object' && typeof (args as { reasoning?: unknown }).reasoning === 'string') {
    return (args as { reasoning: string }).reasoning;
  }
  return null;
}

/**
 * Executes one tool call against the state (mutating it). Invalid calls
 * (unknown tool, bad arguments) are executed as failed actions: they take a
 * step, count toward max_moves and leave the agent where it was.
 */
export function executeCall(
  state: GameState,
  maze: Maze,
  config: ExperimentConfig,
  call: ToolCall,
  ctx: CallContext,
): ActionResult {
  const from = { ...state.position };
  const step = state.actionsTaken + 1;
  state.actionsTaken = step;
  const args = call.arguments ?? {};
  const {
    outcome,
    message,
    recalled = null,
  } = isMoveTool(call.name)
    ? move(state, maze, call.name, args)
    : call.name === RECALL_TOOL && config.recall_tool
      ? recall(state, maze, config, args, step)
      : unknownTool(call, config);
  const { cells, newTiles } = lookAround(state, maze, config);
  return {
    callIndex: ctx.callIndex,
    step,
    tool: String(call.name),
    arguments: call.arguments ?? null,
    reasoning: reasoningOf(args),
    assistantText: ctx.assistantText,
    parsedFromText: call.parsedFromText === true,
    executed: true,
    success: outcome === 'moved' || outcome === 'recalled',
    outcome,
    message,
    from,
    to: { ...state.position },
    vision: toSeen(maze, cells),
    newTiles,
    recalled,
    goalFound: state.goalFound,
  };
}

/** What one executed call did, before the agent looks around. */
interface Executed {
  outcome: Outcome;
  message: string;
  recalled?: SeenTile[];
}

/** A move: taken, or refused by the maze's edge or a wall. */
function move(state: GameState, maze: Maze, tool: MoveTool, args: unknown): Executed {
  const parsed = moveArgsSchema.safeParse(args);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`);
    return { outcome: 'invalid_arguments', message: `${tool}: ${issues.join('; ')}` };
  }
  const { dx, dy } = DIRECTIONS[MOVE_TOOLS[tool]];
  const nx = state.position.x + dx,
    ny = state.position.y + dy;
  if (!maze.grid.inBounds(nx, ny))
    return { outcome: 'blocked_by_edge', message: `cannot move ${MOVE_TOOLS[tool]}: the edge of the maze` };
  if (maze.grid.get(nx, ny) === WALL)
    return { outcome: 'blocked_by_wall', message: `cannot move ${MOVE_TOOLS[tool]}: a wall` };
  state.position = { x: nx, y: ny };
  state.entries[ny * maze.width + nx]++;
  return { outcome: 'moved', message: `moved ${MOVE_TOOLS[tool]} to (${nx},${ny})` };
}

/** recall_all: the tiles seen in the recall window, unless the last recall was too recent. */
function recall(state: GameState, maze: Maze, config: ExperimentConfig, args: unknown, step: number): Executed {
  const parsed = recallArgsSchema.safeParse(args);
  const since = state.lastRecallStep === null ? Infinity : step - state.lastRecallStep;
  if (!parsed.success) return { outcome: 'invalid_arguments', message: `${RECALL_TOOL} takes no arguments` };
  if (since < config.recall_interval)
    return {
      outcome: 'recall_cooldown',
      message:
        `recall refused: last recall was ${since} actions ago; ` +
        `wait ${config.recall_interval - since} more actions`,
    };
  const cells = new Set<number>();
  for (const v of state.recentVision) for (const i of v) cells.add(i);
  const recalled = toSeen(
    maze,
    [...cells].sort((a, b) => a - b),
  );
  state.lastRecallStep = step;
  return {
    outcome: 'recalled',
    message: `recalled ${recalled.length} tiles seen in the last ${config.max_recall_actions} actions`,
    recalled,
  };
}

function unknownTool(call: ToolCall, config: ExperimentConfig): Executed {
  return {
    outcome: 'unknown_tool',
    message:
      `unknown tool "${String(call.name).slice(0, 80)}"; ` +
      `the tools are move_north, move_south, move_east, move_west${config.recall_tool ? ', recall_all' : ''}`,
  };
}

/** After every action the agent sees around it: what it learns, the recall window, the goal. */
function lookAround(state: GameState, maze: Maze, config: ExperimentConfig) {
  const cells = visibleCells(maze.grid, state.position, visionOf(config));
  const newTiles = learn(state, maze, cells);
  state.recentVision.push(cells);
  if (state.recentVision.length > config.max_recall_actions) state.recentVision.shift();
  if (!state.goalFound && isFound(state, maze, cells, config)) state.goalFound = true;
  return { cells, newTiles };
}

/** A cell this turn's moves entered: how many of them entered it, and its entries in all after the turn. */
export interface CellEntered {
  moves: number;
  entries: number;
}

/** The cells the actions' moves entered (in the order first entered), read from the state after them. */
export function cellsEntered(state: GameState, width: number, actions: ActionResult[]): CellEntered[] {
  const moves = new Map<number, number>();
  for (const a of actions) {
    if (a.outcome !== 'moved') continue;
    const cell = a.to.y * width + a.to.x;
    moves.set(cell, (moves.get(cell) ?? 0) + 1);
  }
  return [...moves].map(([cell, n]) => ({ moves: n, entries: state.entries[cell] }));
}

/** One executed action as the log keeps it: enough to rebuild what the agent knows. */
export interface LoggedVision {
  step: number;
  vision: SeenTile[];
  recalled: boolean;
  /** The cell a move entered (outcome 'moved'); null for every other action. */
  entered: Point | null;
}

/**
 * Rebuilds the state from the action log (executed actions in step order):
 * known tiles and the recall window follow from the logged visions, and the
 * cells' entries from the logged moves, exactly as executeCall built them.
 */
export function stateFromLog(
  maze: Maze,
  config: ExperimentConfig,
  counters: Pick<GameState, 'position' | 'actionsTaken' | 'turnsCompleted' | 'goalFound'>,
  log: LoggedVision[],
): GameState {
  const state = initialState(maze, config);
  for (const entry of log) {
    const cells = entry.vision.map(([x, y]) => y * maze.width + x);
    learn(state, maze, cells);
    state.recentVision.push(cells);
    if (state.recentVision.length > config.max_recall_actions) state.recentVision.shift();
    if (entry.recalled) state.lastRecallStep = entry.step;
    if (entry.entered) state.entries[entry.entered.y * maze.width + entry.entered.x]++;
  }
  return {
    ...state,
    position: { ...counters.position },
    actionsTaken: counters.actionsTaken,
    turnsCompleted: counters.turnsCompleted,
    goalFound: counters.goalFound,
  };
}
