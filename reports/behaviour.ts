// Why a run failed, read from its moves on its maze (defined in docs/sweeps-and-statistics.md, "Behaviour"): loops
// (MazeEval's rule, a cell entered 10 or more times), wall bumps, dead-end re-entries, oscillations, revisits,
// coverage by step, where progress stopped, and exploration against the frontier baseline on the same maze. Pure:
// the moves come packed from results/run-moves.ts, the frontier's walk from frontier-baseline.ts.
import type { Maze } from '../core/maze/maze.ts';
import { distancesFrom, UNREACHABLE } from '../core/maze/solver.ts';
import { DIRECTIONS, DIRECTION_NAMES, type Grid } from '../core/maze/grid.ts';
import { kindOf, xOf, yOf, type RunTrace } from '../results/run-moves.ts';
import type { FrontierWalk } from './frontier-baseline.ts';

/** MazeEval's loop: a cell entered this many times or more. */
export const LOOP_ENTRIES = 10;
/** Coverage is sampled at step 0 and at every 1/COVERAGE_POINTS of a run's steps. */
const COVERAGE_POINTS = 100;

export interface RunBehaviour {
  /** Executed actions (steps), and the moves taken among them (outcome moved). */
  steps: number;
  moves: number;
  /** Moves refused by a wall or by the maze's edge (edgeBumps of them by the edge), and per 100 move attempts. */
  wallBumps: number;
  edgeBumps: number;
  wallBumpsPer100: number | null;
  /** Cells entered LOOP_ENTRIES times or more (MazeEval's loop); whether there was one; the most entries of a cell. */
  loopCells: number;
  looped: boolean;
  mostEntries: number;
  /** Moves into a cell already visited (the start is visited at step 0), and their share of the moves taken. */
  revisits: number;
  revisitRatio: number | null;
  /** Moves into a dead end (an open cell with one open neighbour) already visited. */
  deadEndReentries: number;
  /** Back-and-forth stretches between two cells of 3 moves or more (A-B-A-B), and the moves in them. */
  oscillations: number;
  oscillationMoves: number;
  /** Distinct cells visited (the start included), the open cells reachable from the start, tiles seen. */
  cellsVisited: number;
  reachableCells: number;
  tilesSeen: number;
  /** Cells visited and tiles seen after steps[k]: at step 0 and every 1% of the run's steps (its last included). */
  coverage: { steps: number[]; cells: number[]; tiles: number[] };
  /**
   * A run that ended without the goal: the last step that saw a new tile or entered a new cell (0: none did), the
   * cell the agent was in after it, and the steps taken after it. Null for a run that found the goal or is running.
   */
  progress: { lastStep: number; x: number; y: number; stepsAfter: number } | null;
  /**
   * The frontier baseline's walk on the same maze, vision and success rule: the step it found the goal (null: not by
   * this run's last step, for a run that did not find it; never, for one that did), and the tiles it and this run
   * had seen at atStep, the last step both walks have (the shorter one's last).
   */
  frontier: { goalStep: number | null; atStep: number; tiles: number; runTiles: number };
  /** runTiles / frontier tiles at atStep; null for a run of no steps. */
  explorationEfficiency: number | null;
  /** For a run that found the goal: the frontier's steps to it / the run's steps. */
  stepsVsFrontier: number | null;
}

/** A run as runBehaviour reads it. */
export interface RunInput {
  maze: Maze;
  trace: RunTrace;
  goalFound: boolean;
  /** The run has ended (not running). */
  ended: boolean;
  /**
   * The frontier baseline's walk on the same maze under the run's vision and success rule: walked at least as far as
   * the run's steps, and for a run that found the goal until the frontier finds it too.
   */
  frontier: FrontierWalk;
}

/** An open cell with exactly one open neighbour. */
function isDeadEnd(grid: Grid, x: number, y: number): boolean {
  if (!grid.isOpen(x, y)) return false;
  let open = 0;
  for (const name of DIRECTION_NAMES) if (grid.isOpen(x + DIRECTIONS[name].dx, y + DIRECTIONS[name].dy)) open++;
  return open === 1;
}

