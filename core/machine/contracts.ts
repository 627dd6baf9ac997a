// What crosses the state machine: the StartExecution input a researcher
// writes, and the small loop state passed between Tasks. Validated with zod at
// every handler, the same in Lambda and locally.
import { NO_OUTAGE } from '../engine/provider-outage.ts';
import { z } from 'zod';
import { partialConfigSchema, turnsPerExecution, type ExperimentConfig } from '../config/experiment-config.ts';
import { GENERATOR_NAMES, MAX_SIZE, MIN_SIZE } from '../maze/generators/index.ts';
import { BASELINE_NAMES } from '../providers/baselines.ts';
import { isLlmAgent, LLM_AGENTS } from '../providers/llm-agents.ts';
import { HUMAN_AGENT, isHuman, PLAYER_HELP, PLAYER_PATTERN } from '../providers/human.ts';
import { DETECTORS } from '../engine/agent-monitor.ts';
import { fact } from '../../aws-facts/facts.ts';

export const AGENTS = [...BASELINE_NAMES, ...LLM_AGENTS, HUMAN_AGENT] as const;
const LLM_PROVIDERS = [...LLM_AGENTS, 'baseline'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

const size = z.number().int().min(MIN_SIZE).max(MAX_SIZE);
/** A name as a model or prompt is called: printable, no control characters (they cannot be stored, or hide in logs). */
const printable = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    // eslint-disable-next-line no-control-regex -- the point: names and labels must not hold control characters
    .regex(/^[^\u0000-\u001f\u007f]+$/, 'printable characters only (no control characters)');
const seed = z.number().int().min(0).max(0xffffffff);
/**
 * A Step Functions task token (SendTaskSuccess takes 1-2048 characters): set by the sweep machine, whose iteration
 * waits (startExecution.waitForTaskToken) until the experiment returns it at its real end.
 */
const taskToken = z.string().min(1).max(fact('sfn.max-task-token-chars').value);

/** An experiment id a caller may choose: continuation executions are "<experimentId>-t<turn>" (names stop at 80). */
export const EXPERIMENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** A sweep's name, as its file's `sweep:` gives it. */
export const SWEEP_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;

const generatedMazeSchema = z
  .object({
    generator: z.enum(GENERATOR_NAMES as [string, ...string[]]),
    size: size.optional(),
    width: size.optional(),
    height: size.optional(),
    seed: seed.default(1),
  })
  .strict()
  .refine((m) => m.size !== undefined || (m.width !== undefined && m.height !== undefined), {
    message: 'give "size" (square) or both "width" and "height"',
  });

const inlineMazeSchema = z
  .object({
    grid: z
      .array(z.array(z.number().int().min(0).max(2)).max(MAX_SIZE))
      .min(2)
      .max(MAX_SIZE),
    start: z.object({ x: z.number().int().min(0), y: z.number().int().min(0) }).strict(),
  })
  .strict();

export const startRequestSchema = z
  .object({
    experimentId: z.string().regex(EXPERIMENT_ID_PATTERN, 'use 1-64 letters, digits, - or _').optional(),
    agent: z.enum(AGENTS as unknown as [string, ...string[]]),
    model: printable(200).nullable().optional(),
    promptVersion: printable(100).nullable().optional(),
    agentSeed: seed.optional(),
    maze: z.union([generatedMazeSchema, inlineMazeSchema]),
    config: partialConfigSchema.optional(),
    /** Set by sweeps: the run this experiment is (the sweep and its cell must exist). */
    sweep: z
      .object({
        id: z.string().regex(SWEEP_ID_PATTERN),
        cell: z.number().int().min(0),
        repeat: z.number().int().min(1),
        attempt: z.number().int().min(1),
      })
      .strict()
      .optional(),
    /** Set by the sweep machine: returned with SendTaskSuccess however the experiment ends, never before. */
    taskToken: taskToken.optional(),
    /**
     * A fork (ariadne fork): the run whose recorded replies answer this one's first model calls, up to its step
     * `atStep`, so it starts from that run's state there.
     */
    fork: z
      .object({
        parent: z.string().regex(EXPERIMENT_ID_PATTERN, 'an experiment id'),
        atStep: z.number().int().min(1).max(10_000_000),
      })
      .strict()
      .optional(),
    /** Agent human only: who plays (experiments.player, migration 034). */
    player: z.string().regex(PLAYER_PATTERN, PLAYER_HELP).optional(),
    /** A maze of a suite a person plays (ariadne play --suite): the suite and the maze's index in it. */
    suiteMaze: z
      .object({ suite: printable(100), index: z.number().int().min(0).max(100_000) })
      .strict()
      .optional(),
  })
  .strict()
  .refine((r) => !isLlmAgent(r.agent) || (r.model !== undefined && r.model !== null), {
    message:
      'agent "ollama", "bedrock" and "openai" need a "model" ' +
      '(e.g. "qwen2.5:7b", "global.anthropic.claude-haiku-4-5-20251001-v1:0", "gpt-4.1-mini")',
    path: ['model'],
  })
  .refine((r) => isHuman(r.agent) === (r.player !== undefined), {
    message: 'agent "human" needs a "player" (who plays), and only it takes one',
    path: ['player'],
  })
  .refine((r) => r.suiteMaze === undefined || isHuman(r.agent), {
    message: '"suiteMaze" records the suite maze a person plays: agent "human" only (a sweep names its suite)',
    path: ['suiteMaze'],
  })
  .refine((r) => !isHuman(r.agent) || (r.model == null && r.sweep === undefined && r.fork === undefined), {
    message: 'agent "human" is a person: no model, and no sweep or fork (a person plays one run at a time)',
    path: ['agent'],
  });
export type StartExecutionInput = z.input<typeof startRequestSchema>;

/** An execution's clock: $$.Execution.StartTime and the machine's TimeoutSeconds. */
const executionClockSchema = z
  .object({ startTime: z.iso.datetime({ offset: true }), timeoutSeconds: z.number().int().positive() })
  .strict();

export const startTaskInputSchema = z
  .object({
    request: z.unknown(),
    executionArn: z.string().min(1),
    /** The Standard execution's clock, kept in the loop state for the chunks it starts (absent before they were). */
    execution: executionClockSchema.optional(),
  })
  .strict();

/** What ContinueAsNew passes to the next execution: the loop state to resume at. */
export const resumeInputSchema = z
  .object({
    resume: z
      .object({
        experimentId: z.string().min(1),
        llmProvider: z.enum(LLM_PROVIDERS),
        turnNumber: z.number().int().positive(),
        startedAt: z.string(),
        limits: z.record(z.string(), z.number()),
        // absent in resume inputs written before sweeps waited on their experiments (and locally)
        taskToken: taskToken.nullable().optional(),
      })
      .passthrough(),
  })
  .passthrough();

/** What an experiment has waited for its provider (engine/provider-outage.ts); none when absent. */
export const outageSchema = z
  .object({
    waits: z.number().int().min(0),
    seconds: z.number().min(0),
    total: z.number().min(0),
    here: z.number().int().min(0),
  })
  .default(NO_OUTAGE);

export const loopStateSchema = z
  .object({
    experimentId: z.string().min(1),
    llmProvider: z.enum(LLM_PROVIDERS),
    turnNumber: z.number().int().positive(),
    /** The first turn of this execution: an execution continues as new after turnsPerExecution turns. */
    executionStartTurn: z.number().int().positive(),
    startedAt: z.string(),
    limits: z.object({
      maxMoves: z.number().int().positive(),
      maxDurationMinutes: z.number().positive(),
      maxTurns: z.number().int().positive(),
      turnsPerExecution: z.number().int().positive(),
      /** provider_outage_wait_minutes in seconds (engine/provider-outage.ts); absent in older states: 0. */
      outageWaitSeconds: z.number().min(0).default(0),
    }),
    /** The sweep's task token, or null: carried from hop to hop (the loop's Pass states need the key present). */
    taskToken: taskToken.nullable().default(null),
    /** What was waited for the provider (engine/provider-outage.ts); the loop's Pass states need the key present. */
    outage: outageSchema,
    /** The Standard execution's clock: a chunk (an Express execution) decides continue-as-new by it. */
    clock: executionClockSchema.optional(),
    /** When the last turn ended and the slowest turn's seconds (engine/chunk-pace.ts): what a chunk has room for. */
    pace: z
      .object({ at: z.iso.datetime({ offset: true }), slowestTurnSeconds: z.number().min(0) })
      .strict()
      .optional(),
  })
  .passthrough();
export type LoopState = z.output<typeof loopStateSchema>;

/** The limits the loop carries, from an experiment's config snapshot. */
export function loopLimits(config: ExperimentConfig): LoopState['limits'] {
  return {
    maxMoves: config.max_moves,
    maxDurationMinutes: config.max_duration_minutes,
    maxTurns: config.max_turns,
    turnsPerExecution: turnsPerExecution(config),
    outageWaitSeconds: config.provider_outage_wait_minutes * 60,
  };
}

export function providerOf(agent: string): LlmProvider {
  return isLlmAgent(agent) ? agent : 'baseline';
}

const turnResultSchema = z
  .object({
    goalFound: z.boolean(),
    actionsTaken: z.number().int().nonnegative(),
    /** Why the turn stopped (engine/store.ts TurnStopReason); absent from a turn answered before budgets. */
    stopReason: z.string().optional(),
    halt: z
      .object({ detector: z.enum(DETECTORS), detail: z.string(), step: z.number().int() })
      .nullable()
      .default(null),
  })
  .passthrough();

/**
 * After a turn, its result; after a turn that failed with ProviderTransientError (the Catch's ResultPath), that
 * error instead: the outage is CheckProgress's to decide (engine/provider-outage.ts).
 */
export const progressInputSchema = loopStateSchema.extend({
  turn: turnResultSchema.optional(),
  outageError: z.object({ Error: z.string(), Cause: z.string().optional() }).optional(),
});
/** CheckProgress's payload: the loop state and the execution's clock ($$.Execution.StartTime, its timeout). */
export const progressTaskInputSchema = z
  .object({
    state: progressInputSchema,
    execution: executionClockSchema,
    /** In a chunk: when its Express execution started ($$.Execution.StartTime there). */
    chunk: z
      .object({ startTime: z.iso.datetime({ offset: true }) })
      .strict()
      .optional(),
  })
  .strict();
export const finalizeInputSchema = loopStateSchema.extend({
  progress: z.object({ decision: z.string(), reason: z.string(), detail: z.string().optional() }),
});
export const failureInputSchema = z
  .object({
    state: z.record(z.string(), z.unknown()),
    executionArn: z.string().min(1),
  })
  .strict();
