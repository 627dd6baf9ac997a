// Checks a model host before an experiment is written, so a model that is not
// there (exit 2) or an unreachable host (exit 3) is a clear error, not a failed
// experiment row.
import { createConnection } from 'node:net';
import { Ollama } from 'ollama';
import { InvalidInputError } from '../../lambdas/engine/errors.ts';
import { EnvironmentError } from './exit-codes.ts';

/** The innermost code or message of a chain of causes (fetch wraps the socket error). */
function rootCause(err: unknown): string {
  type Chain = { code?: string; message?: string; cause?: unknown; errors?: unknown[] };
  let cur = err as Chain | undefined;
  let found = (err as Error)?.message ?? String(err);
  for (let depth = 0; cur && depth < 5; depth++) {
    if (cur.code) return cur.code;
    if (cur.message) found = cur.message;
    cur = (cur.cause ?? cur.errors?.[0]) as Chain | undefined;
  }
  return found;
}

export async function checkOllama(host: string, model: string, apiKey = process.env.OLLAMA_API_KEY): Promise<void> {
  const client = new Ollama({
    host,
    headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : undefined,
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(10_000) }),
  });
  try {
    await client.show({ model });
  } catch (err) {
    const e = err as { status_code?: number; error?: string; message?: string };
    if (e.status_code === 404)
      throw new InvalidInputError(
        '--model',
        model,
        `--model "${model}" is not on the Ollama server at ${host} (${e.error ?? e.message}); ` +
          `pull it with: ollama pull ${model}`,
      );
    if (typeof e.status_code === 'number')
      throw new EnvironmentError(
        '--ollama-host',
        `the Ollama server at ${host} answered ${e.status_code}: ${e.error ?? e.message}`,
      );
    throw new EnvironmentError(
      '--ollama-host',
      `cannot reach Ollama at --ollama-host ${host} (${rootCause(err)}); ` +
        'start it (ollama serve, or: ariadne sim ollama) or pass the right --ollama-host',
    );
  }
}

/** An explicit endpoint (a simulator, a VPC endpoint) must accept connections; the regional one is AWS's. */
export async function checkEndpoint(option: string, url: string): Promise<void> {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  await new Promise<void>((resolve, reject) => {
    const socket = createConnection({ host: u.hostname, port, timeout: 5_000 }, () => {
      socket.end();
      resolve();
    });
    socket.on('timeout', () => {
      socket.destroy();
      reject(new EnvironmentError(option, `cannot reach ${option} ${url}: no answer within 5 s`));
    });
    socket.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        new EnvironmentError(
          option,
          `cannot reach ${option} ${url} (${err.code ?? err.message}); ` +
            'check the URL or start the server (ariadne sim bedrock)',
        ),
      ),
    );
  });
}
