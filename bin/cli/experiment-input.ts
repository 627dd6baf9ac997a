// What the maze and experiment options describe: the maze itself, and the
// StartExecution input of one experiment (for run and launch alike).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeFileError } from './file-errors.ts';
import { userDirectory } from './output-dir.ts';
import { generateMaze } from '../../core/maze/generators/index.ts';
import { parseMazeFile } from '../../core/maze/maze-file.ts';
import type { Maze } from '../../core/maze/maze.ts';
import { InvalidInputError } from '../../core/errors.ts';
import { SEEDLESS_BASELINES } from '../../core/providers/baselines.ts';
import { LLM_AGENTS, MODEL_EXAMPLES, type LlmAgent } from '../../core/providers/llm-agents.ts';
import { FLAGGED_SETTINGS, providerOf } from '../../core/config/settings-table.ts';
import { parseOrThrow } from '../../core/config/zod-errors.ts';
import { startRequestSchema, type StartExecutionInput } from '../../core/machine/contracts.ts';
import { givenOptions, optionKey, type ExperimentOptions, type MazeOptions } from './options.ts';
import { setAt } from './set-option.ts';

export function mazeFromOptions(o: MazeOptions): { maze: Maze; input: StartExecutionInput['maze'] } {
  if (o.mazeFile) {
    let text: string;
    try {
      text = readFileSync(resolve(userDirectory(), o.mazeFile), 'utf8');
    } catch (err) {
      throw new InvalidInputError(
        '--maze-file',
        o.mazeFile,
        `--maze-file "${o.mazeFile}" cannot be read: ${describeFileError(err)}`,
      );
    }
    const maze = parseMazeFile(text, `--maze-file ${o.mazeFile}`);
    return { maze, input: { grid: maze.grid.toRows(), start: maze.start } };
  }
  const spec = { generator: o.maze, width: o.size, height: o.size, seed: o.seed };
  return { maze: generateMaze(spec), input: { generator: o.maze, size: o.size, seed: o.seed } };
}

/** How an option key is written on the command line: mazeFile -> --maze-file. */
const flag = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** The options of a provider's section (ollama.host: --ollama-host), each with the providers it reaches. */
function providerFlags(): Map<string, LlmAgent[]> {
  const out = new Map<string, LlmAgent[]>();
  for (const row of FLAGGED_SETTINGS) {
    const provider = providerOf(row);
    if (provider) out.set(optionKey(row.flag!), [...(out.get(optionKey(row.flag!)) ?? []), provider]);
  }
  return out;
}

/** The config the flagged settings give: only those given, a provider's only for that provider. */
function configFromFlags(o: ExperimentOptions): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const row of FLAGGED_SETTINGS) {
    const value = o[optionKey(row.flag!)];
    const provider = providerOf(row);
    if (value === undefined || (provider !== undefined && provider !== o.provider)) continue;
    setAt(config, row.path.split('.'), value);
  }
  return config;
}

function refuse(a: string, b: string, why: string): never {
  throw new InvalidInputError(flag(a), undefined, `${flag(a)} and ${flag(b)} contradict each other: ${why}`);
}

/**
 * Options that contradict each other are refused, naming both, rather than one silently winning. Only options
 * given on the command line count (a default never contradicts anything).
 */
function refuseContradictions(o: ExperimentOptions, given: ReadonlySet<string>): void {
  if (o.mazeFile !== undefined)
    for (const key of ['maze', 'size', 'seed'])
      if (given.has(key)) refuse('mazeFile', key, 'the maze comes from the file; drop one of them');
  if (o.provider !== undefined && given.has('agent'))
    refuse('agent', 'provider', `--provider ${o.provider} runs an LLM agent instead of the ${o.agent} baseline`);
  const agent = o.provider ?? o.agent;
  if (o.agentSeed !== undefined && (o.provider !== undefined || SEEDLESS_BASELINES.includes(o.agent as never)))
    refuse('agentSeed', o.provider ? 'provider' : 'agent', `${agent} does not use a seed`);
  for (const [key, providers] of providerFlags())
    if (given.has(key) && !providers.includes(o.provider as LlmAgent))
      refuse(
        key,
        o.provider ? 'provider' : 'agent',
        `${flag(key)} is for --provider ${providers.join(' or ')}; this run is ${agent}`,
      );
  if (o.promptVersion !== undefined && o.provider === undefined)
    refuse('promptVersion', 'agent', `a prompt is for LLM agents (--provider); the ${agent} baseline reads none`);
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
  refuseContradictions(o, givenOptions(o));
  const { maze, input } = mazeFromOptions(o);
  const config = configFromFlags(o);
  const agent: string = o.provider ?? o.agent;
  if (o.provider && o.model === undefined)
    throw new InvalidInputError(
      '--model',
      undefined,
      `--provider ${o.provider} needs --model (e.g. ${MODEL_EXAMPLES[o.provider]})`,
    );
  if (!o.provider && o.model !== undefined)
    throw new InvalidInputError('--model', o.model, `--model goes with --provider ${LLM_AGENTS.join(', --provider ')}`);
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
