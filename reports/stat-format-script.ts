// reports/stat-format.ts as a browser loads it: one formatting of rates, intervals and costs for the written report,
// the viewer's server and its pages, not a copy per page. Its types are stripped by esbuild (tsx's own transformer,
// so always installed with the CLI) once per process: as an ES module for the viewer's pages (/assets/stat-format.js)
// and as a classic script defining the global StatFormat for the report's charts, which open from a file.
import { readFileSync } from 'node:fs';
import { transformSync } from 'esbuild';

const SOURCE = new URL('./stat-format.ts', import.meta.url);
const cache = new Map<string, string>();

function built(format: 'esm' | 'iife'): string {
  let code = cache.get(format);
  if (code === undefined) {
    code = transformSync(readFileSync(SOURCE, 'utf8'), {
      loader: 'ts',
      format,
      target: 'es2022',
      ...(format === 'iife' ? { globalName: 'StatFormat' } : {}),
    }).code;
    cache.set(format, code);
  }
  return code;
}

/** The module, for `import { formatRate } from '/assets/stat-format.js'`. */
export const statFormatModule = (): string => built('esm');

/** A classic script that defines `StatFormat` (formatRate, formatInterval, ...) for report.js. */
export const statFormatClassic = (): string => built('iife');
