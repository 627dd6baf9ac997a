#!/usr/bin/env node
// Installed `ariadne` command: the CLI bundled by npm install (bin/compile-cli.ts) while its sources are as it was
// built from, else the TypeScript sources through tsx (npm install --ignore-scripts, or a source edited since).
// The version needs none of it; Node 22+ keeps the bundle's compiled code between runs (module.enableCompileCache).
import { readFileSync } from 'node:fs';
import module from 'node:module';
import { compiledPart } from './compiled.js';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  module.enableCompileCache?.();
  const cli = compiledPart('ariadne');
  if (cli !== undefined) await import(cli);
  else {
    const { register } = await import('tsx/esm/api');
    register();
    await import('./ariadne.ts');
  }
}
