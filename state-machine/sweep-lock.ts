// One process at a time per sweep: a session-level advisory lock held by a connection of its own. A server restart or
// failover drops it, so the lock listens for that (an unheard 'error' would end the process), reconnects with backoff
// and takes the lock again; until then no run starts, and if another process took the sweep meanwhile this one stops.
// The server may still hold the lock for the lost session, whose holder is this process: it is ended, not obeyed.
import pg from 'pg';
import type { Database } from '../core/store/database.ts';

class SweepBusyError extends Error {
  override readonly name = 'SweepBusyError';
  constructor(readonly sweep: string) {
    super(`sweep "${sweep}" is being run by another process; wait for it, or stop it first`);
  }
}

/** The lock was lost with its connection, and another process holds the sweep now. */
export class SweepLockLostError extends Error {
  override readonly name = 'SweepLockLostError';
  constructor(readonly sweep: string) {
    super(
      `sweep "${sweep}": its lock went with the database connection (a restart or a failover) and another process ` +
        'took the sweep meanwhile; this process stopped its runs after their turns and left them to it',
    );
  }
}

export interface SweepLockEvents {
  /** The connection and the lock are gone (the error that ended them); the lock is being taken again. */
  onLost?: (err: Error) => void;
  /** Taken again after `onLost`, after this many milliseconds without it. */
  onRetaken?: (ms: number) => void;
  /** Another process has the sweep now: this one must stop. */
  onTaken?: (err: SweepLockLostError) => void;
}

const LOCK = `SELECT pg_try_advisory_lock(hashtext('ariadne-sweep'), hashtext($1)) AS ok, pg_backend_pid() AS pid,
  (SELECT backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()) AS started`;
/** The session holding the lock, by pid and start (a pid alone may be reused by a later session). */
const HOLDER = `SELECT l.pid, a.backend_start::text AS started FROM pg_locks l
  LEFT JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
    AND l.classid = (hashtext('ariadne-sweep')::bigint & 4294967295)::oid
    AND l.objid = (hashtext($1)::bigint & 4294967295)::oid`;
const FIRST_WAIT_MS = 100;
const LONGEST_WAIT_MS = 5_000;

export class SweepLock {
  private client: pg.Client | null = null;
  private released = false;
  private lostAt: number | null = null;
  private waiters: Array<() => void> = [];
  /** The server's session that holds (or held, before it was lost) the lock for this process. */
  private session: { pid: number; started: string | null } | null = null;

  private constructor(
    private readonly url: string,
    /** The lock's key: the sweep, within its schema (another schema's sweep of that name is another sweep). */
    private readonly key: string,
    private readonly sweep: string,
    private readonly events: SweepLockEvents,
  ) {}

  /** Takes the sweep's lock, or throws SweepBusyError when another process has it. */
  static async take(db: Database, sweep: string, events: SweepLockEvents = {}): Promise<SweepLock> {
    const url = db.pool.options.connectionString;
    if (!url) throw new Error('the sweep lock needs the database URL its pool was opened with');
    const lock = new SweepLock(url, `${db.schema}/${sweep}`, sweep, events);
    if ((await lock.connectAndTake()) !== 'taken') throw new SweepBusyError(sweep);
    return lock;
  }

  /** Resolves at once while the lock is held; else when it is taken again. */
  held(): Promise<void> {
    return this.lostAt === null ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  async release(): Promise<void> {
    this.released = true;
    for (const w of this.waiters.splice(0)) w();
    const client = this.client;
    this.client = null;
    // ending the session releases its advisory locks
    await client?.end().catch(() => undefined);
  }

  /**
   * A new connection, and the lock on it: 'taken'; 'busy' when another session holds the lock; 'own' when the
   * session holding it is this process's lost one (ended here, so the next try takes the lock).
   */
  private async connectAndTake(): Promise<'taken' | 'busy' | 'own'> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 10_000 });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('the connection holding the sweep lock closed')));
    try {
      await client.connect();
      const { rows } = await client.query<{ ok: boolean; pid: number; started: string | null }>(LOCK, [this.key]);
      if (!rows[0].ok || this.released) {
        const own = !rows[0].ok && !this.released && (await this.endOwnSession(client));
        await client.end().catch(() => undefined);
        return own ? 'own' : 'busy';
      }
      this.client = client;
      this.session = { pid: rows[0].pid, started: rows[0].started };
      return 'taken';
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Whether the lock's holder is this process's lost session (then it is ended: a role may end its own sessions), or
   * nobody now; false when it is another process's.
   */
  private async endOwnSession(client: pg.Client): Promise<boolean> {
    const mine = this.session;
    if (!mine) return false;
    const { rows } = await client.query<{ pid: number; started: string | null }>(HOLDER, [this.key]);
    const holder = rows[0];
    if (!holder) return true; // let go meanwhile: the next try takes it
    if (holder.pid !== mine.pid || holder.started === null || holder.started !== mine.started) return false;
    await client.query('SELECT pg_terminate_backend($1)', [holder.pid]).catch(() => undefined);
    return true;
  }

  private lost(client: pg.Client, err: Error): void {
    if (this.released || client !== this.client || this.lostAt !== null) return;
    this.client = null;
    this.lostAt = Date.now();
    this.events.onLost?.(err);
    void this.retake();
  }

  private async retake(): Promise<void> {
    for (let wait = FIRST_WAIT_MS; !this.released; wait = Math.min(2 * wait, LONGEST_WAIT_MS)) {
      await new Promise((r) => setTimeout(r, wait));
      if (this.released) return;
      let taken: 'taken' | 'busy' | 'own';
      try {
        taken = await this.connectAndTake();
      } catch {
        continue; // the server is not back yet
      }
      if (this.released) return;
      if (taken === 'own') continue;
      if (taken === 'busy') {
        this.events.onTaken?.(new SweepLockLostError(this.sweep));
        return; // never held again: the waiters stay until release
      }
      const ms = Date.now() - this.lostAt!;
      this.lostAt = null;
      this.events.onRetaken?.(ms);
      for (const w of this.waiters.splice(0)) w();
      return;
    }
  }
}
