// FinalizeSuccess / FinalizeTimeout / FinalizeStuck / FinalizeFailure: give the experiment its
// final status, idempotently (a retried finalize changes nothing).
import { parseOrThrow } from '../config/zod-errors.ts';
import { failureInputSchema, finalizeInputSchema } from '../../state-machine/contracts.ts';
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
    return { experimentId: s.experimentId, status, stopReason: 'goal_found' };
  };

export const finalizeTimeoutHandler =
  (deps: HandlerDeps) =>
  async (event: unknown): Promise<FinalizeOutput> => {
    const s = parseOrThrow(finalizeInputSchema, event);
    const { status } = await deps.store.finalizeExperiment(s.experimentId, {
      status: 'timeout',
      stopReason: s.progress.reason,
    });
    return { experimentId: s.experimentId, status, stopReason: s.progress.reason };
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
    return { experimentId: s.experimentId, status, stopReason: s.progress.reason };
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
    const error = (state.error ?? {}) as { Error?: string; Cause?: string };
    const reason = `${error.Error ?? 'Error'}: ${causeMessage(error.Cause)}`.slice(0, 4000);
    const owned = await deps.store.findByExecution(executionArn);
    const resuming = (state.resume as { experimentId?: unknown } | undefined)?.experimentId;
    const experimentId = owned?.id ?? (typeof resuming === 'string' ? resuming : null);
    // The start failed before any row was this execution's (bad input): nothing to mark.
    if (experimentId === null) return { experimentId: null, status: 'not_created', stopReason: 'error' };
    const { status } = await deps.store.finalizeExperiment(experimentId, {
      status: 'failed',
      stopReason: 'error',
      failureReason: reason,
    });
    return { experimentId, status, stopReason: 'error' };
  };

/** Lambda puts {errorMessage, errorType} JSON in Cause; the local runner the message. */
function causeMessage(cause: string | undefined): string {
  if (!cause) return 'no cause given';
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: string };
    return parsed.errorMessage ?? cause;
  } catch {
    return cause;
  }
}

export const successHandler = lambdaEntry(finalizeSuccessHandler);
export const timeoutHandler = lambdaEntry(finalizeTimeoutHandler);
export const stuckHandler = lambdaEntry(finalizeStuckHandler);
export const failureHandler = lambdaEntry(finalizeFailureHandler);
