#!/usr/bin/env -S npx tsx
// The ariadne command line: run experiments locally, list and export mazes,
// show results. The commands are in bin/cli/commands/, built by bin/cli/program.ts.
import { runCli } from './cli/main.ts';

// `ariadne sql ... | head` closes the pipe early: that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

process.exitCode = await runCli(process.argv.slice(2));
