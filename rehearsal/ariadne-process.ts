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
  return outputOf(spawnAriadne(args, env, timeoutMs));
}

function spawnAriadne(args: string[], env: Record<string, string | undefined>, timeoutMs: number) {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v;
  return spawn(process.execPath, [`${ROOT}/bin/ariadne.js`, ...args], { cwd: ROOT, env: merged, timeout: timeoutMs });
}

/**
 * A command that serves until stopped (`ariadne view`): resolves with its first stdout line (the URL it prints)
 * and a stop() that sends SIGTERM and resolves with how it ended.
 */
export async function serveAriadne(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 300_000,
): Promise<{ firstLine: string; stop(): Promise<AriadneRun> }> {
  const child = spawnAriadne(args, env, timeoutMs);
  const ended = outputOf(child);
  const firstLine = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    void ended.then((r) => reject(new Error(`ariadne ${args[0]} ended (${r.code}) before printing: ${r.stderr}`)));
  });
  return {
    firstLine,
    stop: () => {
      child.kill('SIGTERM');
      return ended;
    },
  };
}

function outputOf(child: ReturnType<typeof spawnAriadne>): Promise<AriadneRun> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
