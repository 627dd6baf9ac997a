// A sweep's iteration waits (startExecution.waitForTaskToken) until its experiment returns its task token, which every
// way an experiment ends does (FinalizeSuccess/Timeout/Stuck/Failure and the EventBridge finalizer). Sending is
// idempotent in effect: a closed token is not an error. The Step Functions client is injected (handlers/deps.ts).

/** SendTaskSuccess, as the handlers need it. */
export interface TaskTokenNotifier {
  succeed(taskToken: string, output: unknown): Promise<void>;
}

/**
 * SendTaskSuccess's errors for a token that can no longer be answered (API reference, "Errors"): TaskTimedOut (expired
 * or already closed: e.g. sent by an earlier finalize), InvalidToken, TaskDoesNotExist. Retrying cannot change them.
 */
const CLOSED_TOKEN_ERRORS: readonly string[] = ['TaskTimedOut', 'InvalidToken', 'TaskDoesNotExist'];

export type TokenDelivery = 'none' | 'sent' | 'closed';

/**
 * Returns the token with the experiment's outcome. No token (a run not started by a sweep, or a local run with no
 * notifier: nobody waits on it) sends nothing. Other errors propagate, so the Task (or EventBridge) retries.
 */
export async function returnTaskToken(
  notifier: TaskTokenNotifier | undefined,
  taskToken: string | null | undefined,
  output: unknown,
): Promise<TokenDelivery> {
  if (!taskToken || !notifier) return 'none';
  try {
    await notifier.succeed(taskToken, output);
    return 'sent';
  } catch (err) {
    if (CLOSED_TOKEN_ERRORS.includes((err as Error).name)) return 'closed';
    throw err;
  }
}

/** The token in a state or an execution input: the loop state's, a StartExecution input's, or a resume's. */
export function taskTokenIn(state: unknown): string | null {
  if (!state || typeof state !== 'object') return null;
  const s = state as { taskToken?: unknown; resume?: { taskToken?: unknown } };
  const token = s.taskToken ?? s.resume?.taskToken;
  return typeof token === 'string' && token.length > 0 ? token : null;
}
