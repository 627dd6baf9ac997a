// The frontier baseline walked on a maze without a database: the engine's own rules (core/engine/game.ts) and the
// frontier agent's own choice of move (core/providers/frontier-agent.ts), so the walk is the one a frontier run on
// that maze with that vision and success rule takes, with no move limit but the steps a caller needs (a search a step:
// a 201x201 maze's whole walk is seconds). What a run's exploration is compared with.
import { DEFAULT_CONFIG, type ExperimentConfig } from '../core/config/experiment-config.ts';
import { executeCall, initialState } from '../core/engine/game.ts';
import type { Maze } from '../core/maze/maze.ts';
import { nextFrontierMove } from '../core/providers/frontier-agent.ts';

/** What the run was measured under that decides the frontier's walk. */
export interface WalkRules {
  visionRange: number;
  seeThrough: boolean;
  successRule: string;
}

export interface FrontierWalk {
  /** The step at which it found the goal (0: in view from the start); null when it had not by its last step. */
  goalStep: number | null;
  /** Tiles it had seen after each step, step 0 (the start) first: its last entry is its last step's. */
  tilesByStep: Uint32Array;
}

/** A frontier walk never takes more steps than this (a search visits each cell a bounded number of times). */
const stepCap = (maze: Maze) => 4 * maze.width * maze.height;

/** The frontier agent's walk on `maze` under `rules`, until it finds the goal, nothing is left or `maxSteps`. */
export function frontierWalk(maze: Maze, rules: WalkRules, maxSteps = Infinity): FrontierWalk {
  const config = {
    ...DEFAULT_CONFIG,
    vision_range: rules.visionRange,
    see_through: rules.seeThrough,
    success_rule: rules.successRule,
  } as ExperimentConfig;
  const state = initialState(maze, config);
  const tiles = [state.tilesSeen];
  const known = { width: maze.width, height: maze.height, cells: state.known };
  const steps = Math.min(maxSteps, stepCap(maze));
  while (!state.goalFound && tiles.length <= steps) {
    const direction = nextFrontierMove(known, state.position);
    if (direction === null) break;
    executeCall(
      state,
      maze,
      config,
      { name: `move_${direction}`, arguments: {} },
      { callIndex: 0, assistantText: null },
    );
    tiles.push(state.tilesSeen);
  }
  return { goalStep: state.goalFound ? tiles.length - 1 : null, tilesByStep: Uint32Array.from(tiles) };
}
