// One poller per viewer for every live page: while a page listens, it asks the database every `pollMs` which
// experiments changed (each turn updates its experiment's row) and tells every listener. Nothing is asked while no
// page listens, so an idle viewer on --aws lets Aurora pause.
import type { Sql } from '../core/store/sql.ts';
import { experimentsChangedSince, type ExperimentChange } from '../results/live-changes.ts';

type Listener = (changes: ExperimentChange[]) => void;

/**
 * Rows are read back to OVERLAP_MS before the newest change seen: updated_at is the transaction's start, and a turn
 * that commits after a poll may carry a time before it. What was already reported is told apart by its version.
 */
const OVERLAP_MS = 30_000;

export class LiveFeed {
  private readonly listeners = new Set<Listener>();
  private readonly versions = new Map<string, string>();
  private since: Date | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Sql,
    readonly pollMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /**
   * `listener` hears every change found after `ready` resolves: the first listener's subscription reads where the
   * data stands first, so a page that reads its data once `ready` has resolved misses nothing in between.
   */
  subscribe(listener: Listener): { ready: Promise<void>; unsubscribe: () => void } {
    this.listeners.add(listener);
    let ready = Promise.resolve();
    if (!this.timer) {
      this.timer = setInterval(() => void this.poll(), this.pollMs);
      ready = this.poll();
    }
    return {
      ready,
      unsubscribe: () => {
        this.listeners.delete(listener);
        if (this.listeners.size === 0 && this.timer) {
          clearInterval(this.timer);
          this.timer = null;
        }
      },
    };
  }

  close(): void {
    this.listeners.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private inFlight: Promise<void> | null = null;

  /** One poll at a time: a slow database skips beats rather than piling up queries. */
  private poll(): Promise<void> {
    this.inFlight ??= this.readChanges().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  private async readChanges(): Promise<void> {
    try {
      const from = this.since ? new Date(this.since.getTime() - OVERLAP_MS) : new Date(0);
      const rows = await experimentsChangedSince(this.db, from);
      const first = this.since === null;
      const changed: ExperimentChange[] = [];
      for (const { at, ...row } of rows) {
        const version = `${row.status}:${row.actions}:${row.updated_at}`;
        if (this.versions.get(row.experiment_id) !== version) {
          this.versions.set(row.experiment_id, version);
          if (!first) changed.push(row);
        }
        if (!this.since || at > this.since) this.since = new Date(at);
      }
      if (first && !this.since) this.since = new Date(0);
      if (changed.length > 0) for (const listener of this.listeners) listener(changed);
    } catch (err) {
      this.onError(err);
    }
  }
}
