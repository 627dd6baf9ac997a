// A live one-line progress display on a terminal; plain periodic lines when
// output is piped (CI logs, files), so long runs always show they are alive.
import type { TurnSummary } from '../../core/engine/store.ts';
import { outageWaitSeconds } from '../../core/engine/provider-outage.ts';

/** What the local runner says when a run starts waiting for its provider (onProviderWait). */
export interface ProviderWait {
  /** Waits so far in this outage, this one included. */
  waits: number;
  since: number;
}

const clock = (at: number) => new Date(at).toTimeString().slice(0, 5);

/** "provider down since 14:02, waiting, next try in 12 s": the outage as the live line and `status` say it. */
export function outageLine(down: number, nextTryAt: number, now = Date.now()): string {
  const next = Math.max(0, Math.ceil((nextTryAt - now) / 1000));
  return `provider down since ${clock(down)}, waiting, next try in ${next} s`;
}

export function turnProgress(maxMoves: number, stream: NodeJS.WriteStream = process.stderr) {
  let first: { at: number; actions: number } | null = null; // the rate counts from the first turn, not from start-up
  let lastPlain = 0;
  let latest = '';
  let printed = '';
  // an outage: when it began (the first wait since the last turn) and when the next try is; redrawn each second
  let down: number | null = null;
  let nextTryAt = 0;
  let ticker: NodeJS.Timeout | null = null;
  const stopTicker = () => {
    if (ticker) clearInterval(ticker);
    ticker = null;
  };
  const drawOutage = () => {
    if (down === null) return;
    const line = `${latest ? `${latest} | ` : ''}${outageLine(down, nextTryAt)}`;
    if (stream.isTTY) stream.write(`\r\x1b[2K${line}`);
    else stream.write(`${line}\n`);
  };
  return {
    /** The run waits for its provider (null: it tries again); a wait never ends the line's turn figures. */
    providerWait(wait: ProviderWait | null) {
      if (wait === null) return stopTicker();
      down ??= wait.since;
      nextTryAt = wait.since + outageWaitSeconds(wait.waits - 1) * 1000;
      drawOutage();
      if (stream.isTTY && !ticker) ticker = setInterval(drawOutage, 1000).unref();
    },
    update(t: TurnSummary) {
      down = null;
      stopTicker();
      first ??= { at: Date.now(), actions: t.actionsTaken };
      const secs = (Date.now() - first.at) / 1000;
      const rate = secs > 0.05 ? ` | ${((t.actionsTaken - first.actions) / secs).toFixed(0)} actions/s` : '';
      const line =
        `turn ${t.turnNumber} | actions ${t.actionsTaken}/${maxMoves} | tiles seen ${t.tilesSeen} | ` +
        `position (${t.position.x},${t.position.y})${rate}`;
      latest = line;
      if (stream.isTTY) {
        stream.write(`\r\x1b[2K${line}`);
      } else if (Date.now() - lastPlain >= 2000) {
        lastPlain = Date.now();
        printed = line;
        stream.write(`${line}\n`);
      }
    },
    done() {
      stopTicker();
      if (stream.isTTY) stream.write('\n');
      else if (latest !== printed) stream.write(`${latest}\n`);
    },
  };
}
