// The one place an error becomes a message and an exit code (see exit-codes.ts): 2 for what the user can fix
// in the input, 3 for the environment, 1 for everything else (a failure of the work, or a bug).
import { CommanderError } from 'commander';
import { InvalidInputError } from '../../core/errors.ts';
import { MazeInputError } from '../../core/maze/errors.ts';
import { DatabaseConfigError, DatabaseUnreachableError } from '../../core/store/errors.ts';
import { InvalidParameterError } from '../../core/config/parameters.ts';
import { EnvironmentError, EXIT, NotFoundError, type ExitCode } from './exit-codes.ts';
import { envString } from '../../core/config/environment.ts';

/** Errors in what the user gave: options, files (mazes, sweep and workflow YAML), DATABASE_URL, parameters. */
function isInputError(err: unknown): err is Error {
  return (
    err instanceof InvalidInputError ||
    err instanceof MazeInputError ||
    err instanceof DatabaseConfigError ||
    err instanceof InvalidParameterError ||
    err instanceof NotFoundError
  );
}

/** AWS SDK errors that mean "this thing does not exist" (Step Functions' names, as documented per action). */
const AWS_NOT_FOUND = new Set([
  'ExecutionDoesNotExist',
  'StateMachineDoesNotExist',
  'ParameterNotFound',
  'ResourceNotFoundException',
  'ResourceNotFound',
  'NoSuchBucket',
]);

/** AWS SDK errors that mean "you cannot get in from here": credentials, signatures, permissions. */
const AWS_ACCESS = new Set([
  'ExpiredTokenException',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'AccessDeniedException',
  'AccessDenied', // S3's name
  'InvalidClientTokenId',
]);

/** Node's codes for a server that is not there (DNS, refused, reset, timed out). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH']);

/** An error of the network below a client: no server answered. */
export const isNetworkError = (err: unknown) => NETWORK_CODES.has(String((err as { code?: unknown })?.code));

type AwsLike = Error & { $fault?: 'client' | 'server'; $metadata?: unknown; code?: string };

/** The exit code of an error thrown by an AWS SDK client or the network below it; null when it is neither. */
function awsExitCode(err: AwsLike): { code: ExitCode; message: string } | null {
  if (AWS_NOT_FOUND.has(err.name)) return { code: EXIT.badInput, message: `${err.name}: ${err.message}` };
  if (err.name === 'CredentialsProviderError')
    return {
      code: EXIT.environment,
      message:
        'no AWS credentials were found (environment, ~/.aws, SSO or an instance role); ' +
        'configure them (aws configure, or AWS_PROFILE) and try again',
    };
  if (AWS_ACCESS.has(err.name))
    return { code: EXIT.environment, message: `AWS refused the call (${err.name}): ${err.message}` };
  if (isNetworkError(err))
    return { code: EXIT.environment, message: `cannot reach the service (${err.code}): ${err.message}` };
  if (err.$metadata !== undefined)
    return {
      code: err.$fault === 'server' ? EXIT.environment : EXIT.badInput,
      message: `${err.name}: ${err.message}`,
    };
  return null;
}

/** Prints `err` (unless commander already did) and returns the exit code for it. */
export function printError(err: unknown, stderr: NodeJS.WritableStream = process.stderr): ExitCode {
  if (err instanceof CommanderError) {
    // help and version exit 0; usage errors were already printed by commander
    return err.exitCode === 0 ? EXIT.ok : EXIT.badInput;
  }
  if (isInputError(err)) {
    stderr.write(`\nariadne: ${err.message}\n`);
    return EXIT.badInput;
  }
  if (err instanceof EnvironmentError || err instanceof DatabaseUnreachableError) {
    stderr.write(`\nariadne: ${err.message}\n`);
    return EXIT.environment;
  }
  if (err instanceof Error) {
    const aws = awsExitCode(err);
    if (aws) {
      stderr.write(`\nariadne: ${aws.message}\n`);
      return aws.code;
    }
  }
  // Not one of ours: a failure we did not foresee. ARIADNE_DEBUG=1 adds the stack for whoever reports it.
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const stack = envString('ARIADNE_DEBUG') && err instanceof Error && err.stack ? `\n${err.stack}` : '';
  stderr.write(`\nariadne: ${text}${stack}\n`);
  return EXIT.workFailed;
}
