// What a Lambda Task's failure looks like through the lambda:invoke integration, and how FinalizeFailure words it as
// the experiment's failure_reason. A function error arrives as Error (the payload's errorType) and Cause (the
// payload); a payload without an errorType, as for a function timeout, arrives as Lambda.Unknown with Step Functions'
// own sentence around it.
import { FUNCTION_TIMEOUT_ERRORS } from './states.ts';

/**
 * Step Functions' Cause for Lambda.Unknown, before the payload Lambda returned. Not on AWS's pages: it is what
 * executions record, e.g. {"Error":"Lambda.Unknown","Cause":"The cause could not be determined because Lambda did
 * not return an error type. Returned payload: {\"errorMessage\":\"... Task timed out after 60.06 seconds\"}"}
 * (github.com/cdklabs/construct-hub pull request 713).
 */
const UNKNOWN_CAUSE_PREFIX = 'The cause could not be determined because Lambda did not return an error type. ';

/** The Cause a Lambda.Unknown error carries for `payload`, the function error Lambda returned. */
export function lambdaUnknownCause(payload: { errorMessage: string }): string {
  return `${UNKNOWN_CAUSE_PREFIX}Returned payload: ${JSON.stringify(payload)}`;
}

/** The message inside a Cause: a Lambda payload's errorMessage (also behind Lambda.Unknown's sentence), else as is. */
function causeMessage(cause: string | undefined): string {
  if (!cause) return 'no cause given';
  const payload = cause.startsWith(UNKNOWN_CAUSE_PREFIX) ? cause.replace(/^.*?Returned payload: /s, '') : cause;
  try {
    const parsed = JSON.parse(payload) as { errorMessage?: unknown };
    return typeof parsed.errorMessage === 'string' ? parsed.errorMessage : cause;
  } catch {
    return cause; // the local runner's Cause is the message itself
  }
}

/**
 * The failure reason for a caught error ($.error: { Error, Cause }): "<Error>: <message>". A function stopped at its
 * timeout says so, since Lambda.Unknown alone does not: it is the infrastructure's failure, not the agent's.
 */
export function failureReason(error: unknown): string {
  const { Error: given, Cause: cause } = (error ?? {}) as { Error?: unknown; Cause?: unknown };
  const name = typeof given === 'string' ? given : 'Error';
  const message = causeMessage(typeof cause === 'string' ? cause : undefined);
  const timedOut = FUNCTION_TIMEOUT_ERRORS.includes(name) && /timed out/i.test(message);
  const reason = timedOut ? `${name}: the Lambda function ran past its timeout (${message})` : `${name}: ${message}`;
  return reason.slice(0, 4000);
}
