// A person plays one maze on this machine (the human baseline, core/providers/human-agent.ts): the StartExecution input
// of a human run, from a maze or a suite's maze, and the run itself through the same local state machine as
// `ariadne run`, with the person's seat standing in for the agent. The terminal (ariadne play) and the viewer's play
// page both start their runs here.
import { mergeConfig, type ExperimentConfigInput } from '../core/config/experiment-config.ts';
import { resolveConfig } from '../core/engine/experiment.ts';
import { InvalidInputError } from '../core/errors.ts';
import { startRequestSchema, type StartExecutionInput } from '../core/machine/contracts.ts';
import { parseOrThrow } from '../core/config/zod-errors.ts';
import { findSuite } from '../core/maze/suites.ts';
import { agentsWith } from '../core/providers/agents.ts';
import { withHumanSeat, type HumanSeat } from '../core/providers/human-agent.ts';
import { HUMAN_AGENT } from '../core/providers/human.ts';
import { sharedAgentDeps } from '../core/store/shared-agent-deps.ts';
import { runLocalExperiment, type LocalExperimentOptions, type LocalExperimentResult } from './local-experiment.ts';

/** Which maze: a generated one, one from a file (its grid and start), or a suite's by its index in the suite. */
export type PlayMaze =
  | { generator: string; size: number; seed: number }
  | { grid: number[][]; start: { x: number; y: number } }
  | { suite: string; index: number };

export interface PlaySpec {
  maze: PlayMaze;
  player: string;
  /** The settings given (observation, vision_range, ...); a suite's own are fixed and may not be changed. */
  config?: ExperimentConfigInput;
  experimentId?: string;
}

/** A suite's fixed settings with what was given, refused when a given one would change one of them. */
function suiteConfig(ref: string, given: ExperimentConfigInput): ExperimentConfigInput {
  const fixed = findSuite(ref).suite.config;
  for (const [key, value] of Object.entries(given))
    if (Object.hasOwn(fixed, key) && JSON.stringify(fixed[key]) !== JSON.stringify(value))
      throw new InvalidInputError(
        key,
        value,
        `suite ${ref} fixes ${key} ${JSON.stringify(fixed[key])} (every run of the suite, its reference scores ` +
          `included, is played under it); leave ${key} out to play the suite's maze`,
      );
  return { ...given, ...fixed };
}

/** The StartExecution input of a human run, checked as StartExperiment checks it. */
export function playRequest(spec: PlaySpec): StartExecutionInput {
  const given = spec.config ?? {};
  let maze: StartExecutionInput['maze'];
  let config = given;
  let suiteMaze: StartExecutionInput['suiteMaze'];
  if ('suite' in spec.maze) {
    const { suite, ref } = findSuite(spec.maze.suite);
    const m = suite.mazes[spec.maze.index];
    if (!m)
      throw new InvalidInputError(
        'maze-index',
        spec.maze.index,
        `suite ${ref} has ${suite.mazes.length} mazes: a maze index is 0 to ${suite.mazes.length - 1} ` +
          '(ariadne suite show --json lists them in order)',
      );
    maze = { generator: m.generator, size: m.size, seed: m.seed };
    config = suiteConfig(ref, given);
    suiteMaze = { suite: ref, index: spec.maze.index };
  } else maze = spec.maze;
  const request: StartExecutionInput = {
    agent: HUMAN_AGENT,
    player: spec.player,
    maze,
    config,
    ...(suiteMaze ? { suiteMaze } : {}),
    ...(spec.experimentId !== undefined ? { experimentId: spec.experimentId } : {}),
  };
  parseOrThrow(startRequestSchema, request, 'input');
  return request;
}

/** The config a request will run under, with the defaults (parameters file, code) it leaves to them. */
export function playConfig(request: StartExecutionInput, defaults?: ExperimentConfigInput) {
  return resolveConfig(mergeConfig(defaults, request.config));
}

/**
 * The run, or a resumed one (a resume input), through the local state machine with `seat` as the human agent. Its
 * turns go one at a time in the Standard execution (orchestration "standard"): a person takes longer than a chunk of
 * turns may (Express's 5 minutes), and each turn's wait for a move is bounded by the turn's own deadline.
 */
export function playLocally(
  input: unknown,
  seat: HumanSeat,
  opts: Omit<LocalExperimentOptions, 'agents' | 'orchestration'>,
): Promise<LocalExperimentResult> {
  return runLocalExperiment(input as StartExecutionInput, {
    ...opts,
    agents: withHumanSeat(seat, agentsWith(sharedAgentDeps(opts.db))),
    orchestration: 'standard',
  });
}
