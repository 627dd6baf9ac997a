// A sweep's live display: on a terminal, a block of lines redrawn in place
// (totals, ETA, success so far, then one line per run in flight); piped, a
// totals line every few seconds and whenever a run ends.
import { blockPainter } from './redraw.ts';
import type { SweepProgress } from '../../state-machine/local-sweep.ts';

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

const seconds = (s: number) =>
  s < 90 ? `${Math.round(s)}s` : s < 5400 ? `${Math.round(s / 60)}m` : `${(s / 3600).toFixed(1)}h`;

/**
 * Totals, ETA and the success rate so far. A run ended by an error (provider, database) is not a navigation failure:
 * it is counted apart, with its error's name, and left out of the rate's denominator; runs in flight never count.
 */
export function sweepSummaryLine(p: SweepProgress): string {
  const finished = p.done - p.skipped;
  const elapsed = (Date.now() - p.startedAt) / 1000;
  const left = p.total - p.done;
  const eta = finished > 0 ? ` | ETA ${seconds((elapsed / finished) * left)}` : '';
  const scored = p.done - p.failed;
  const rate = scored > 0 ? ` | success so far ${p.successes}/${scored} (${percent(p.successes / scored)})` : '';
  const before = p.skipped ? ` (${p.skipped} from before)` : '';
  const reasons = [...p.errors].map(([name, n]) => `${name} ${n}`).join(', ');
  const errors = p.failed > 0 ? `errors ${p.failed} (${reasons}; not in the rate)` : 'errors 0';
  const waiting = [...p.running.values()].filter((r) => r.waiting).length;
  const running = `running ${p.running.size}${waiting > 0 ? ` (${waiting} waiting for their provider)` : ''}`;
  // an outage of the database: no run starts until it answers (the runs in flight retry their turns)
  const database =
    p.databaseLostAt !== null
      ? ` | database unreachable for ${seconds((Date.now() - p.databaseLostAt) / 1000)}, waiting`
      : p.databaseOutages.count > 0
        ? ` | database outages ${p.databaseOutages.count} (${seconds(p.databaseOutages.seconds)} waited)`
        : '';
  return (
    `done ${p.done}/${p.total}${before} | ${running} | ${errors}${rate} | ${seconds(elapsed)} elapsed${eta}` + database
  );
}

export function sweepProgress(stream: NodeJS.WriteStream = process.stderr) {
  const paint = blockPainter(stream);
  let lastPlain = 0;
  let lastDone = -1;
  let pending: SweepProgress | null = null;
  let timer: NodeJS.Timeout | null = null;
  const draw = () => {
    timer = null;
    const p = pending!;
    if (stream.isTTY) {
      paint([
        sweepSummaryLine(p),
        ...[...p.running.values()].map(
          (r) =>
            `  ${r.key}: turn ${r.turn}, ${r.actions} actions` +
            (r.waiting
              ? `, provider unavailable: wait ${r.waiting.waits}, ${seconds((Date.now() - r.waiting.since) / 1000)} in`
              : ''),
        ),
      ]);
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
    /** A message while the display runs (a signal's): kept on a terminal, the block redrawn under it. */
    note(text: string) {
      if (!stream.isTTY) {
        stream.write(text);
        return;
      }
      paint.note(text);
      if (pending && !timer) draw();
    },
    done() {
      if (timer) {
        clearTimeout(timer);
        draw();
      }
    },
  };
}
