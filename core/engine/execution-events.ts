// "Step Functions Execution Status Change" events, so no experiment stays 'running' after its execution died outside
// a Catch (timed out, aborted, failed in a state with no Catch). Only the experiment's latest execution counts: one
// that continued as new is history, not a failure. A sweep waiting on the experiment gets its task token back from
// here too (stored with the experiment, and in the event's input unless too large to include).
import { z } from 'zod';
import { parseOrThrow } from '../config/zod-errors.ts';
import type { ExperimentStatus } from './store.ts';
import { returnTaskToken, taskTokenIn, type TaskTokenNotifier } from './task-tokens.ts';

const executionStatusEventSchema = z
  .object({
    source: z.literal('aws.states'),
    'detail-type': z.literal('Step Functions Execution Status Change'),
    detail: z
      .object({
        executionArn: z.string().min(1),
        stateMachineArn: z.string().min(1),
        name: z.string().optional(),
        status: z.enum(['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'PENDING_REDRIVE']),
        error: z.string().nullable().optional(),
        cause: z.string().nullable().optional(),
        /** The execution's input as a JSON string (absent when too large to include: inputDetails.included false). */
        input: z.string().nullable().optional(),
      })
      .passthrough(),
  })
  .passthrough();

export interface ExecutionLookupStore {
  findByExecution(executionArn: string): Promise<{
    id: string;
    status: ExperimentStatus;
    latestExecution: string | null;
    /** The sweep's task token the experiment was started with (migration 015); null outside an AWS sweep. */
    taskToken?: string | null;
  } | null>;
  finalizeExperiment(
    id: string,
    f: { status: 'failed'; stopReason: string; failureReason: string },
  ): Promise<{ status: ExperimentStatus; changed: boolean }>;
}

export type FinalizerOutcome =
  { action: 'finalized'; experimentId: string } | { action: 'ignored'; reason: string; experimentId?: string };

const STOP_REASONS: Record<string, string> = {
  FAILED: 'execution_failed',
  TIMED_OUT: 'execution_timed_out',
  ABORTED: 'execution_aborted',
};

function inputTaskToken(input: string | null | undefined): string | null {
  if (!input) return null;
  try {
    return taskTokenIn(JSON.parse(input));
  } catch {
    return null; // not JSON: nothing a sweep could have put there
  }
}

export async function finalizeFromExecutionEvent(
  event: unknown,
  store: ExecutionLookupStore,
  taskTokens?: TaskTokenNotifier,
): Promise<FinalizerOutcome> {
  const { detail } = parseOrThrow(executionStatusEventSchema, event, 'event');
  const stopReason = STOP_REASONS[detail.status];
  if (!stopReason) return { action: 'ignored', reason: `status ${detail.status} needs no finalizing` };
  const taskToken = inputTaskToken(detail.input);
  const found = await store.findByExecution(detail.executionArn);
  if (!found) {
    // e.g. input refused: no experiment, but a sweep iteration may still be waiting for this run
    await returnTaskToken(taskTokens, taskToken, { experimentId: null, status: 'not_created', stopReason });
    return {
      action: 'ignored',
      reason: 'no experiment has this execution (it failed before StartExperiment wrote one)',
    };
  }
  if (found.latestExecution !== detail.executionArn) {
    return {
      action: 'ignored',
      reason: `a later execution (${found.latestExecution}) continues this experiment`,
      experimentId: found.id,
    };
  }
  const reason = `${detail.status}: ${detail.error ?? 'no error'}${detail.cause ? `: ${detail.cause}` : ''}`.slice(
    0,
    4000,
  );
  const { status, changed } = await store.finalizeExperiment(found.id, {
    status: 'failed',
    stopReason,
    failureReason: reason,
  });
  // Also when already final (FinalizeFailure ran, then the execution failed): a closed token is no error.
  // the token stored with the run, else the event's copy of the input (which omits an input too large to include)
  await returnTaskToken(taskTokens, found.taskToken ?? taskToken, {
    experimentId: found.id,
    status,
    stopReason: changed ? stopReason : 'already_final',
  });
  return changed
    ? { action: 'finalized', experimentId: found.id }
    : { action: 'ignored', reason: `already ${found.status}`, experimentId: found.id };
}
