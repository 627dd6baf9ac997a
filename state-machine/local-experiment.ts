// One experiment on this machine, end to end: the synthesized state machine
// run locally, handlers in-process, results in Postgres. Used by the CLI,
// the tests and the benchmarks.
import { patiently } from '../core/store/retry-query.ts';
import type { Database } from '../core/store/database.ts';
import type { Sql } from '../core/store/sql.ts';
import { summaryOf, type ExperimentSummary } from '../results/summary-row.ts';
import { experimentState } from '../results/run-state.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { agentsWith } from '../core/providers/agents.ts';
import { sharedAgentDeps } from '../core/store/shared-agent-deps.ts';
import type { AgentFactory } from '../core/engine/agent.ts';
import type { TurnSummary } from '../core/engine/store.ts';
import { ExecutionStoppedError, runLocalExecution, type LocalRunOptions, type LocalRunResult } from './local-runner.ts';
import type { SharedBudget } from '../core/engine/token-cost.ts';
import type { ParameterCache } from '../core/config/parameters.ts';
import type { TaskTokenNotifier } from '../core/engine/task-tokens.ts';
import type { Telemetry } from '../core/telemetry/telemetry.ts';
import { STATES } from '../core/machine/states.ts';
import { loopLimits, providerOf, type StartExecutionInput } from '../core/machine/contracts.ts';
import { ExperimentClosedError, ExperimentNotFoundError } from '../core/errors.ts';

export interface LocalExperimentOptions {
  db: Database;
  agents?: AgentFactory;
  onTurn?: (turn: TurnSummary) => void;
  wrap?: LocalRunOptions['wrap'];
  retryIntervals?: LocalRunOptions['retryIntervals'];
  waitIntervals?: LocalRunOptions['waitIntervals'];
  onEvent?: LocalRunOptions['onEvent'];
  /** Called when the run starts waiting for its provider (an outage), and with null when it tries again. */
  onProviderWait?: (wait: { waits: number; seconds: number; since: number } | null) => void;
  parameters?: ParameterCache;
  executionName?: string;
  /** SendTaskSuccess for an input's taskToken (tests); without it a token is carried along and nobody is told. */
  taskTokens?: TaskTokenNotifier;
  executionNames?: LocalRunOptions['executionNames'];
  orchestration?: LocalRunOptions['orchestration'];
  duplicateChunks?: LocalRunOptions['duplicateChunks'];
  expressMaxMs?: LocalRunOptions['expressMaxMs'];
  /** The handlers' clock (and the executions' start times); default the real one. */
  now?: () => Date;
  /**
   * Interrupts the run once aborted (Ctrl-C): no new turn starts, the turn in flight commits, the experiment is
   * marked interrupted with the signal's reason (a string) and runLocalExperiment rejects with
   * ExperimentInterruptedError. A run that finalizes meanwhile ends as usual.
   */
  signal?: AbortSignal;
  /** A budget the run shares with the others in flight (a sweep's): its turns stop once it is reached. */
  sharedBudget?: SharedBudget;
  /** The handlers' log lines (the CLI's log file: bin/cli/run-log.ts); default none. */
  telemetry?: Telemetry;
}

/**
 * The ContinueAsNew-style input that picks an interrupted experiment up at its next turn, with the time it had left:
 * the gap between its last committed turn (or its start, or its last resume) and `now` is added to
 * suspended_seconds, and the loop's clock (startedAt, what CheckProgress measures max_duration_minutes from) starts
 * that much later. Work lost in the interrupted turn is redone, so its time counts as the outage's.
 */
export async function resumeInput(db: Sql, experimentId: string, now: Date = new Date()) {
  const e = await experimentState(db, experimentId);
  if (!e) throw new ExperimentNotFoundError(experimentId);
  if (e.status !== 'running') throw new ExperimentClosedError(experimentId, e.status);
  // resumed: no longer interrupted (016_interrupted.sql), in the same statement that settles its clock
  // One statement (the Data API keeps no transaction open between calls): the clock's start is
  // started_at + suspended; the time it ran is its last commit since then; the rest up to now was the outage.
  const resumed = await db.query<{ turns_completed: number; clock_start: string; waited: number }>(
    `WITH c AS (
       SELECT e.id, e.started_at + e.suspended_seconds * interval '1 second' AS clock_start,
         (SELECT max(t.ended_at) FROM turns t WHERE t.experiment_id = e.id) AS last_turn
       FROM experiments e WHERE e.id = $1
     ), ran AS (
       SELECT id, greatest(EXTRACT(epoch FROM (coalesce(last_turn, clock_start) - clock_start)), 0) AS seconds FROM c
     )
     UPDATE experiments e
     SET suspended_seconds = greatest(EXTRACT(epoch FROM ($2::timestamptz - e.started_at)) - ran.seconds,
                                      e.suspended_seconds),
         interrupted_at = NULL, interrupted_reason = NULL
     FROM ran WHERE e.id = ran.id
     RETURNING e.turns_completed,
       to_char((e.started_at + e.suspended_seconds * interval '1 second') AT TIME ZONE 'UTC',
               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS clock_start,
       (SELECT coalesce(sum(t.provider_wait_seconds), 0) FROM turns t WHERE t.experiment_id = e.id)::int AS waited`,
    [experimentId, now.toISOString()],
  );
  const r = resumed.rows[0];
  return {
    resume: {
      experimentId,
      llmProvider: providerOf(e.agent),
      turnNumber: r.turns_completed + 1,
      startedAt: r.clock_start,
      limits: loopLimits(e.config),
      // the provider outages its turns waited out stay out of its duration (engine/provider-outage.ts)
      outage: { waits: 0, seconds: 0, total: r.waited, here: 0 },
    },
  };
}

