// Shared bench plumbing: a fresh embedded Postgres in a temp dir, and timing.
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../core/store/embedded.ts';
import { envString } from '../core/config/environment.ts';

export async function benchPostgres() {
  const url = envString('BENCH_DATABASE_URL');
  if (url) return { url, cpuSeconds: () => null, stop: () => Promise.resolve() };
  const parent = mkdtempSync(join(tmpdir(), 'ariadne-bench-'));
  chmodSync(parent, 0o755);
  const dataDir = join(parent, 'pgdata');
  const server = await startEmbeddedPostgres({ dataDir, persistent: false });
  return {
    url: server.url,
    cpuSeconds: () => postgresCpuSeconds(dataDir),
    stop: async () => {
      await server.stop();
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

/**
 * CPU seconds (user + system) used so far by the embedded server: the
 * postmaster named in its postmaster.pid and its children (backends, WAL
 * writer...), read from /proc. Null where /proc is missing or the server is
 * not ours (BENCH_DATABASE_URL).
 */
function postgresCpuSeconds(dataDir: string): number | null {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync('/proc') || !existsSync(pidFile)) return null;
  const postmaster = readFileSync(pidFile, 'utf8').split('\n')[0].trim();
  const ticks = 100; // USER_HZ: 100 on every Linux ABI Node supports
  let seconds = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      // fields after "pid (comm) ": state ppid ... utime(12th) stime(13th)
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      if (pid === postmaster || f[1] === postmaster) seconds += (Number(f[11]) + Number(f[12])) / ticks;
      // and the children that have exited (a closed connection's backend, an autovacuum worker): cutime, cstime
      if (pid === postmaster) seconds += (Number(f[13]) + Number(f[14])) / ticks;
    } catch {
      /* exited meanwhile */
    }
  }
  return seconds;
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const t = process.hrtime.bigint();
  const value = await fn();
  return { value, seconds: Number(process.hrtime.bigint() - t) / 1e9 };
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
