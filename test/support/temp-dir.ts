// Scratch directories for one test file, removed when the file's tests end,
// so runs of the suite do not pile up CDK outputs and files in the OS temp dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

// Registered when a test file first imports this module (each file gets a
// fresh module: vitest isolates files), so it runs after that file's tests.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ariadne-${prefix}-`));
  made.push(dir);
  return dir;
}
