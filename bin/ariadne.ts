#!/usr/bin/env -S npx tsx
// The ariadne command line: run experiments locally, list and export mazes,
// show results. The commands are in bin/cli/commands/, built by bin/cli/program.ts.
import { printError } from './cli/errors.ts';
import { buildProgram } from './cli/program.ts';
import { warnIfOldNode } from './cli/node-version.ts';

// `ariadne sql ... | head` closes the pipe early: that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

try {
  // said when a command runs, not for its help
  await buildProgram()
    .hook('preAction', () => warnIfOldNode())
    .parseAsync(process.argv);
} catch (err) {
  process.exitCode = printError(err);
}
