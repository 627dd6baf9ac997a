// The database server restarted twice under a running `ariadne sweep`, as an administrator does for
// maintenance (`pg_ctl restart -m fast`: every session ends with "terminating connection due to administrator
// command", and connections are refused until the server is back): the same command rides it out and exits 0, and
// every run's actions are those of the same sweep run undisturbed. On a server of this file's own.
import { writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../core/store/database.ts';
import { ariadneProcess, outputOf } from './support/cli.ts';
import { endedRuns, ownPostgres, type OwnPostgres } from './support/own-postgres.ts';
import { SweepLock, type SweepLockLostError } from '../state-machine/sweep-lock.ts';
import { tempDir } from './support/temp-dir.ts';

const SWEEP = 'restart-test';
const RUNS = 18;
let server: OwnPostgres;
let file: string;

beforeAll(async () => {
  server = await ownPostgres();
  file = join(tempDir('sweep-restart'), 'restart-test.yaml');
  // random walks long enough (150 turns each) that the sweep is still running at each restart
  writeFileSync(
    file,
    `sweep: ${SWEEP}
agents: [{ agent: random }]
mazes: { generators: [medium], sizes: [31], seeds: [1, 2, 3, 4, 5, 6] }
config: { max_moves: 1200 }
repeats: 3
max_concurrency: 4
`,
  );
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

const sweepIn = (schema: string) =>
  ariadneProcess(['sweep', file], { DATABASE_URL: server.url, DATABASE_SCHEMA: schema }, undefined, 300_000);

/** Every run's actions, by experiment id, and each run's status. */
async function runsOf(db: Database) {
  const actions = await db.query<{ id: string; action: string }>(
    `SELECT experiment_id AS id,
       concat_ws(' ', turn_number, call_index, step_number, tool, outcome, from_x, from_y, to_x, to_y) AS action
     FROM actions ORDER BY experiment_id, turn_number, call_index`,
  );
  const log: Record<string, string[]> = {};
  for (const r of actions.rows) (log[r.id] ??= []).push(r.action);
  const status = await db.query<{ id: string; status: string }>('SELECT id, status FROM experiments ORDER BY id');
  return { log, status: Object.fromEntries(status.rows.map((r) => [r.id, r.status])) };
}

async function until(what: () => Promise<boolean>, ms: number): Promise<void> {
  for (const deadline = Date.now() + ms; !(await what());) {
    if (Date.now() > deadline) throw new Error(`not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a database restarted under ariadne sweep', () => {
  it('costs retries, not the sweep: the same command finishes, exit 0, every log as undisturbed', async () => {
    const calm = await outputOf(sweepIn('calm'));
    expect(calm.code, calm.stderr).toBe(0);

    const child = sweepIn('restarted');
    const ended = outputOf(child);
    // the sweep's schema exists once the command has migrated it
    const db = await openDatabase({ url: server.url, schema: 'restarted', migrate: false });
    const restartsAt = [3, 9];
    try {
      for (const at of restartsAt) {
        await until(async () => child.exitCode !== null || ((await endedRuns(db, SWEEP)) ?? 0) >= at, 120_000);
        if (child.exitCode !== null) throw new Error(`the sweep ended before the restart: ${(await ended).stderr}`);
        await server.restart();
      }
      const r = await ended;
      expect(r.stderr).not.toMatch(/Unhandled 'error' event|node:events|at Parser\./);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(`${RUNS} started, 0 resumed, 0 retried, 0 not started; \\d+/${RUNS} succeeded, 0 errors`),
      );
      expect(r.stderr).toMatch(/the database was unreachable 2 time\(s\), [\d.]+ s in all, waited out\./);
      expect(r.stderr).toMatch(/\| database unreachable for \d+s, waiting|database outages 1/);
      const calmDb = await openDatabase({ url: server.url, schema: 'calm', migrate: false });
      try {
        const [expected, got] = await Promise.all([runsOf(calmDb), runsOf(db)]);
        expect(Object.keys(got.log)).toHaveLength(RUNS);
        expect(got.status).toEqual(expected.status);
        expect(got.log).toEqual(expected.log);
      } finally {
        await calmDb.close();
      }
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await db.close();
    }
  }, 300_000);
});

/**
 * A TCP relay to the server for the lock's own connections, which the test can cut on the client's side only (the
 * server keeps the session and its lock, as after a network fault it has not noticed yet), and which can hold new
 * connections until the test lets them through (the holder cannot come back before another process takes the sweep).
 */
async function startRelay(url: string) {
  const target = new URL(url);
  const clients = new Set<Socket>();
  let held: Array<() => void> | null = null;
  const relay = createServer((client) => {
    const through = () => {
      const upstream = connect(Number(target.port), target.hostname);
      clients.add(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => clients.delete(client));
      client.pipe(upstream);
      upstream.pipe(client);
    };
    if (held) held.push(through);
    else through();
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((relay.address() as { port: number }).port);
  return {
    url: relayed.toString(),
    /** The client's side of every connection ends; the server's side stays open, idle. */
    cutClients: () => {
      for (const client of clients) {
        client.unpipe();
        client.destroy();
      }
    },
    holdNew: () => void (held ??= []),
    letThrough: () => {
      const waiting = held ?? [];
      held = null;
      for (const through of waiting) through();
    },
    close: () => new Promise<void>((resolve) => relay.close(() => resolve())),
  };
}

describe("a sweep's lock, when its connection is dropped", () => {
  it('is taken again, even from its own lost session; if another process took the sweep, says so', async () => {
    const db = await openDatabase({ url: server.url, schema: 'locks' });
    const relay = await startRelay(server.url);
    // the lock's process reaches the server through the relay; the test and "another process" directly
    const viaRelay = await openDatabase({ url: relay.url, schema: 'locks', migrate: false });
    const events: string[] = [];
    let taken!: (err: SweepLockLostError) => void;
    const takenAway = new Promise<SweepLockLostError>((resolve) => (taken = resolve));
    const a = await SweepLock.take(viaRelay, 'one-sweep', {
      onLost: (err) => events.push(`lost: ${err.message}`),
      onRetaken: () => events.push('retaken'),
      onTaken: (err) => {
        events.push(`taken away: ${err.message}`);
        taken(err);
      },
    });
    const holder = () =>
      db.pool.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
           AND classid = (hashtext('ariadne-sweep')::bigint & 4294967295)::oid
           AND objid = (hashtext('locks/one-sweep')::bigint & 4294967295)::oid`,
      );
    const holderPid = async () => {
      const { rows } = await holder();
      expect(rows).toHaveLength(1);
      return rows[0].pid;
    };
    const dropHolder = async () => {
      const pid = await holderPid();
      await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
      return pid;
    };
    const retakes = () => events.filter((e) => e === 'retaken').length;
    try {
      // a second process is refused while the first holds it
      await expect(SweepLock.take(db, 'one-sweep')).rejects.toMatchObject({ name: 'SweepBusyError' });
      // a sweep of that name in another schema is another sweep
      await (await SweepLock.take({ ...db, schema: 'elsewhere' }, 'one-sweep')).release();

      // dropped: the lock is away until it is taken again, on a new connection
      const first = await dropHolder();
      await until(() => Promise.resolve(retakes() === 1), 30_000);
      await a.held();
      expect(events[0]).toMatch(/^lost: terminating connection due to administrator command/);
      const second = await holderPid();
      expect(second).not.toBe(first);
      await expect(SweepLock.take(db, 'one-sweep')).rejects.toMatchObject({ name: 'SweepBusyError' });

      // lost on the process's side only: the server's session still holds the lock, and it is this process's own,
      // not another's: ended, and the lock taken again
      relay.cutClients();
      await until(() => Promise.resolve(retakes() === 2 || events.some((e) => e.startsWith('taken away'))), 30_000);
      expect(events.slice(2)).toEqual([expect.stringMatching(/^lost: /), 'retaken']);
      await a.held();
      expect(await holderPid()).not.toBe(second);

      // dropped again, and another process takes the sweep before the holder is back: it does not take it too
      relay.holdNew();
      await dropHolder();
      await until(async () => (await holder()).rows.length === 0, 30_000);
      const b = await SweepLock.take(db, 'one-sweep');
      relay.letThrough();
      const err = await takenAway;
      expect(err).toMatchObject({ name: 'SweepLockLostError', sweep: 'one-sweep' });
      expect(err.message).toMatch(/another process took the sweep meanwhile; this process stopped its runs/);
      let heldAgain = false;
      void a.held().then(() => (heldAgain = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(heldAgain).toBe(false);
      await b.release();
    } finally {
      await a.release();
      relay.letThrough();
      await viaRelay.close();
      await relay.close();
      await db.close();
    }
  }, 60_000);
});
