// The serialized replays of finished experiments the viewer has drawn lately: a finished run's log never changes,
// so a second look (back from another page, the compare page, a reload) skips the database. An entry is keyed by
// the experiment's updated_at, which any write changes, so nothing stale is ever served; running runs are not kept.
const MAX_BYTES = 64 * 1024 * 1024;

export class ReplayCache {
  private readonly entries = new Map<string, { version: string; body: string }>();
  private bytes = 0;

  get(id: string, version: string): string | undefined {
    const hit = this.entries.get(id);
    if (!hit || hit.version !== version) return undefined;
    // most recently used last
    this.entries.delete(id);
    this.entries.set(id, hit);
    return hit.body;
  }

  set(id: string, version: string, body: string): void {
    this.drop(id);
    if (body.length > MAX_BYTES / 4) return; // one huge run must not push every other out
    this.entries.set(id, { version, body });
    this.bytes += body.length;
    for (const key of this.entries.keys()) {
      if (this.bytes <= MAX_BYTES) break;
      this.drop(key);
    }
  }

  private drop(id: string): void {
    const old = this.entries.get(id);
    if (!old) return;
    this.bytes -= old.body.length;
    this.entries.delete(id);
  }
}
