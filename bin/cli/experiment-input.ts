// What the maze and experiment options describe: the maze itself, and the
// StartExecution input of one experiment (for run and launch alike).
import { readFileSync } from 'node:fs';
import { generateMaze } from '../../lambdas/maze/generators/index.ts';
import { parseMazeJson } from '../../lambdas/maze/maze-file.ts';
import type { Maze } from '../../lambdas/maze/maze.ts';
import { InvalidInputError } from '../../lambdas/engine/errors.ts';
import { ollamaHostUrl } from '../../lambdas/config/experiment-config.ts';
import { parseOrThrow } from '../../lambdas/config/zod-errors.ts';
import { startRequestSchema, type StartExecutionInput } from '../../state-machine/contracts.ts';
import type { ExperimentOptions, MazeOptions } from './options.ts';

export function mazeFromOptions(o: MazeOptions): { maze: Maze; input: StartExecutionInput['maze'] } {
  if (o.mazeFile) {
    let text: string;
    try {
      text = readFileSync(o.mazeFile, 'utf8');
    } catch (err) {
      throw new InvalidInputError(
        '--maze-file',
        o.mazeFile,
        `--maze-file "${o.mazeFile}" cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    const maze = parseMazeJson(text, `--maze-file ${o.mazeFile}`);
    return { maze, input: { grid: maze.grid.toRows(), start: maze.start } };
  }
  const spec = { generator: o.maze, width: o.size, height: o.size, seed: o.seed };
  return { maze: generateMaze(spec), input: { generator: o.maze, size: o.size, seed: o.seed } };
}

/**
 * The StartExecution input the options describe, validated with the
 * StartExperiment schema. It is what the user gave, not zod's parsed copy
 * (which fills in defaults that would override Parameter Store).
 */
export function requestFromOptions(o: ExperimentOptions): {
  maze: Maze;
  request: StartExecutionInput;
  config: Record<string, unknown>;
  agent: string;
} {
  const { maze, input } = mazeFromOptions(o);
  const config: Record<string, unknown> = Object.fromEntries(
    Object.entries({
      max_moves: o.maxMoves,
      max_duration_minutes: o.maxDurationMinutes,
      max_actions_per_turn: o.maxActionsPerTurn,
      vision_range: o.visionRange,
      see_through: o.seeThrough,
      success_rule: o.successRule,
      recall_interval: o.recallInterval,
      max_recall_actions: o.maxRecallActions,
      stuck_policy: o.stuckPolicy,
    }).filter(([, v]) => v !== undefined),
  );
  const agent: string = o.provider ?? o.agent;
  if (o.provider && o.model === undefined)
    throw new InvalidInputError(
      '--model',
      undefined,
      `--provider ${o.provider} needs --model ` +
        `(e.g. ${o.provider === 'ollama' ? 'qwen2.5:7b' : 'anthropic.claude-3-5-sonnet-20240620-v1:0'})`,
    );
  if (!o.provider && o.model !== undefined)
    throw new InvalidInputError('--model', o.model, '--model goes with --provider ollama or --provider bedrock');
  // Only what was given: hosts and regions left out are filled in where the experiment starts
  // ($OLLAMA_HOST, Parameter Store, defaults), which for `launch` is AWS, not this machine.
  const host = o.ollamaHost;
  const ollama = { ...(host ? { host: ollamaHostUrl(host) } : {}), ...(o.stream ? { stream: true } : {}) };
  const bedrock = {
    ...(o.region ? { region: o.region } : {}),
    ...(o.bedrockEndpoint ? { endpoint: o.bedrockEndpoint } : {}),
  };
  if (o.provider === 'ollama' && Object.keys(ollama).length > 0) config.ollama = ollama;
  if (o.provider === 'bedrock' && Object.keys(bedrock).length > 0) config.bedrock = bedrock;
  if (o.promptVersion !== undefined) config.prompt_version = o.promptVersion;
  const request = {
    agent,
    maze: input,
    config,
    ...(o.model !== undefined ? { model: o.model } : {}),
    ...(o.agentSeed !== undefined ? { agentSeed: o.agentSeed } : {}),
    ...(o.experimentId !== undefined ? { experimentId: o.experimentId } : {}),
  } as StartExecutionInput;
  parseOrThrow(startRequestSchema, request, 'input');
  return { maze, request, config, agent };
}
