// A sweep's live display: on a terminal, a block of lines redrawn in place
// (totals, ETA, success so far, then one line per run in flight); piped, a
// totals line every few seconds and whenever a run ends.
import type { SweepProgress } from '../../state-machine/local-sweep.ts';

const seconds = (s: number) =>
  s < 90 ? `${Math.round(s)}s` : s < 5400 ? `${Math.round(s / 60)}m` : `${(s / 3600).toFixed(1)}h`;

export function sweepSummaryLine(p: SweepProgress): string {
  const finished = p.done - p.skipped;
  const elapsed = (Date.now() - p.startedAt) / 1000;
  const left = p.total - p.done;
  const eta = finished > 0 ? ` | ETA ${seconds((elapsed / finished) * left)}` : '';
  const rate =
    p.done > 0 ? ` | success so far ${p.successes}/${p.done} (${Math.round((100 * p.successes) / p.done)}%)` : '';
  const before = p.skipped ? ` (${p.skipped} from before)` : '';
  return (
    `done ${p.done}/${p.total}${before} | running ${p.running.size} | failed ${p.failed}${rate} | ` +
    `${seconds(elapsed)} elapsed${eta}`
  );
}

export function sweepProgress(stream: NodeJS.WriteStream = process.stderr) {
  let drawn = 0;
  let lastPlain = 0;
  let lastDone = -1;
  let pending: SweepProgress | null = null;
  let timer: NodeJS.Timeout | null = null;
  const draw = () => {
    timer = null;
    const p = pending!;
    if (stream.isTTY) {
      const width = stream.columns ?? 120;
      const lines = [
        sweepSummaryLine(p),
        ...[...p.running.values()].map((r) => `  ${r.key}: turn ${r.turn}, ${r.actions} actions`),
      ].map((l) => (l.length > width - 1 ? `${l.slice(0, width - 2)}…` : l));
      // up to the top of the last block, rewrite it, clear what is left of it
      const up = drawn > 0 ? `\x1b[${drawn}A` : '';
      const clearRest = drawn > lines.length ? '\x1b[J' : '';
      stream.write(`${up}${lines.map((l) => `\r\x1b[2K${l}`).join('\n')}\n${clearRest}`);
      drawn = lines.length;
    } else if (p.done !== lastDone || Date.now() - lastPlain >= 5000) {
      lastPlain = Date.now();
      lastDone = p.done;
      stream.write(`${sweepSummaryLine(p)}\n`);
    }
  };
  return {
    update(p: SweepProgress) {
      pending = p;
      // at most ten redraws a second, however many turns end
      timer ??= setTimeout(draw, stream.isTTY ? 100 : 0);
    },
    done() {
      if (timer) {
        clearTimeout(timer);
        draw();
      }
    },
  };
}
