// The ariadne command as installed (bin/ariadne.js, tsx's loader), in a child process: the rehearsal drives the
// researcher's side with it, so what runs is what a researcher runs, not a function called in this process.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface AriadneRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `ariadne ...args` without blocking this process (its servers must answer the child). `env` is laid over
 * this process's environment; a key set to undefined is removed. After `timeoutMs` the child is killed (code null).
 */
export function runAriadne(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 120_000,
): Promise<AriadneRun> {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v;
  const child = spawn(process.execPath, [`${ROOT}/bin/ariadne.js`, ...args], {
    cwd: ROOT,
    env: merged,
    timeout: timeoutMs,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
