// A live one-line progress display on a terminal; plain periodic lines when
// output is piped (CI logs, files), so long runs always show they are alive.
import type { TurnSummary } from '../../lambdas/engine/store.ts';

export function turnProgress(maxMoves: number, stream: NodeJS.WriteStream = process.stderr) {
  const started = Date.now();
  let lastPlain = 0;
  return {
    update(t: TurnSummary) {
      const secs = (Date.now() - started) / 1000;
      const line = `turn ${t.turnNumber} | actions ${t.actionsTaken}/${maxMoves} | tiles seen ${t.tilesSeen} | position (${t.position.x},${t.position.y}) | ${(t.actionsTaken / Math.max(secs, 0.001)).toFixed(0)} actions/s`;
      if (stream.isTTY) {
        stream.write(`\r\x1b[2K${line}`);
      } else if (Date.now() - lastPlain >= 2000 || t.goalFound) {
        lastPlain = Date.now();
        stream.write(`${line}\n`);
      }
    },
    done() { if (stream.isTTY) stream.write('\n'); },
  };
}
