// A live one-line progress display on a terminal; plain periodic lines when
// output is piped (CI logs, files), so long runs always show they are alive.
import type { TurnSummary } from '../../lambdas/engine/store.ts';

export function turnProgress(maxMoves: number, stream: NodeJS.WriteStream = process.stderr) {
  let first: { at: number; actions: number } | null = null; // the rate counts from the first turn, not from start-up
  let lastPlain = 0;
  let latest = '';
  let printed = '';
  return {
    update(t: TurnSummary) {
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
      if (stream.isTTY) stream.write('\n');
      else if (latest !== printed) stream.write(`${latest}\n`);
    },
  };
}
