// What an LLM agent is shown at a given cell of a maze, built as the turn
// engine builds it (core/engine/turn.ts): the turn's observation, and the
// result of one action from there. For the generated documentation page and
// for the tests that compare prompts with observations.
import type { ExperimentConfig } from '../core/config/experiment-config.ts';
import type { Observation } from '../core/engine/agent.ts';
import { executeCall, initialState, type ActionResult } from '../core/engine/game.ts';
import { observationAt } from '../core/engine/observation.ts';
import { MOVE_TOOLS } from '../core/engine/tools.ts';
import { DIRECTIONS, WALL, type Point } from '../core/maze/grid.ts';
import type { Maze } from '../core/maze/maze.ts';
import {
  observationPicture,
  renderObservation,
  renderResult,
  resultPictures,
  showsPictures,
} from '../core/providers/llm/observations/index.ts';

export interface Shown {
  observation: Observation;
  /** The turn's first message as rendered. */
  observationText: string;
  result: ActionResult;
  /** The result of `tool` from there, as rendered (with the image format, its picture's caption after it). */
  resultText: string;
  /** The image format: the observation's picture, and the result's; none for the text formats. */
  pictures: { observation: Uint8Array[]; result: Uint8Array[] };
}

/**
 * The first turn's observation with the agent at `at` (the start by default), then `tool` (by default the first
 * move that is not blocked) executed from there.
 */
export function shownAt(maze: Maze, config: ExperimentConfig, at: Point = maze.start, tool?: string): Shown {
  const state = initialState(maze, config);
  state.position = { ...at };
  state.goalFound = false; // judged from this cell on, not from the start's view
  const observation = observationAt(maze, config, state, {
    turnNumber: 1,
    results: [],
    phase: 'exploring',
    actionsLeftInTurn: config.max_actions_per_turn,
  });
  const open = (Object.keys(MOVE_TOOLS) as Array<keyof typeof MOVE_TOOLS>).find((name) => {
    const { dx, dy } = DIRECTIONS[MOVE_TOOLS[name]];
    return maze.grid.inBounds(at.x + dx, at.y + dy) && maze.grid.get(at.x + dx, at.y + dy) !== WALL;
  });
  const result = executeCall(
    state,
    maze,
    config,
    { name: tool ?? open ?? 'move_north', arguments: {} },
    { callIndex: 0, assistantText: null },
  );
  const shot = showsPictures(config.observation) ? resultPictures([result], observation) : [];
  return {
    observation,
    observationText: renderObservation(config.observation, observation, config.max_moves),
    result,
    resultText: [renderResult(config.observation, result, observation), ...shot.map((p) => p.caption)].join('\n'),
    pictures: {
      observation: showsPictures(config.observation) ? [observationPicture(observation).png] : [],
      result: shot.map((p) => p.image.png),
    },
  };
}
