// What an agent is shown at a point of its game: the one place an Observation is made, for a turn and for the
// samples the docs and reports show.
import type { Observation } from './agent.ts';
import { toSeen, visionOf, type ActionResult, type GameState } from './game.ts';
import type { AgentStateView, Phase } from './agent-monitor.ts';
import type { Maze } from '../maze/maze.ts';
import type { ExperimentConfig } from '../config/experiment-config.ts';
import { visibleCells } from '../maze/vision.ts';

export interface ObservationMoment {
  turnNumber: number;
  /** Results of the calls in the agent's previous reply within this turn; empty at a turn's start. */
  results: ActionResult[];
  phase: Phase;
  actionsLeftInTurn: number;
  /** Only under the `advise` stuck policy. */
  agentState?: AgentStateView;
}

/** The observation of `state` in `maze`: what is in sight from where the agent stands, and what it has mapped. */
export function observationAt(
  maze: Maze,
  config: ExperimentConfig,
  state: Pick<GameState, 'position' | 'known' | 'actionsTaken' | 'tilesSeen'>,
  moment: ObservationMoment,
): Observation {
  return {
    turnNumber: moment.turnNumber,
    position: { ...state.position },
    visible: toSeen(maze, visibleCells(maze.grid, state.position, visionOf(config))),
    known: { width: maze.width, height: maze.height, cells: state.known },
    grid: maze.grid,
    results: moment.results,
    actionsTaken: state.actionsTaken,
    tilesSeen: state.tilesSeen,
    phase: moment.phase,
    actionsLeftInTurn: moment.actionsLeftInTurn,
    config,
    ...(moment.agentState ? { agentState: moment.agentState } : {}),
  };
}
