// The EventBridge target for FAILED / TIMED_OUT / ABORTED executions.
import { finalizeFromExecutionEvent, type FinalizerOutcome } from '../core/engine/execution-events.ts';
import { lambdaEntry, type HandlerDeps } from './deps.ts';

export const finalizeExecutionHandler =
  (deps: HandlerDeps) =>
  async (event: unknown): Promise<FinalizerOutcome> => {
    const outcome = await finalizeFromExecutionEvent(event, deps.store, deps.taskTokens);
    const detail = (event as { detail?: { status?: unknown; executionArn?: unknown } } | null)?.detail;
    const fields = {
      state: 'Finalizer',
      executionStatus: String(detail?.status),
      executionArn: String(detail?.executionArn),
    };
    // 'finalized': this event marked the experiment failed (a retried event finds it final and is ignored)
    if (outcome.action === 'finalized')
      deps.telemetry?.experimentFailed({ ...fields, experimentId: outcome.experimentId });
    else
      deps.telemetry?.event('execution event ignored', {
        ...fields,
        experimentId: outcome.experimentId,
        reason: outcome.reason,
      });
    return outcome;
  };

export const handler = lambdaEntry(finalizeExecutionHandler);
