// Lines stay within 120 columns in the sources ESLint does not read: SQL,
// YAML, CSS, JSON and shell. (TypeScript and JavaScript are ESLint's
// @stylistic/max-len.) Migrations 001-006 were applied before the limit and
// are checksummed by the migrator: editing one would refuse every database
// that already ran it, so they stay as written.
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAX = 120;
const CHECKED = new Set(['.sql', '.yaml', '.yml', '.css', '.json', '.sh', '']);
const SKIPPED_DIRS = new Set([
  'node_modules',
  '.git',
  'cdk.out',
  'coverage',
  'test-output',
  'bench-output',
  '.stryker-tmp',
]);
const FROZEN = /^migrations\/00[1-6]_[^/]+\.sql$/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return SKIPPED_DIRS.has(entry.name) || path.endsWith('reports/mutation') ? [] : sources(path);
    const rel = relative(ROOT, path);
    const checked = CHECKED.has(extname(entry.name)) && entry.name !== 'package-lock.json' && !FROZEN.test(rel);
    // Files with no extension are checked only where they are scripts (.ci/run).
    return checked && (extname(entry.name) !== '' || rel.startsWith('.ci/')) ? [rel] : [];
  });
}

function longLines(text: string): number[] {
  return text.split('\n').flatMap((line, i) => (line.length > MAX ? [i + 1] : []));
}

describe('source line length', () => {
  it('finds a line over 120 columns', () => {
    expect(longLines(`short\n${'x'.repeat(MAX)}\n${'y'.repeat(MAX + 1)}\n`)).toEqual([3]);
  });

  it('keeps SQL, YAML, CSS, JSON and CI scripts within 120 columns', () => {
    const files = sources(ROOT);
    expect(files).toContain('.ci/run');
    expect(files).toContain('config/parameters.yaml');
    const over = files.flatMap((file) =>
      longLines(readFileSync(join(ROOT, file), 'utf8')).map((line) => `${file}:${line}`),
    );
    expect(over).toEqual([]);
  });
});
