// The house's folders of code and the files in them, for the tests that hold a rule over all of it (comments,
// history, typed errors). Paths are relative to the repository.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.ts';

const HOUSE_DIRS = [
  'aws-facts',
  'bench',
  'bin',
  'core',
  'functions',
  'lib',
  'rehearsal',
  'reports',
  'results',
  'simulators',
  'state-machine',
  'test',
  'viewer',
];

/** Every file under `dirs` whose name matches `pattern` (node_modules left out). */
export function houseFiles(pattern: RegExp, dirs: readonly string[] = HOUSE_DIRS): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(path);
      return pattern.test(e.name) ? [path] : [];
    });
  return dirs.flatMap(walk);
}
