// The EventBridge target for FAILED / TIMED_OUT / ABORTED executions.
import { finalizeFromExecutionEvent, type FinalizerOutcome } from '../engine/execution-events.ts';
import { lambdaEntry, type HandlerDeps } from './deps.ts';

export const finalizeExecutionHandler =
  (deps: HandlerDeps) =>
  async (event: unknown): Promise<FinalizerOutcome> =>
    finalizeFromExecutionEvent(event, deps.store, deps.taskTokens);

export const handler = lambdaEntry(finalizeExecutionHandler);
