// Which parts of the CLI compiled into dist/ (bin/compile-cli.ts) may run: bin/ariadne.js runs a part only while
// every source it was built from is as it was built; the test setup compiles again when one is not.
import { readFileSync, statSync } from 'node:fs';

const ROOT = new URL('../', import.meta.url);

/** dist/<name>.js (its URL) while every source in it is as it was built (mtimes in dist/<name>.json); else undefined */
export function compiledPart(name) {
  try {
    const { mtimes } = JSON.parse(readFileSync(new URL(`dist/${name}.json`, ROOT), 'utf8'));
    for (const [file, mtime] of Object.entries(mtimes)) if (statSync(new URL(file, ROOT)).mtimeMs !== mtime) return;
    return new URL(`dist/${name}.js`, ROOT).href;
  } catch {
    return undefined; // not compiled (npm install --ignore-scripts), or a source is gone: the sources answer
  }
}
