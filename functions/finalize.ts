// FinalizeSuccess / FinalizeTimeout / FinalizeStuck / FinalizeFailure: give the experiment its
// final status, idempotently (a retried finalize changes nothing), then return a sweep's task
// token with the outcome (a second send for a closed token is no error).
import { parseOrThrow } from '../core/config/zod-errors.ts';
import { failureInputSchema, finalizeInputSchema } from '../core/machine/contracts.ts';
import { failureReason } from '../core/machine/task-errors.ts';
import { returnTaskToken, taskTokenIn } from '../core/engine/task-tokens.ts';
import type { EventFields } from '../core/telemetry/telemetry.ts';
import { lambdaEntry, type HandlerDeps } from './deps.ts';

export interface FinalizeOutput {
  experimentId: string | null;
  status: string;
  stopReason: string;
}

export const finalizeSuccessHandler =
  (deps: HandlerDeps) =>
  async (event: unknown): Promise<FinalizeOutput> => {
    const s = parseOrThrow(finalizeInputSchema, event);
    const { status } = await deps.store.finalizeExperiment(s.experimentId, {
      status: 'completed',
      stopReason: 'goal_found',
    });
    const out = { experimentId: s.experimentId, status, stopReason: 'goal_found' };
    return finished(deps, s.taskToken, out, { state: 'FinalizeSuccess', provider: s.llmProvider, turn: s.turnNumber });
  };

export const finalizeTimeoutHandler =
  (deps: HandlerDeps) =>
  async (event: unknown): Promise<FinalizeOutput> => {
    const s = parseOrThrow(finalizeInputSchema, event);
    const { status } = await deps.store.finalizeExperiment(s.experimentId, {
      status: 'timeout',
      stopReason: s.progress.reason,
    });
    const out = { experimentId: s.experimentId, status, stopReason: s.progress.reason };
    return finished(deps, s.taskToken, out, { state: 'FinalizeTimeout', provider: s.llmProvider, turn: s.turnNumber });
  };

/** The halt policy: status stuck, stop_reason the detector, failure_reason what it saw. */
export const finalizeStuckHandler =
  (deps: HandlerDeps) =>
  async (event: unknown): Promise<FinalizeOutput> => {
    const s = parseOrThrow(finalizeInputSchema, event);
    const { status } = await deps.store.finalizeExperiment(s.experimentId, {
      status: 'stuck',
      stopReason: s.progress.reason,
      failureReason: s.progress.detail ?? null,
    });
    const out = { experimentId: s.experimentId, status, stopReason: s.progress.reason };
    return finished(deps, s.taskToken, out, { state: 'FinalizeStuck', provider: s.llmProvider, turn: s.turnNumber });
  };

/**
 * Caught error: { state: <state at the failing Task, with .error>, executionArn }.
 * Only the experiment this execution belongs to is finalized (found by its
 * recorded ARN, or the one it was resuming): a bad input that names another
 * experiment's id must not fail that experiment.
 */
export const finalizeFailureHandler =
  (deps: HandlerDeps) =>
  async (event: unknown): Promise<FinalizeOutput> => {
    const { state, executionArn } = parseOrThrow(failureInputSchema, event, '');
    const reason = failureReason(state.error);
    const owned = await deps.store.findByExecution(executionArn);
    const resuming = (state.resume as { experimentId?: unknown } | undefined)?.experimentId;
    const experimentId = owned?.id ?? (typeof resuming === 'string' ? resuming : null);
    // The start failed before any row was this execution's (bad input): nothing to mark.
    // The token is the loop state's, or (a start that failed) the input's or the resume's.
    const taskToken = taskTokenIn(state);
    const errorName = (state.error as { Error?: unknown } | undefined)?.Error;
    const where = { state: 'FinalizeFailure', errorName: typeof errorName === 'string' ? errorName : undefined };
    if (experimentId === null)
      return finished(deps, taskToken, { experimentId: null, status: 'not_created', stopReason: 'error' }, where);
    const { status, changed } = await deps.store.finalizeExperiment(experimentId, {
      status: 'failed',
      stopReason: 'error',
      failureReason: reason,
    });
    // counted once: a retried finalize finds the row already final
    if (changed) deps.telemetry?.experimentFailed({ experimentId, ...where, reason: reason.slice(0, 500) });
    return finished(deps, taskToken, { experimentId, status, stopReason: 'error' }, where);
  };

/** The outcome, after it went back to the sweep waiting on this experiment (if one is), and its log line. */
async function finished(
  deps: HandlerDeps,
  taskToken: string | null,
  out: FinalizeOutput,
  fields: EventFields,
): Promise<FinalizeOutput> {
  await returnTaskToken(deps.taskTokens, taskToken, out);
  deps.telemetry?.event('experiment finalized', { ...fields, ...out, sweep: taskToken !== null });
  return out;
}

export const successHandler = lambdaEntry(finalizeSuccessHandler);
export const timeoutHandler = lambdaEntry(finalizeTimeoutHandler);
export const stuckHandler = lambdaEntry(finalizeStuckHandler);
export const failureHandler = lambdaEntry(finalizeFailureHandler);
