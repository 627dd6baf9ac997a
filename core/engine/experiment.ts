// Experiment lifecycle outside the turn loop: start (resolve maze and config,
// write the experiment once), the progress check between turns, and the
// final status. Pure logic over a store interface; no AWS, no Lambda.
import { baselineObservationProblem, isLlmAgent } from '../providers/llm-agents.ts';
import { isHuman } from '../providers/human.ts';
import { createHash, randomUUID } from 'node:crypto';
import {
  experimentConfigSchema,
  mergeConfig,
  type ExperimentConfig,
  type ExperimentConfigInput,
} from '../config/experiment-config.ts';
import { generateMaze, type MazeSpec } from '../maze/generators/index.ts';
import { buildMaze, REFERENCE_VISION, type Maze } from '../maze/maze.ts';
import { Grid, type Point } from '../maze/grid.ts';
import { shortestPathToSight } from '../maze/solver.ts';
import { mixSeed } from '../maze/rng.ts';
import { initialState, visionOf, type GameState } from './game.ts';
import { parseOrThrow } from '../config/zod-errors.ts';
import type { Detector } from './agent-monitor.ts';
import type { Halt } from './store.ts';
import { promptTemplate, renderPrompt } from '../config/prompts.ts';
import { promptVariables } from '../config/prompt-parts.ts';
import { isWorkflowText, renderWorkflowSystem, WorkflowDefinitionError } from './workflow/definition.ts';
import { InvalidInputError } from '../errors.ts';
import { settleModelSettings } from '../config/model-settings.ts';
import { priceOf } from './token-cost.ts';
import { estimatedHistoryEvents, HISTORY_EVENT_QUOTA, HISTORY_RESERVE_EVENTS } from '../config/budgets.ts';
import { EVENTS_PER_OUTAGE_WAIT, NO_OUTAGE, type OutageState } from './provider-outage.ts';
import { refuseOversizedExperiment, refuseOversizedVision, refuseUnstorableMemory } from '../store/stored-limits.ts';

export type MazeSource = { kind: 'generated'; spec: MazeSpec } | { kind: 'inline'; grid: number[][]; start: Point };

export interface StartRequest {
  experimentId?: string;
  executionArn?: string | null;
  agent: string;
  provider: string;
  model?: string | null;
  promptVersion?: string | null;
  promptText?: string | null;
  agentSeed?: number;
  maze: MazeSource;
  config?: ExperimentConfigInput;
  sweep?: SweepRef;
  /** The AWS sweep's task token, kept with the run so any finalizer can return it (migration 015). */
  taskToken?: string | null;
  /** A fork: the run it continues and the step after which it does (migration 031). */
  fork?: ForkRef;
  /** Agent human: who plays (migration 034). */
  player?: string;
  /** Agent human on a suite's maze: the suite and the maze's index in it (migration 034). */
  suiteMaze?: SuiteMazeRef;
}

/** A maze of a suite, by the suite's ref (ariadne-mazes/v1) and the maze's index in its list. */
interface SuiteMazeRef {
  suite: string;
  index: number;
}

/** The run a fork continues, and after which of its steps. */
interface ForkRef {
  parent: string;
  atStep: number;
}

/** The sweep run an experiment is. */
export interface SweepRef {
  id: string;
  cell: number;
  repeat: number;
  attempt: number;
}

/** Defaults and prompts from Parameter Store (or the local parameters file). */
export interface ConfigDefaults {
  config: ExperimentConfigInput;
  prompts: Record<string, string>;
}

/** What StartExperiment stores for a new experiment. */
export interface NewExperiment {
  id: string;
  executionArn: string | null;
  agent: string;
  provider: string;
  model: string | null;
  promptVersion: string | null;
  promptHash: string | null;
  promptText: string | null;
  agentSeed: number;
  mazeId: number;
  config: ExperimentConfig;
  optimalMoves: number;
  initialState: GameState;
  sweep?: SweepRef;
  taskToken?: string | null;
  fork?: ForkRef;
  player?: string;
  suiteMaze?: SuiteMazeRef;
}

export interface StartStore {
  /** Throws InvalidInputError unless the sweep cell exists (checked before anything is written). */
  checkSweepRun?(ref: SweepRef): Promise<void>;
  /**
   * Throws InvalidInputError unless the parent ran on this maze (its content hash) and can be forked after that
   * step (checked before anything is written).
   */
  checkForkPoint?(fork: ForkRef, mazeHash: string): Promise<void>;
  saveMaze(maze: Maze): Promise<number>;
  /**
   * Creates the experiment unless it exists; either way, its stored start time and config, and when it existed,
   * what it was started with (a used id must not take on other settings).
   */
  createExperiment(e: NewExperiment): Promise<{
    created: boolean;
    startedAt: Date;
    config: ExperimentConfig;
    existing?: Pick<NewExperiment, 'agent' | 'model' | 'agentSeed' | 'mazeId' | 'promptText' | 'config'>;
  }>;
}

