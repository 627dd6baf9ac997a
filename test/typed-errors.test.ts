// The project's own errors are classes, matched with instanceof: the CLI is one bundle (or the sources under tsx),
// never both, so each class exists once. A comparison of an error's name with one of our class names fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const DIRS = ['bin', 'core', 'functions', 'lib', 'reports', 'results', 'state-machine', 'viewer', 'simulators'];

const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

describe('typed errors', () => {
  const files = DIRS.flatMap(sources).map((f) => ({ f, text: readFileSync(join(ROOT, f), 'utf8') }));
  const ours = new Set(
    files.flatMap(({ text }) => [...text.matchAll(/class (\w+) extends \w*Error\b/g)].map((m) => m[1])),
  );

  it('are matched with instanceof, never by their name', () => {
    expect(ours.size).toBeGreaterThan(10);
    const byName = files.flatMap(({ f, text }) =>
      [...text.matchAll(/\.name\s*[!=]==\s*'(\w+)'/g)].filter((m) => ours.has(m[1])).map((m) => `${f}: ${m[0]}`),
    );
    expect(byName).toEqual([]);
  });
});
