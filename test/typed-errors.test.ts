// The project's own errors are classes, matched with instanceof: the CLI is one bundle (or the sources under tsx),
// never both, so each class exists once. A comparison of an error's name with one of our class names fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { houseFiles } from '../bench/house-files.ts';

const ROOT = join(import.meta.dirname, '..');
const DIRS = ['bin', 'core', 'functions', 'lib', 'reports', 'results', 'state-machine', 'viewer', 'simulators'];

describe('typed errors', () => {
  const files = houseFiles(/\.ts$/, DIRS).map((f) => ({ f, text: readFileSync(join(ROOT, f), 'utf8') }));
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