export interface StartedExperiment {
  experimentId: string;
  created: boolean;
  maze: Maze;
  mazeId: number;
  config: ExperimentConfig;
  optimalMoves: number;
  startedAt: Date;
}

/** A stable experiment id for an execution, so a retried StartExperiment finds the same row. */
export function experimentIdFor(executionArn: string): string {
  const h = createHash('sha256').update(executionArn).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function resolveMaze(source: MazeSource): Maze {
  return source.kind === 'generated'
    ? generateMaze(source.spec)
    : buildMaze(Grid.fromRows(source.grid), source.start, 'imported', null);
}

export function resolveConfig(input: ExperimentConfigInput | undefined): ExperimentConfig {
  return parseOrThrow(experimentConfigSchema, input ?? {}, 'config');
}

/** The optimum a run is scored against, under its own success rule and vision. */
export function optimalMoves(maze: Maze, config: ExperimentConfig): number {
  if (config.success_rule === 'reached') return maze.shortestPath;
  const vision = visionOf(config);
  return vision.range === REFERENCE_VISION.range && vision.seeThrough === REFERENCE_VISION.seeThrough
    ? maze.shortestPathToSight
    : shortestPathToSight(maze.grid, maze.start, maze.goal, vision);
}

/**
 * The experiment's system prompt: its prompt version with the maze and limits
 * filled in. A workflow version is validated in full here, before anything is
 * written, and stored whole with its `system` filled in.
 */
export function systemPrompt(maze: Maze, config: ExperimentConfig, prompts: Record<string, string> = {}): string {
  const template = promptTemplate(config.prompt_version, prompts);
  const vars = promptVariables(maze, config);
  if (!isWorkflowText(template)) return renderPrompt(template, vars);
  // A workflow keeps its own runner state between turns; carrying memory for it is not built.
  if (config.memory !== 'fresh')
    throw new InvalidInputError(
      'config.memory',
      config.memory,
      `config.memory "${config.memory}" works with plain prompt versions only; ` +
        `"${config.prompt_version}" is a workflow: use memory "fresh" or a plain prompt version`,
    );
  // A workflow's conversation is its steps': a belief probe after them is not built.
  if (config.belief_probe_every > 0)
    throw new InvalidInputError(
      'config.belief_probe_every',
      config.belief_probe_every,
      `config.belief_probe_every works with plain prompt versions only; "${config.prompt_version}" is a workflow: ` +
        'leave belief_probe_every at 0 or use a plain prompt version',
    );
  // A workflow's steps show the observation as text; pictures in its steps are not built.
  if (config.observation === 'image')
    throw new InvalidInputError(
      'config.observation',
      config.observation,
      `config.observation "image" works with plain prompt versions only; "${config.prompt_version}" is a ` +
        'workflow: use a text observation format (local_grid shows the same square as text) or a plain prompt version',
    );
  try {
    return renderWorkflowSystem(template, (system) => renderPrompt(system, vars), `"${config.prompt_version}"`);
  } catch (e) {
    if (e instanceof WorkflowDefinitionError)
      throw new InvalidInputError('config.prompt_version', config.prompt_version, e.message);
    throw e;
  }
}

/**
 * Whether a cost budget could not count this agent's runs: a model agent whose model has no price would cost 0 each
 * turn, so the budget would never stop it (a run's max_cost_usd, a sweep's budget: both refuse it).
 */
export const costUnknown = (agent: string, model: string | null | undefined, prices: ExperimentConfig['prices']) =>
  isLlmAgent(agent) && !!model && !priceOf(prices, model);

/** A cost budget needs the model's price (costUnknown). */
function refuseUnpricedBudget(agent: string, model: string | null | undefined, config: ExperimentConfig): void {
  if (config.max_cost_usd === undefined || !costUnknown(agent, model, config.prices)) return;
  throw new InvalidInputError(
    'config.max_cost_usd',
    config.max_cost_usd,
    `config.max_cost_usd ${config.max_cost_usd}: model "${model}" has no price in config.prices, so its cost is ` +
      `unknown and the budget could never be reached; set prices["${model}"] (USD per million tokens: ` +
      'input_per_mtok, output_per_mtok) or use max_tokens',
  );
}

/** A run that would succeed before its first action measures nothing: refused, naming the settings that cause it. */
function goalInViewAtStart(config: ExperimentConfig): InvalidInputError {
  const vision = `vision_range ${config.vision_range}${config.see_through ? ' with see_through' : ''}`;
  return new InvalidInputError(
    'config.vision_range',
    config.vision_range,
    `config.vision_range: with ${vision} and success_rule "${config.success_rule}" the goal is already found ` +
      'at the start, so the run would measure nothing; lower vision_range, drop see_through, ' +
      'use success_rule "reached", or use another maze',
  );
}

/** Stable JSON (keys sorted), to compare a config read back from jsonb with a freshly resolved one. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );

/**
 * A start with a used experiment id is a retry (the same settings: it carries on) or a mistake (other settings:
 * refused, naming what differs), never the old experiment silently reported as the new one.
 */
function refuseOtherSettings(
  id: string,
  existing: NonNullable<Awaited<ReturnType<StartStore['createExperiment']>>['existing']>,
  wanted: typeof existing,
): void {
  const differs = (['agent', 'model', 'agentSeed', 'mazeId', 'promptText', 'config'] as const).filter(
    (k) => canonical(existing[k]) !== canonical(wanted[k]),
  );
  if (differs.length === 0) return;
  const names = differs.map(
    (k) => ({ agentSeed: 'agent seed', mazeId: 'maze', promptText: 'prompt' })[k as string] ?? k,
  );
  throw new InvalidInputError(
    'experimentId',
    id,
    `experiment id "${id}" is taken by an experiment with another ${names.join(', ')}; ` +
      'choose another id (or leave it out), or look at that one with: summary ' +
      id,
  );
}

export async function startExperiment(
  req: StartRequest,
  store: StartStore,
  defaults?: ConfigDefaults,
): Promise<StartedExperiment> {
  // Everything is validated and computed before the first write, so bad input writes nothing.
  // Code defaults < parameters < this request; the result is the snapshot.
  const given = mergeConfig(defaults?.config, req.config);
  // what the model refuses is refused here, and a model that thinks by default gets room for it (model-settings.ts)
  const config = settleModelSettings(req.agent, req.model, given, resolveConfig(given));
  refuseUnpricedBudget(req.agent, req.model, config);
  const baselineProblem = baselineObservationProblem(req.agent, config.observation);
  if (baselineProblem) throw new InvalidInputError('config.observation', config.observation, baselineProblem);
  const maze = resolveMaze(req.maze);
  const experimentId = req.experimentId ?? (req.executionArn ? experimentIdFor(req.executionArn) : randomUUID());
  const optimal = optimalMoves(maze, config);
  if (optimal === 0) throw goalInViewAtStart(config);
  const state = initialState(maze, config);
  // a person is shown the system prompt a model would get (providers/human-agent.ts)
  const prompted = isLlmAgent(req.agent) || isHuman(req.agent);
  const promptText = req.promptText ?? (prompted ? systemPrompt(maze, config, defaults?.prompts) : null);
  if (isHuman(req.agent) && promptText !== null && isWorkflowText(promptText))
    throw new InvalidInputError(
      'config.prompt_version',
      config.prompt_version,
      `prompt version "${config.prompt_version}" is a workflow, which steers a model through steps; a person plays ` +
        'a plain prompt version (v2, v1 or your own)',
    );
  const promptHash = promptText ? createHash('sha256').update(promptText).digest('hex') : null;
  // every row must read back through the Data API (64 KB): what would not fit is refused before the first write
  refuseOversizedExperiment(promptText, config);
  refuseOversizedVision(config, maze.width, maze.height);
  refuseUnstorableMemory(config);
  if (req.sweep) await store.checkSweepRun?.(req.sweep);
  if (req.fork) await store.checkForkPoint?.(req.fork, maze.hash);
  const mazeId = await store.saveMaze(maze);
  const fields = {
    id: experimentId,
    executionArn: req.executionArn ?? null,
    agent: req.agent,
    provider: req.provider,
    model: req.model ?? null,
    promptVersion: promptText ? config.prompt_version : null,
    promptHash,
    promptText,
    agentSeed: req.agentSeed ?? mixSeed(experimentId),
    mazeId,
    config,
    optimalMoves: optimal,
    initialState: state,
    sweep: req.sweep,
    taskToken: req.taskToken ?? null,
    fork: req.fork,
    player: req.player,
    suiteMaze: req.suiteMaze,
  };
  const stored = await store.createExperiment(fields);
  if (stored.existing) refuseOtherSettings(experimentId, stored.existing, fields);
  return {
    experimentId,
    created: stored.created,
    maze,
    mazeId,
    config: stored.config,
    optimalMoves: optimal,
    startedAt: stored.startedAt,
  };
}

/** An execution's estimated history after `turns` turns and `waits` outage waits, with the reserve for retries. */
export const historyAfter = (turns: number, waits: number): number =>
  estimatedHistoryEvents(turns) + waits * EVENTS_PER_OUTAGE_WAIT + HISTORY_RESERVE_EVENTS;

type ProgressDecision =
  | 'continue'
  | 'success'
  | 'timeout'
  | 'stuck'
  | 'continue_as_new'
  | 'provider_wait'
  | 'provider_outage'
  | ChunkHandBack;
/** A chunk of turns (engine/chunk-pace.ts) ends for time: a new chunk goes on, or the turns go one at a time. */
type ChunkHandBack = 'hand_back' | 'per_turn';
export interface Progress {
  decision: ProgressDecision;
  /**
   * For `stuck`, the detector that tripped. For `continue_as_new`: history_budget (this execution ran its
   * turnsPerExecution), history_quota (its estimated history neared the 25,000-event quota), execution_time (one
   * more turn might not end before the execution's timeout). For `hand_back`, chunk_time; for `per_turn`, slow_turns.
   */
  reason:
    | 'chunk_time'
    | 'slow_turns'
    | 'goal_found'
    | 'max_moves'
    | 'max_duration'
    | 'max_turns'
    | 'max_cost_usd'
    | 'max_tokens'
    | 'gave_up'
    | 'history_budget'
    | 'history_quota'
    | 'execution_time'
    | 'running'
    | 'provider_outage'
    | Detector;
  /** For `stuck`, what the detector saw; for `provider_outage`, how long was waited and the provider's error. */
  detail?: string;
  /** For `provider_wait`: how long to wait before the turn is tried again (the waits so far: the next loop state's). */
  waitSeconds?: number;
  /** For `continue_as_new`: the next execution's name, its first turn and the outage state it carries. */
  continuation?: { name: string; turnNumber: number; outage: OutageState };
}

/** The current execution's clock: when it started ($$.Execution.StartTime) and when Step Functions stops it. */
export interface ExecutionClock {
  startTime: Date;
  timeoutSeconds: number;
  /** What one more turn may take, at its worst, before this execution can hand over. */
  turnReserveSeconds: number;
}

/**
 * Between turns: stop on goal found, a halting stuck signal, max_moves, max_duration_minutes, or max_turns; else
 * continue as new when this execution has run its turns, its history nears the quota, or its time nears its
 * timeout, whichever comes first. The experiment's own clock (startedAt) and turn count carry over across
 * executions, so an experiment may run longer than any one execution.
 */
export function checkProgress(
  p: {
    goalFound: boolean;
    halt: Halt | null;
    actionsTaken: number;
    startedAt: Date;
    maxMoves: number;
    maxDurationMinutes: number;
    turnNumber: number;
    maxTurns: number;
    executionStartTurn: number;
    turnsPerExecution: number;
    /** Absent for input from a machine version that did not pass it (executions started before a deploy). */
    execution?: ExecutionClock;
    /** Provider outages waited out so far (provider-outage.ts): their time is not the run's duration. */
    outage?: OutageState;
    /** Why the turn stopped (engine/turn.ts): a spent budget ends the run. */
    turnStopReason?: string;
  },
  now: Date,
): Progress {
  const outage = p.outage ?? NO_OUTAGE;
  if (p.goalFound) return { decision: 'success', reason: 'goal_found' };
  if (p.halt) return { decision: 'stuck', reason: p.halt.detector, detail: p.halt.detail };
  // its budget spent, the run ends as out of resources, as at max_moves: its own stop reason says which
  if (p.turnStopReason === 'max_cost_usd' || p.turnStopReason === 'max_tokens')
    return { decision: 'timeout', reason: p.turnStopReason };
  // a person who gave up ends the run as the move limit would: not solved, the agent's own outcome
  if (p.turnStopReason === 'gave_up') return { decision: 'timeout', reason: 'gave_up' };
  if (p.actionsTaken >= p.maxMoves) return { decision: 'timeout', reason: 'max_moves' };
  if (now.getTime() - p.startedAt.getTime() - outage.total * 1000 >= p.maxDurationMinutes * 60_000)
    return { decision: 'timeout', reason: 'max_duration' };
  if (p.turnNumber >= p.maxTurns) return { decision: 'timeout', reason: 'max_turns' };
  const turnsHere = p.turnNumber - p.executionStartTurn + 1;
  if (turnsHere >= p.turnsPerExecution) return { decision: 'continue_as_new', reason: 'history_budget' };
  // turnsPerExecution comes with the loop state (a resume input may carry any): the quota holds whatever it says
  if (historyAfter(turnsHere + 1, outage.here) > HISTORY_EVENT_QUOTA)
    return { decision: 'continue_as_new', reason: 'history_quota' };
  if (p.execution) {
    const { startTime, timeoutSeconds, turnReserveSeconds } = p.execution;
    if (now.getTime() - startTime.getTime() + turnReserveSeconds * 1000 >= timeoutSeconds * 1000)
      return { decision: 'continue_as_new', reason: 'execution_time' };
  }
  return { decision: 'continue', reason: 'running' };
}
