// One experiment on this machine, end to end: the synthesized state machine
// run locally, handlers in-process, results in Postgres. Used by the CLI,
// the tests and the benchmarks.
import type { Database } from '../lambdas/store/database.ts';
import type { Sql } from '../lambdas/store/sql.ts';
import { readPaged } from '../lambdas/store/pages.ts';
import { PgStore } from '../lambdas/store/pg-store.ts';
import { agentsWith } from '../lambdas/providers/agents.ts';
import { sqlRateLimits } from '../lambdas/store/rate-limit-sql.ts';
import type { AgentFactory } from '../lambdas/engine/agent.ts';
import type { ExperimentStatus, TurnSummary } from '../lambdas/engine/store.ts';
import type { ExperimentConfig } from '../lambdas/config/experiment-config.ts';
import { runLocalExecution, type LocalRunOptions } from './local-runner.ts';
import type { ParameterCache } from '../lambdas/config/parameters.ts';
import type { TaskTokenNotifier } from '../lambdas/engine/task-tokens.ts';
import { STATES } from '../lambdas/machine/states.ts';
import { loopLimits, providerOf, type StartExecutionInput } from '../lambdas/machine/contracts.ts';
import { ExperimentClosedError, ExperimentNotFoundError } from '../lambdas/engine/errors.ts';

export interface ExperimentSummary {
  experiment_id: string;
  agent: string;
  provider: string;
  model: string | null;
  prompt_version: string | null;
  status: string;
  goal_found: boolean;
  stop_reason: string | null;
  failure_reason: string | null;
  maze_generator: string;
  maze_width: number;
  maze_height: number;
  maze_seed: number | null;
  actions: number;
  optimal_moves: number;
  efficiency: number | null;
  tiles_seen: number;
  turns: number;
  invalid_actions: number;
  failed_moves: number;
  recall_calls: number;
  refused_calls: number;
  loop_cells: number;
  llm_calls: number;
  /** As the provider reported them; null when it reported none (and for baselines). */
  input_tokens: number | null;
  output_tokens: number | null;
  /** Null when the model has no price in config.prices (or no tokens were reported). */
  cost_usd: number | null;
  wall_seconds: number;
  started_at: Date;
  completed_at: Date | null;
  stuck_policy: string;
  agent_phase: string;
  stuck_signals: number;
  first_stuck_detector: string | null;
  first_stuck_step: number | null;
}

/** The agent's phases over the run, and its stuck signals: what `ariadne summary` shows below the numbers. */
export interface AgentStory {
  /** Consecutive stretches of one phase: from the action after `fromStep` to `toStep`. */
  phases: Array<{ phase: string; fromStep: number; toStep: number }>;
  signals: Array<{ detector: string; step: number; turn: number; detail: string; policy: string }>;
  refusedTransitions: number;
}

export interface LocalExperimentOptions {
  db: Database;
  agents?: AgentFactory;
  onTurn?: (turn: TurnSummary) => void;
  wrap?: LocalRunOptions['wrap'];
  retryIntervals?: LocalRunOptions['retryIntervals'];
  onEvent?: LocalRunOptions['onEvent'];
  parameters?: ParameterCache;
  executionName?: string;
  /** SendTaskSuccess for an input's taskToken (tests); without it a token is carried along and nobody is told. */
  taskTokens?: TaskTokenNotifier;
  executionNames?: LocalRunOptions['executionNames'];
  /** The handlers' clock (and the executions' start times); default the real one. */
  now?: () => Date;
}

export async function summaryOf(db: Sql, experimentId: string): Promise<ExperimentSummary | null> {
  const { rows } = await db.query<ExperimentSummary>('SELECT * FROM experiment_summary WHERE experiment_id = $1', [
    experimentId,
  ]);
  return rows[0] ?? null;
}

/** A stuck signal as AgentStory has it, and its place in the turn (the key its pages are read by). */
type SignalRow = AgentStory['signals'][number] & { seq: number };

/** Read in keyset pages: a long run's transitions and signals can pass the Data API's 1 MiB per response. */
export async function agentStoryOf(db: Sql, experimentId: string, actions: number): Promise<AgentStory> {
  type TransitionRow = { turn_number: number; seq: number; step_number: number; to_phase: string; refused: boolean };
  const [t, g] = await Promise.all([
    readPaged<TransitionRow>(
      async (last, limit) =>
        (
          await db.query<TransitionRow>(
            `SELECT turn_number, seq, step_number, to_phase, refused FROM agent_state_transitions
             WHERE experiment_id = $1 AND machine = 'agent' AND (turn_number, seq) > ($2::int, $3::int)
             ORDER BY turn_number, seq LIMIT $4`,
            [experimentId, last?.turn_number ?? -1, last?.seq ?? -1, limit],
          )
        ).rows,
    ),
    readPaged<SignalRow>(
      async (last, limit) =>
        (
          await db.query<SignalRow>(
            `SELECT detector, step_number AS step, turn_number AS turn, detail, policy, seq FROM stuck_signals
             WHERE experiment_id = $1 AND (turn_number, seq) > ($2::int, $3::int) ORDER BY turn_number, seq LIMIT $4`,
            [experimentId, last?.turn ?? -1, last?.seq ?? -1, limit],
          )
        ).rows,
    ),
  ]);
  const phases: AgentStory['phases'] = [];
  let phase = 'exploring',
    from = 0;
  // the action that caused a transition is the first of the new phase
  for (const r of t.filter((x) => !x.refused)) {
    const at = Math.max(from, r.step_number - 1);
    phases.push({ phase, fromStep: from, toStep: at });
    phase = r.to_phase;
    from = at;
  }
  phases.push({ phase, fromStep: from, toStep: actions });
  return {
    phases: phases.filter((p) => p.toStep > p.fromStep || p === phases.at(-1)),
    signals: g.map(({ seq: _seq, ...signal }) => signal),
    refusedTransitions: t.filter((x) => x.refused).length,
  };
}