export interface LocalExperimentResult {
  experimentId: string | null;
  executionArn: string;
  summary: ExperimentSummary | null;
  output: unknown;
  events: number;
  executions: string[];
  /** AWS history events per execution (core/machine/history-events.ts). */
  historyEvents: number[];
  /** The chunks of turns, nested orchestration's Express executions (none with orchestration "standard"). */
  chunks: LocalRunResult['chunks'];
}

/** The experiment started and its execution failed: it is finalized failed, and its summary says why. */
export class ExperimentFailedError extends Error {
  override readonly name = 'ExperimentFailedError';
  constructor(
    readonly experimentId: string,
    readonly summary: ExperimentSummary | null,
    cause: unknown,
  ) {
    super(`experiment ${experimentId} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * The run was interrupted (LocalExperimentOptions.signal): its committed turns are kept and, when it had started,
 * it is marked interrupted and stays running, to be resumed. `experimentId` is null when it had not started.
 */
export class ExperimentInterruptedError extends Error {
  override readonly name = 'ExperimentInterruptedError';
  constructor(
    readonly experimentId: string | null,
    readonly turns: number,
    readonly maxTurns: number,
  ) {
    super(
      experimentId === null
        ? 'interrupted before the experiment started; nothing was written'
        : `experiment ${experimentId} interrupted after turn ${turns} of ${maxTurns}, its log kept`,
    );
  }
}

/** Marks a running experiment interrupted (016_interrupted.sql): what `live`, `list` and the viewer show. */
async function markInterrupted(db: Sql, experimentId: string, reason: string): Promise<ExperimentInterruptedError> {
  const { rows } = await db.query<{ turns: number; max_turns: number }>(
    `UPDATE experiments SET interrupted_at = now(), interrupted_reason = left($2, 500)
     WHERE id = $1 AND status = 'running'
     RETURNING turns_completed AS turns, (config ->> 'max_turns')::int AS max_turns`,
    [experimentId, reason],
  );
  return new ExperimentInterruptedError(experimentId, rows[0]?.turns ?? 0, rows[0]?.max_turns ?? 0);
}

const reasonOf = (signal: AbortSignal) =>
  typeof signal.reason === 'string' ? signal.reason : 'interrupted by its process';

export async function runLocalExperiment(
  input: StartExecutionInput,
  opts: LocalExperimentOptions,
): Promise<LocalExperimentResult> {
  const store = new PgStore(opts.db);
  let experimentId: string | null = null;
  // a resume's experiment exists before its StartExperiment runs: an interrupt before that marks it again
  const resumed = (input as { resume?: { experimentId?: string } }).resume?.experimentId ?? null;
  let ran: Awaited<ReturnType<typeof runLocalExecution>>;
  try {
    ran = await runLocalExecution(input, {
      deps: {
        store,
        // the database's buckets: rate limits are shared with every other run on it, as on AWS
        agents: opts.agents ?? agentsWith(sharedAgentDeps(opts.db)),
        now: opts.now ?? (() => new Date()),
        parameters: opts.parameters,
        taskTokens: opts.taskTokens,
        sharedBudget: opts.sharedBudget,
        telemetry: opts.telemetry,
      },
      executionName: opts.executionName,
      executionNames: opts.executionNames,
      orchestration: opts.orchestration,
      duplicateChunks: opts.duplicateChunks,
      expressMaxMs: opts.expressMaxMs,
      signal: opts.signal,
      wrap: opts.wrap,
      retryIntervals: opts.retryIntervals,
      waitIntervals: opts.waitIntervals,
      onEvent: (event) => {
        if (event.state?.name === STATES.OutageWait) {
          const outage = (
            event as { state: { input?: { progress?: { next?: { outage?: { waits: number; seconds: number } } } } } }
          ).state.input?.progress?.next?.outage;
          if (event.type === 'StateEntered' && outage) opts.onProviderWait?.({ ...outage, since: Date.now() });
          if (event.type === 'StateExited') opts.onProviderWait?.(null);
        }
        opts.onEvent?.(event);
      },
      onTaskResult: (state, out) => {
        if (state === STATES.StartExperiment) experimentId = (out as { experimentId: string }).experimentId;
        if (
          state === STATES.InvokeBaselineAgent ||
          state === STATES.InvokeOllamaAgent ||
          state === STATES.InvokeOpenAIAgent ||
          state === STATES.InvokeBedrockAgent
        ) {
          opts.onTurn?.(out as TurnSummary);
        }
      },
    });
  } catch (err) {
    if (err instanceof ExecutionStoppedError) {
      const id = experimentId ?? resumed;
      throw id === null
        ? new ExperimentInterruptedError(null, 0, 0)
        : await patiently(() => markInterrupted(opts.db, id, reasonOf(opts.signal!)));
    }
    const failed: string | null = experimentId;
    if (failed === null) throw err; // refused before anything was written
    // (what the run left is read patiently: a database restarting is why some runs fail)
    throw new ExperimentFailedError(failed, await patiently(() => summaryOf(opts.db, failed)), err);
  }
  const { executionArn, output, events, executions, historyEvents, chunks } = ran;
  const ended: string | null = experimentId;
  return {
    experimentId,
    executionArn,
    executions,
    historyEvents,
    chunks,
    output,
    events,
    summary: ended === null ? null : await patiently(() => summaryOf(opts.db, ended)),
  };
}