/** How often each cell was entered by a move (the start is not entered at step 0), cell index y * width + x. */
export function cellEntries(trace: RunTrace, width: number, height: number): Uint32Array {
  const entries = new Uint32Array(width * height);
  for (let i = 0; i < trace.codes.length; i++) {
    const code = trace.codes[i];
    if (kindOf(code) === 'moved') entries[yOf(code) * width + xOf(code)]++;
  }
  return entries;
}

/** What one pass over a run's steps counts (see RunBehaviour for each). */
interface Walk {
  moves: number;
  wallBumps: number;
  edgeBumps: number;
  revisits: number;
  deadEndReentries: number;
  /** Cells visited after each step, step 0 first. */
  cellsByStep: Uint32Array;
  /** The last step that saw a new tile or entered a new cell (0: none). */
  lastProgress: number;
  /** The cells the agent stood in, the start first, one more after each move taken. */
  path: number[];
}

function walk(maze: Maze, trace: RunTrace): Walk {
  const { width, grid } = maze;
  const visited = new Uint8Array(maze.width * maze.height);
  const start = maze.start.y * width + maze.start.x;
  visited[start] = 1;
  const w: Walk = {
    moves: 0,
    wallBumps: 0,
    edgeBumps: 0,
    revisits: 0,
    deadEndReentries: 0,
    cellsByStep: new Uint32Array(trace.codes.length + 1),
    lastProgress: 0,
    path: [start],
  };
  let cells = 1;
  w.cellsByStep[0] = 1;
  for (let i = 0; i < trace.codes.length; i++) {
    const code = trace.codes[i];
    const [kind, x, y] = [kindOf(code), xOf(code), yOf(code)];
    const cell = y * width + x;
    if (kind === 'blocked_by_wall' || kind === 'blocked_by_edge') w.wallBumps++;
    if (kind === 'blocked_by_edge') w.edgeBumps++;
    if (kind === 'moved') {
      w.moves++;
      w.path.push(cell);
      if (visited[cell]) {
        w.revisits++;
        if (isDeadEnd(grid, x, y)) w.deadEndReentries++;
      } else {
        visited[cell] = 1;
        cells++;
        w.lastProgress = i + 1;
      }
    }
    if (trace.tiles[i] > 0) w.lastProgress = i + 1;
    w.cellsByStep[i + 1] = cells;
  }
  return w;
}

/**
 * Back-and-forth on the path of cells (bumps and other actions in between do not break it): a maximal stretch
 * p[i..j] with p[k + 2] = p[k] for every k from i to j - 2, of j - i >= 3 moves (A-B-A-B); A-B-A alone is a
 * dead end walked back out of, not an oscillation. Two stretches share no move.
 */
export function oscillationsOf(path: readonly number[]): { oscillations: number; moves: number } {
  let oscillations = 0,
    moves = 0,
    run = 0;
  const close = () => {
    // a run of `run` consecutive k with p[k + 2] = p[k] spans run + 1 moves
    if (run >= 2) {
      oscillations++;
      moves += run + 1;
    }
    run = 0;
  };
  for (let k = 0; k + 2 < path.length; k++) {
    if (path[k + 2] === path[k]) run++;
    else close();
  }
  close();
  return { oscillations, moves };
}

/** Tiles seen after each step: the frontier's step 0 (the same start and vision), then the run's new tiles. */
function tilesByStep(trace: RunTrace, atStart: number): Uint32Array {
  const tiles = new Uint32Array(trace.tiles.length + 1);
  tiles[0] = atStart;
  for (let i = 0; i < trace.tiles.length; i++) tiles[i + 1] = tiles[i] + trace.tiles[i];
  return tiles;
}

