// The house's folders of code and the files in them, for what holds a rule over all of it: the function-lengths
// bench and the tests of comments, history and typed errors. Paths are relative to the repository.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export const HOUSE_DIRS = [
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
] as const;

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
