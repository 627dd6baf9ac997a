// Where this machine keeps Ariadne's data: the embedded Postgres's directory (embedded.ts), and beside it the CLI's
// log files (bin/cli/run-log.ts).
import { homedir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { envString } from '../config/environment.ts';

/**
 * ARIADNE_DATA_DIR, else ~/.local/share/ariadne/postgres. As root the server
 * runs as the `postgres` user, who cannot enter /root, so root's default is
 * /var/lib/ariadne/postgres.
 */
export function defaultDataDir(): string {
  const named = envString('ARIADNE_DATA_DIR');
  if (named) return named;
  if (userInfo().uid === 0) return '/var/lib/ariadne/postgres';
  return join(envString('XDG_DATA_HOME') ?? join(homedir(), '.local', 'share'), 'ariadne', 'postgres');
}

/** ARIADNE_LOG_DIR, else logs/ beside the embedded Postgres's data directory (~/.local/share/ariadne/logs). */
export function logDir(): string {
  return envString('ARIADNE_LOG_DIR') ?? join(dirname(defaultDataDir()), 'logs');
}
