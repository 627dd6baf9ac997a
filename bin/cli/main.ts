// One ariadne command, from its arguments to its exit code: what bin/ariadne.ts runs for the process, and what the
// tests run in their own process when they read only what a command prints and how it ends.
import { printError } from './errors.ts';
import { buildProgram } from './program.ts';
import { warnIfOldNode } from './node-version.ts';

/** Runs `args` (what follows `ariadne`) and returns the exit code: the command's own, else what its error maps to. */
export async function runCli(args: readonly string[]): Promise<number> {
  try {
    // said when a command runs, not for its help
    await buildProgram()
      .hook('preAction', () => warnIfOldNode())
      .parseAsync([...args], { from: 'user' });
  } catch (err) {
    return printError(err);
  }
  return Number(process.exitCode ?? 0);
}
