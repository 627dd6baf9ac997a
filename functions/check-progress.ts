// CheckProgress: decide between another turn, success, timeout, stuck and
// continue-as-new; and after a turn the provider failed through its retries,
// between a wait and the end of the run (engine/provider-outage.ts). Arithmetic
// on its input and the clock: no database, so its Lambda opens none (its 10 s
// timeout has no room for a paused cluster).
import { checkProgress, historyAfter, type ExecutionClock, type Progress } from '../core/engine/experiment.ts';
import { providerOutage, type OutageState } from '../core/engine/provider-outage.ts';
import { HISTORY_EVENT_QUOTA } from '../core/config/budgets.ts';
import { parseOrThrow } from '../core/config/zod-errors.ts';
import { progressInputSchema, progressTaskInputSchema, type LoopState } from '../core/machine/contracts.ts';
import { turnReserveSeconds } from '../core/machine/tasks.ts';
import { chunkStep, paceAfterTurn, type Pace } from '../core/engine/chunk-pace.ts';
import type { HandlerDeps } from './deps.ts';
import { withLambdaTelemetry } from './lambda-telemetry.ts';

/** The next execution of a continue-as-new: at the next turn, or (an outage's) at this one again. */
function continuation(s: LoopState, sameTurn: boolean): NonNullable<Progress['continuation']> {
  const outage: OutageState = sameTurn
    ? { ...s.outage, here: 0 }
    : { waits: 0, seconds: 0, total: s.outage.total, here: 0 };
  return sameTurn
    ? // named by the waits so far: a later hop at the same turn has more (a retried start finds its own name)
      { name: `${s.experimentId}-t${s.turnNumber}-w${s.outage.waits}`, turnNumber: s.turnNumber, outage }
    : { name: `${s.experimentId}-t${s.turnNumber + 1}`, turnNumber: s.turnNumber + 1, outage };
}

/**
 * The loop state the next try starts from: ContinueLoop and OutageResume pass it on as it is (InputPath), rather
 * than rebuild it field by field in the definition (a path each, some 10 a turn, the local machine's largest cost).
 * Only the loop's own fields go on: turn results and errors do not pile up in the payload.
 */
function nextLoopState(s: LoopState, turnNumber: number, outage: OutageState, pace = s.pace): LoopState {
  return {
    experimentId: s.experimentId,
    llmProvider: s.llmProvider,
    startedAt: s.startedAt,
    limits: s.limits,
    executionStartTurn: s.executionStartTurn,
    turnNumber,
    // a sweep's token (or null) travels with the experiment to its real end
    taskToken: s.taskToken,
    outage,
    ...(s.clock ? { clock: s.clock } : {}),
    ...(pace ? { pace } : {}),
  };
}

/** What CheckProgress answers: the decision, and for another try in this execution, the state it starts from. */
export type CheckProgressResult = Progress & { next?: LoopState };

/**
 * One line for every decision but another turn (which the turn's own line says): the run's end, a wait for its
 * provider, a hand-over to a new execution.
 */
export const checkProgressHandler =
  (deps: Pick<HandlerDeps, 'now' | 'telemetry'>) =>
  (event: unknown): Promise<CheckProgressResult> => {
    const { state: s, result } = decide(deps, event);
    if (result.decision !== 'continue')
      deps.telemetry?.event('progress', {
        experimentId: s.experimentId,
        turn: s.turnNumber,
        state: 'CheckProgress',
        provider: s.llmProvider,
        decision: result.decision,
        reason: result.reason,
        waitSeconds: result.decision === 'provider_wait' ? result.waitSeconds : undefined,
      });
    return Promise.resolve(result);
  };

