// "Step Functions Execution Status Change" events, so no experiment stays
// 'running' after its execution died outside a Catch (timed out, aborted,
// failed in a state with no Catch). Only the experiment's latest execution
// counts: an earlier one that continued as new is history, not a failure.
import { z } from 'zod';
import { parseOrThrow } from '../config/zod-errors.ts';
import type { ExperimentStatus } from './store.ts';

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
      })
      .passthrough(),
  })
  .passthrough();

export interface ExecutionLookupStore {
  findByExecution(
    executionArn: string,
  ): Promise<{ id: string; status: ExperimentStatus; latestExecution: string | null } | null>;
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

export async function finalizeFromExecutionEvent(
  event: unknown,
  store: ExecutionLookupStore,
): Promise<FinalizerOutcome> {
  const { detail } = parseOrThrow(executionStatusEventSchema, event, 'event');
  const stopReason = STOP_REASONS[detail.status];
  if (!stopReason) return { action: 'ignored', reason: `status ${detail.status} needs no finalizing` };
  const found = await store.findByExecution(detail.executionArn);
  if (!found)
    return {
      action: 'ignored',
      reason: 'no experiment has this execution (it failed before StartExperiment wrote one)',
    };
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
  const { changed } = await store.finalizeExperiment(found.id, { status: 'failed', stopReason, failureReason: reason });
  return changed
    ? { action: 'finalized', experimentId: found.id }
    : { action: 'ignored', reason: `already ${found.status}`, experimentId: found.id };
}
