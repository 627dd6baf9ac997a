#!/usr/bin/env node
// Installed `ariadne` command. Help, --version and usage errors come from the start-up compiled on npm install
// (bin/compile-cli.ts, into dist/), without tsx's loader, which costs a quarter of a second a process; a command
// that runs, and every command when dist/ is missing or older than a source it was built from, runs the
// TypeScript sources (bin/ariadne.ts) through tsx.
import { readFileSync, statSync } from 'node:fs';

const ROOT = new URL('../', import.meta.url);

/** The compiled start-up, while every source in it is as it was built (mtimes in dist/startup.json). */
function compiledStartup() {
  try {
    const { mtimes } = JSON.parse(readFileSync(new URL('dist/startup.json', ROOT), 'utf8'));
    for (const [file, mtime] of Object.entries(mtimes)) if (statSync(new URL(file, ROOT)).mtimeMs !== mtime) return;
    return new URL('dist/startup.js', ROOT).href;
  } catch {
    return undefined; // not compiled (npm install --ignore-scripts), or a source is gone: the sources answer
  }
}

const startup = compiledStartup();
const code = startup === undefined ? undefined : await (await import(startup)).answerWithoutActions(process.argv);
if (code !== undefined) process.exitCode = code;
else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./ariadne.ts');
}
