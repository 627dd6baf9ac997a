#!/usr/bin/env node
// Installed `ariadne` command. npm install compiles the CLI into dist/ (bin/compile-cli.ts): help, --version and
// usage errors come from its start-up, and a command that runs from the whole compiled CLI, neither with tsx's
// loader (half a second of CPU a process). A part that is missing (npm install --ignore-scripts) or older than a
// source it was built from is not used: the TypeScript sources (bin/ariadne.ts) run through tsx instead.
import { readFileSync, statSync } from 'node:fs';

const ROOT = new URL('../', import.meta.url);

/** dist/<name>.js, while every source in it is as it was built (the mtimes in dist/<name>.json). */
function compiled(name) {
  try {
    const { mtimes } = JSON.parse(readFileSync(new URL(`dist/${name}.json`, ROOT), 'utf8'));
    for (const [file, mtime] of Object.entries(mtimes)) if (statSync(new URL(file, ROOT)).mtimeMs !== mtime) return;
    return new URL(`dist/${name}.js`, ROOT).href;
  } catch {
    return undefined; // not compiled, or a source is gone: the sources answer
  }
}

const startup = compiled('startup');
const code = startup === undefined ? undefined : await (await import(startup)).answerWithoutActions(process.argv);
if (code !== undefined) process.exitCode = code;
else {
  const cli = compiled('ariadne');
  if (cli !== undefined) await import(cli);
  else {
    const { register } = await import('tsx/esm/api');
    register();
    await import('./ariadne.ts');
  }
}