/** Cells and tiles at step 0 and every 1% of the steps, the last step included. */
function coverageOf(cells: Uint32Array, tiles: Uint32Array): RunBehaviour['coverage'] {
  const steps = cells.length - 1;
  const at = [
    ...new Set(Array.from({ length: COVERAGE_POINTS + 1 }, (_, k) => Math.round((k * steps) / COVERAGE_POINTS))),
  ];
  return { steps: at, cells: at.map((s) => cells[s]), tiles: at.map((s) => tiles[s]) };
}

/**
 * The run against the frontier's walk at the last step both have, and in steps to the goal. What the frontier did
 * after the run's last step counts only for a run that found the goal (a walk may be longer for another run).
 */
function againstFrontier(tiles: Uint32Array, frontier: FrontierWalk, goalFound: boolean) {
  const steps = tiles.length - 1;
  const atStep = Math.min(steps, frontier.tilesByStep.length - 1);
  const [runTiles, baseline] = [tiles[atStep], frontier.tilesByStep[atStep]];
  const goalStep = frontier.goalStep !== null && (goalFound || frontier.goalStep <= steps) ? frontier.goalStep : null;
  return {
    frontier: { goalStep, atStep, tiles: baseline, runTiles },
    explorationEfficiency: steps === 0 ? null : runTiles / baseline,
    stepsVsFrontier: goalFound && steps > 0 && goalStep !== null ? goalStep / steps : null,
  };
}

/** Where a run that ended without the goal stopped making progress (see RunBehaviour.progress). */
function progressOf(run: RunInput, w: Walk): RunBehaviour['progress'] {
  if (run.goalFound || !run.ended) return null;
  const cell = w.lastProgress === 0 ? null : run.trace.codes[w.lastProgress - 1];
  return {
    lastStep: w.lastProgress,
    x: cell === null ? run.maze.start.x : xOf(cell),
    y: cell === null ? run.maze.start.y : yOf(cell),
    stepsAfter: run.trace.codes.length - w.lastProgress,
  };
}

const reachable = new WeakMap<Maze, number>();

/** Open cells reachable from the start (the start included), counted once per maze however many runs share it. */
function reachableCells(maze: Maze): number {
  let n = reachable.get(maze);
  if (n === undefined)
    reachable.set(
      maze,
      (n = distancesFrom(maze.grid, maze.start).reduce((k, d) => (d === UNREACHABLE ? k : k + 1), 0)),
    );
  return n;
}

/** Every measure of RunBehaviour for one run. */
export function runBehaviour(run: RunInput): RunBehaviour {
  const { maze, trace } = run;
  const w = walk(maze, trace);
  const entries = cellEntries(trace, maze.width, maze.height);
  const loopCells = entries.reduce((n, e) => (e >= LOOP_ENTRIES ? n + 1 : n), 0);
  const tiles = tilesByStep(trace, run.frontier.tilesByStep[0]);
  const { oscillations, moves: oscillationMoves } = oscillationsOf(w.path);
  const attempts = w.moves + w.wallBumps;
  return {
    steps: trace.codes.length,
    moves: w.moves,
    wallBumps: w.wallBumps,
    edgeBumps: w.edgeBumps,
    wallBumpsPer100: attempts === 0 ? null : (100 * w.wallBumps) / attempts,
    loopCells,
    looped: loopCells > 0,
    mostEntries: entries.reduce((m, e) => Math.max(m, e), 0),
    revisits: w.revisits,
    revisitRatio: w.moves === 0 ? null : w.revisits / w.moves,
    deadEndReentries: w.deadEndReentries,
    oscillations,
    oscillationMoves,
    cellsVisited: w.cellsByStep[w.cellsByStep.length - 1],
    reachableCells: reachableCells(maze),
    tilesSeen: tiles[tiles.length - 1],
    coverage: coverageOf(w.cellsByStep, tiles),
    progress: progressOf(run, w),
    ...againstFrontier(tiles, run.frontier, run.goalFound),
  };
}
