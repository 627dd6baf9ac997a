// Retries of model calls: 429, 5xx, connection resets and timeouts, with exponential backoff and full jitter, bounded
// in attempts and total time, each recorded; then a typed error with a stable name, so the state machine's Retry and
// Catch match it alike locally and on AWS. Within a turn's deadline (engine/turn-deadline.ts) every attempt stops at
// the deadline, and a retry starts only if it can end before it.
import type { CallDeadline } from '../../engine/agent.ts';
import { ModelCallDeadlineError } from '../../errors.ts';
import { ERROR_NAMES } from '../../error-names.ts';

/** The fields both provider errors carry; the subclasses differ only in the name Retry/Catch match. */
abstract class ProviderError extends Error {
  constructor(
    message: string,
    readonly provider: string,
    readonly model: string,
    readonly status: number | string,
  ) {
    super(message);
  }
}

export class ProviderTransientError extends ProviderError {
  override readonly name = ERROR_NAMES.providerTransient;
}

class ProviderPermanentError extends ProviderError {
  override readonly name = 'ProviderPermanentError';
}

export interface RetryPolicy {
  max_attempts: number;
  base_delay_ms: number;
  max_delay_ms: number;
  max_total_ms: number;
  timeout_ms: number;
}

export type RetryRecord = { attempt: number; status: number | string; error: string; delay_ms: number };

export interface Failure {
  transient: boolean;
  status: number | string;
  message: string;
}

export async function withRetry<T>(
  call: (signal: AbortSignal) => Promise<T>,
  opts: {
    policy: RetryPolicy;
    classify: (err: unknown) => Failure;
    provider: string;
    model: string;
    random?: () => number;
    sleep?: (ms: number) => Promise<void>;
    /** The turn's deadline for this call, when it has one. */
    deadline?: CallDeadline;
  },
): Promise<{ value: T; retries: RetryRecord[] }> {
  const { policy } = opts;
  const random = opts.random ?? Math.random;
  const sleep = opts.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const retries: RetryRecord[] = [];
  const started = Date.now();
  const { deadline } = opts;
  const stopped = (attempt: number, why: string) =>
    new ModelCallDeadlineError(
      `${opts.provider} model "${opts.model}": ${why} (attempt ${attempt}, ${Date.now() - started} ms into the call)`,
    );
  for (let attempt = 1; ; attempt++) {
    const timeout = AbortSignal.timeout(policy.timeout_ms);
    try {
      return { value: await call(deadline ? AbortSignal.any([timeout, deadline.signal]) : timeout), retries };
    } catch (err) {
      if (deadline?.signal.aborted) throw stopped(attempt, "stopped at the turn's deadline");
      const f = opts.classify(err);
      const label = `${opts.provider} model "${opts.model}": ${f.status} ${f.message}`;
      if (!f.transient) throw new ProviderPermanentError(label, opts.provider, opts.model, f.status);
      const delay = Math.round(random() * Math.min(policy.max_delay_ms, policy.base_delay_ms * 2 ** (attempt - 1)));
      if (attempt >= policy.max_attempts || Date.now() - started + delay > policy.max_total_ms) {
        throw new ProviderTransientError(
          `${label} (gave up after ${attempt} attempts in ${Date.now() - started} ms)`,
          opts.provider,
          opts.model,
          f.status,
        );
      }
      if (deadline && deadline.remainingMs() < delay + policy.timeout_ms)
        throw stopped(attempt, `${f.status} ${f.message}; no time for a retry before the turn's deadline`);
      retries.push({ attempt, status: f.status, error: f.message.slice(0, 500), delay_ms: delay });
      await sleep(delay);
    }
  }
}

/** Network-level failures (no HTTP status): resets, refused connections, timeouts. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
]);

export function networkFailure(err: unknown): Failure | null {
  const e = err as { name?: string; code?: string; cause?: { code?: string; name?: string }; message?: string };
  if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError')
    return { transient: true, status: 'timeout', message: 'no reply within the timeout' };
  const code = e?.code ?? e?.cause?.code;
  if (code && NETWORK_CODES.has(code)) {
    // A host that does not resolve will not start resolving: permanent. The rest may pass.
    return { transient: code !== 'ENOTFOUND', status: code, message: e?.message ?? code };
  }
  if (e?.name === 'TypeError' && /fetch failed/.test(e.message ?? ''))
    return { transient: true, status: 'network', message: e.message ?? 'fetch failed' };
  return null;
}

export const isTransientStatus = (status: number) => status === 408 || status === 429 || status >= 500;
