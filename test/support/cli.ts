// The ariadne command as a user runs it, for CLI tests: a real process with
// the test's database, real exit codes.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { tableCounts, type TestDatabase } from './db.ts';
import { ariadneInProcess } from './cli-in-process.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// The installed command's entry, as `ariadne` and `npm run ariadne` run it: the CLI bundled into dist/ariadne.js
// (global-setup.ts builds it as npm install does), without tsx's loader. The sources' own entry, bin/ariadne.ts,
// keeps its tests (cli-startup, cli-program), which check both answer alike.
const ENTRY = `${ROOT}/bin/ariadne.js`;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Node itself as a child process: `env` is laid over this process's; a key set to undefined is removed. */
export function nodeProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
  cwd = ROOT,
  timeoutMs?: number,
): ChildProcessWithoutNullStreams {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v;
  return spawn(process.execPath, args, { cwd, env: merged, timeout: timeoutMs });
}

/** The CLI as a child process, for a caller that must keep it (a server) or watch its output as it comes. */
export function ariadneProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
  cwd = ROOT,
  timeoutMs?: number,
): ChildProcessWithoutNullStreams {
  return nodeProcess([ENTRY, ...args], env, cwd, timeoutMs);
}

/** Everything a child writes, and how it ended. */
export function outputOf(
  child: ChildProcessWithoutNullStreams,
): Promise<CliResult & { signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    let stdout = '',
      stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * The CLI in a child process without blocking this one (a server in this process may have to answer it). `env`
 * is laid over this process's environment; a key set to undefined is removed (e.g. DATABASE_URL, to use the
 * embedded database). After `timeoutMs` the child is killed (code null).
 */
async function spawnAriadne(
  args: string[],
  env: Record<string, string | undefined> = {},
  cwd = ROOT,
  timeoutMs?: number,
): Promise<CliResult> {
  const { code, stdout, stderr } = await outputOf(ariadneProcess(args, env, cwd, timeoutMs));
  return { code, stdout, stderr };
}

/**
 * The helpers for a test file; `database` gives its database, which exists only once beforeAll has run. `ariadne`
 * runs a command in this process (support/cli-in-process.ts), `spawned` in a real one: for a command that must run
 * beside another, or whose process itself is under test.
 */
export function cli(database: () => TestDatabase) {
  const dbEnv = () => ({ DATABASE_URL: database().url, DATABASE_SCHEMA: database().schema });
  const ariadne = (args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> =>
    ariadneInProcess(args, { ...dbEnv(), ...env });
  const spawned = (args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> =>
    spawnAriadne(args, { ...dbEnv(), ...env });
  /** Bad input: exit 2, the message, and not a row written. */
  const expectInputError = async (args: string[], message: RegExp): Promise<void> => {
    const before = await tableCounts(database());
    const r = await ariadne(args);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(2);
    expect(await tableCounts(database())).toEqual(before);
  };
  return { ariadne, spawned, expectInputError };
}
