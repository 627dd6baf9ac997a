#!/usr/bin/env node
// Installed `ariadne` command. npm install compiles the CLI into dist/ (bin/compile-cli.ts): help, --version and
// usage errors come from its start-up, and a command that runs from the whole compiled CLI, neither with tsx's
// loader (half a second of CPU a process). A part that is missing (npm install --ignore-scripts) or older than a
// source it was built from is not used: the TypeScript sources (bin/ariadne.ts) run through tsx instead.
import { compiledPart } from './compiled.js';

const startup = compiledPart('startup');
const code = startup === undefined ? undefined : await (await import(startup)).answerWithoutActions(process.argv);
if (code !== undefined) process.exitCode = code;
else {
  const cli = compiledPart('ariadne');
  if (cli !== undefined) await import(cli);
  else {
    const { register } = await import('tsx/esm/api');
    register();
    await import('./ariadne.ts');
  }
}