/**
 * The ContinueAsNew-style input that picks an interrupted experiment up at its next turn, with the time it had left:
 * the gap between its last committed turn (or its start, or its last resume) and `now` is added to
 * suspended_seconds, and the loop's clock (startedAt, what CheckProgress measures max_duration_minutes from) starts
 * that much later. Work lost in the interrupted turn is redone, so its time counts as the outage's.
 */
export async function resumeInput(db: Sql, experimentId: string, now: Date = new Date()) {
  const { rows } = await db.query<{ agent: string; status: ExperimentStatus; config: ExperimentConfig }>(
    'SELECT agent, status, config FROM experiments WHERE id = $1',
    [experimentId],
  );
  const e = rows[0];
  if (!e) throw new ExperimentNotFoundError(experimentId);
  if (e.status !== 'running') throw new ExperimentClosedError(experimentId, e.status);
  // One statement (the Data API keeps no transaction open between calls): the clock's start is
  // started_at + suspended; the time it ran is its last commit since then; the rest up to now was the outage.
  const resumed = await db.query<{ turns_completed: number; clock_start: string }>(
    `WITH c AS (
       SELECT e.id, e.started_at + e.suspended_seconds * interval '1 second' AS clock_start,
         (SELECT max(t.ended_at) FROM turns t WHERE t.experiment_id = e.id) AS last_turn
       FROM experiments e WHERE e.id = $1
     ), ran AS (
       SELECT id, greatest(EXTRACT(epoch FROM (coalesce(last_turn, clock_start) - clock_start)), 0) AS seconds FROM c
     )
     UPDATE experiments e
     SET suspended_seconds = greatest(EXTRACT(epoch FROM ($2::timestamptz - e.started_at)) - ran.seconds,
                                      e.suspended_seconds)
     FROM ran WHERE e.id = ran.id
     RETURNING e.turns_completed,
       to_char((e.started_at + e.suspended_seconds * interval '1 second') AT TIME ZONE 'UTC',
               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS clock_start`,
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
  /** AWS history events per execution (lambdas/machine/history-events.ts). */
  historyEvents: number[];
}

/** The experiment started and its execution failed: it is finalized failed, and its summary says why. */
class ExperimentFailedError extends Error {
  override readonly name = 'ExperimentFailedError';
  constructor(
    readonly experimentId: string,
    readonly summary: ExperimentSummary | null,
    cause: unknown,
  ) {
    super(`experiment ${experimentId} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

export async function runLocalExperiment(
  input: StartExecutionInput,
  opts: LocalExperimentOptions,
): Promise<LocalExperimentResult> {
  const store = new PgStore(opts.db);
  let experimentId: string | null = null;
  let ran: Awaited<ReturnType<typeof runLocalExecution>>;
  try {
    ran = await runLocalExecution(input, {
      deps: {
        store,
        // the database's buckets: rate limits are shared with every other run on it, as on AWS
        agents: opts.agents ?? agentsWith({ rateLimits: sqlRateLimits(opts.db) }),
        now: opts.now ?? (() => new Date()),
        parameters: opts.parameters,
        taskTokens: opts.taskTokens,
      },
      executionName: opts.executionName,
      executionNames: opts.executionNames,
      wrap: opts.wrap,
      retryIntervals: opts.retryIntervals,
      onEvent: opts.onEvent,
      onTaskResult: (state, out) => {
        if (state === STATES.StartExperiment) experimentId = (out as { experimentId: string }).experimentId;
        if (
          state === STATES.InvokeBaselineAgent ||
          state === STATES.InvokeOllamaAgent ||
          state === STATES.InvokeBedrockAgent
        ) {
          opts.onTurn?.(out as TurnSummary);
        }
      },
    });
  } catch (err) {
    if (experimentId === null) throw err; // refused before anything was written
    throw new ExperimentFailedError(experimentId, await summaryOf(opts.db, experimentId), err);
  }
  const { executionArn, output, events, executions, historyEvents } = ran;
  return {
    experimentId,
    executionArn,
    executions,
    historyEvents,
    output,
    events,
    summary: experimentId ? await summaryOf(opts.db, experimentId) : null,
  };
}
