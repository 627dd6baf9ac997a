// An ariadne command run in the test's own process, for tests that read only what it prints and how it ends: the
// same runCli the installed command runs, with its environment, output streams and exit code put back afterwards.
// A command a test must signal, feed on stdin or leave running still goes through a real process (cli.ts).
import { runCli } from '../../bin/cli/main.ts';
import type { CliResult } from './cli.ts';

let queue: Promise<unknown> = Promise.resolve();

/** What a stream's write is given, as text. */
const asText = (chunk: unknown) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());

/** Lays `env` over process.env (undefined removes a key) and returns what puts it back. */
function overlayEnv(env: Record<string, string | undefined>): () => void {
  const saved = { ...process.env };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  return () => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  };
}

/** Takes what is written to stdout and stderr, as a piped process's streams (not a terminal); returns the restore. */
function captureOutput(out: { stdout: string; stderr: string }): () => void {
  const streams = { stdout: process.stdout, stderr: process.stderr };
  // the streams' own properties as they were (write is usually the prototype's), put back as they were
  const saved = Object.values(streams).flatMap((stream) =>
    (['write', 'isTTY'] as const).map((key) => ({ stream, key, own: Object.getOwnPropertyDescriptor(stream, key) })),
  );
  for (const [name, stream] of Object.entries(streams) as Array<[keyof typeof streams, NodeJS.WriteStream]>) {
    const write = (chunk: unknown, ...rest: unknown[]) => {
      out[name] += asText(chunk);
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    };
    Object.defineProperty(stream, 'write', { value: write, configurable: true, writable: true });
    Object.defineProperty(stream, 'isTTY', { value: false, configurable: true, writable: true });
  }
  return () => {
    for (const { stream, key, own } of saved) {
      if (own) Object.defineProperty(stream, key, own);
      else delete (stream as unknown as Record<string, unknown>)[key];
    }
  };
}

async function runOnce(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  const out = { stdout: '', stderr: '' };
  const savedExitCode = process.exitCode;
  process.exitCode = undefined;
  const restoreEnv = overlayEnv(env);
  const restoreOutput = captureOutput(out);
  try {
    const code = await runCli(args);
    return { code, ...out };
  } finally {
    restoreOutput();
    restoreEnv();
    process.exitCode = savedExitCode;
  }
}

/** Runs one command; calls from one process wait for each other, as each takes the process's environment. */
export function ariadneInProcess(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const run = queue.then(() => runOnce(args, env));
  queue = run.catch(() => undefined);
  return run;
}
