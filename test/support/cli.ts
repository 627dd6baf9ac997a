// The ariadne command as a user runs it, for CLI tests: a real process with
// the test's database, real exit codes.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { tableCounts, type TestDatabase } from './db.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The helpers for a test file; `database` gives its database, which exists only once beforeAll has run. */
export function cli(database: () => TestDatabase) {
  const ariadne = (args: string[], env: Record<string, string> = {}) => {
    const db = database();
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bin/ariadne.ts', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema, ...env },
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  /** Like ariadne(), without blocking this process: needed when a server in this process must answer the CLI. */
  const ariadneAsync = (
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const db = database();
      const child = spawn(process.execPath, ['--import', 'tsx', 'bin/ariadne.ts', ...args], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema, ...env },
      });
      let stdout = '',
        stderr = '';
      child.stdout.on('data', (d) => {
        stdout += d;
      });
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  /** Bad input: exit 2, the message, and not a row written. */
  const expectInputError = async (args: string[], message: RegExp): Promise<void> => {
    const before = await tableCounts(database());
    const r = ariadne(args);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(2);
    expect(await tableCounts(database())).toEqual(before);
  };
  return { ariadne, ariadneAsync, expectInputError };
}
