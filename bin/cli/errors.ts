// The one place an error becomes a message and an exit code: 2 for usage and
// input errors (the user can fix them), 1 for everything else.
import { CommanderError } from 'commander';
import { InvalidInputError } from '../../lambdas/engine/errors.ts';
import { MazeInputError } from '../../lambdas/maze/errors.ts';
import { DatabaseConfigError } from '../../lambdas/store/errors.ts';
import { InvalidParameterError } from '../../lambdas/config/parameters.ts';

/** Errors in what the user gave: options, files (mazes, sweep and workflow YAML), DATABASE_URL, parameters. */
function isInputError(err: unknown): err is Error {
  return (
    err instanceof InvalidInputError ||
    err instanceof MazeInputError ||
    err instanceof DatabaseConfigError ||
    err instanceof InvalidParameterError
  );
}

/** Prints `err` (unless commander already did) and returns the exit code for it. */
export function printError(err: unknown, stderr: NodeJS.WritableStream = process.stderr): number {
  if (err instanceof CommanderError) {
    // help and version exit 0; usage errors were already printed by commander
    return err.exitCode === 0 ? 0 : 2;
  }
  if (isInputError(err)) {
    stderr.write(`\nariadne: ${err.message}\n`);
    return 2;
  }
  stderr.write(`\nariadne: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}\n`);
  return 1;
}