function decide(deps: Pick<HandlerDeps, 'now'>, event: unknown): { state: LoopState; result: CheckProgressResult } {
  // The machine passes { state, execution }; a machine version from before a deploy passed the state alone.
  const withClock = event !== null && typeof event === 'object' && 'execution' in event;
  const {
    state: s,
    execution,
    chunk,
  } = withClock
    ? parseOrThrow(progressTaskInputSchema, event)
    : { state: parseOrThrow(progressInputSchema, event), execution: undefined, chunk: undefined };
  const now = deps.now();
  const answer = (result: CheckProgressResult) => ({ state: s as LoopState, result });
  const clock: ExecutionClock | undefined = execution && {
    startTime: new Date(execution.startTime),
    timeoutSeconds: execution.timeoutSeconds,
    turnReserveSeconds: turnReserveSeconds(s.llmProvider),
  };
  if (s.outageError || !s.turn) {
    const turnsHere = s.turnNumber - s.executionStartTurn; // the turns this execution completed
    const outage = providerOutage({
      outage: s.outage,
      ceilingSeconds: s.limits.outageWaitSeconds,
      error: s.outageError ?? { Error: 'ProviderTransientError', Cause: 'the turn failed' },
      fits: (wait, waitsHere) => {
        if (historyAfter(turnsHere + 1, waitsHere) > HISTORY_EVENT_QUOTA) return 'history_quota';
        if (clock) {
          const end = clock.startTime.getTime() + clock.timeoutSeconds * 1000;
          if (now.getTime() + (wait + clock.turnReserveSeconds) * 1000 >= end) return 'execution_time';
        }
        return 'yes';
      },
    });
    if (outage.decision === 'provider_wait')
      return answer({
        decision: 'provider_wait',
        reason: 'provider_outage',
        waitSeconds: outage.waitSeconds,
        // the same turn again, with the waits counted
        next: nextLoopState(s, s.turnNumber, outage.outage),
      });
    if (outage.decision === 'provider_outage')
      return answer({ decision: 'provider_outage', reason: 'provider_outage', detail: outage.detail });
    return answer({
      decision: 'continue_as_new',
      reason: outage.reason,
      continuation: continuation(s, true),
    });
  }
  const progress = checkProgress(
    {
      goalFound: s.turn.goalFound,
      halt: s.turn.halt,
      turnStopReason: s.turn.stopReason,
      actionsTaken: s.turn.actionsTaken,
      startedAt: new Date(s.startedAt),
      maxMoves: s.limits.maxMoves,
      maxDurationMinutes: s.limits.maxDurationMinutes,
      turnNumber: s.turnNumber,
      maxTurns: s.limits.maxTurns,
      executionStartTurn: s.executionStartTurn,
      turnsPerExecution: s.limits.turnsPerExecution,
      execution: clock,
      outage: s.outage,
    },
    now,
  );
  if (progress.decision === 'continue_as_new') return answer({ ...progress, continuation: continuation(s, false) });
  if (progress.decision !== 'continue') return answer(progress);
  // the next turn has waited for nothing yet; the run's and this execution's waits go on
  const outage: OutageState = { waits: 0, seconds: 0, total: s.outage.total, here: s.outage.here };
  if (!chunk) return answer({ ...progress, next: nextLoopState(s, s.turnNumber + 1, outage) });
  return answer(inChunk(s, new Date(chunk.startTime), now, (pace) => nextLoopState(s, s.turnNumber + 1, outage, pace)));
}

/** Another turn in a chunk (an Express execution), or the chunk hands back before Express's limit. */
function inChunk(s: LoopState, chunkStart: Date, now: Date, next: (pace: Pace) => LoopState): CheckProgressResult {
  const pace = paceAfterTurn(s.pace, chunkStart, now);
  const step = chunkStep(pace, chunkStart, now);
  if (step === 'continue') return { decision: 'continue', reason: 'running', next: next(pace) };
  return { decision: step, reason: step === 'per_turn' ? 'slow_turns' : 'chunk_time', next: next(pace) };
}

export const handler = withLambdaTelemetry((telemetry, event: unknown) =>
  checkProgressHandler({ now: () => new Date(), telemetry })(event),
);
