// Shared bench plumbing: a fresh embedded Postgres in a temp dir, and timing.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../lambdas/store/embedded.ts';

export async function benchPostgres() {
  if (process.env.BENCH_DATABASE_URL) return { url: process.env.BENCH_DATABASE_URL, stop: async () => undefined };
  const parent = mkdtempSync(join(tmpdir(), 'ariadne-bench-'));
  chmodSync(parent, 0o755);
  const server = await startEmbeddedPostgres({ dataDir: join(parent, 'pgdata'), persistent: false });
  return { url: server.url, stop: async () => { await server.stop(); rmSync(parent, { recursive: true, force: true }); } };
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const t = process.hrtime.bigint();
  const value = await fn();
  return { value, seconds: Number(process.hrtime.bigint() - t) / 1e9 };
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
