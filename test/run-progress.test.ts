// The live line of ariadne run and resume: during a provider outage it says so, with when the outage began and a
// countdown to the next try, instead of freezing on the last turn's figures.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { outageLine, turnProgress } from '../bin/cli/progress.ts';
import type { TurnSummary } from '../core/engine/store.ts';

/** A stream that records what is written, as a terminal (isTTY) or a pipe. */
function fakeStream(isTTY: boolean) {
  const written: string[] = [];
  const stream = { isTTY, write: (s: string) => written.push(s) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, written };
}

const turn = (n: number) =>
  ({ turnNumber: n, actionsTaken: n * 4, tilesSeen: 10, position: { x: 1, y: 2 } }) as unknown as TurnSummary;

const hhmm = (at: number) => new Date(at).toTimeString().slice(0, 5);

describe('the live line during a provider outage', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date(2026, 10, 28, 14, 2, 30));
  });
  afterEach(() => vi.useRealTimers());

  it('says since when the provider is down and counts down to the next try, on a terminal', () => {
    const { stream, written } = fakeStream(true);
    const progress = turnProgress(100, stream);
    progress.update(turn(3));
    const down = Date.now();
    progress.providerWait({ waits: 1, since: down });
    expect(written.at(-1)).toMatch(
      new RegExp(`^\\r\\x1b\\[2Kturn 3 \\| .* \\| provider down since ${hhmm(down)}, waiting, next try in 15 s$`),
    );
    vi.advanceTimersByTime(5000);
    expect(written.at(-1)).toMatch(/next try in 10 s$/);
    // tried again and refused again: the second wait is twice as long, the outage still began at the first
    progress.providerWait(null);
    vi.advanceTimersByTime(10_000);
    progress.providerWait({ waits: 2, since: Date.now() });
    expect(written.at(-1)).toMatch(new RegExp(`provider down since ${hhmm(down)}, waiting, next try in 30 s$`));
    // the provider answers: a turn commits and the line is the turn's again
    progress.providerWait(null);
    progress.update(turn(4));
    const count = written.length;
    vi.advanceTimersByTime(3000);
    expect(written.length).toBe(count);
    expect(written.at(-1)).not.toMatch(/provider down/);
    progress.done();
  });

  it('writes one plain line per wait when piped', () => {
    const { stream, written } = fakeStream(false);
    const progress = turnProgress(100, stream);
    const since = Date.now();
    progress.providerWait({ waits: 1, since });
    vi.advanceTimersByTime(5000);
    expect(written).toEqual([`${outageLine(since, since + 15_000, since)}\n`]);
    expect(written[0]).toMatch(/^provider down since \d\d:\d\d, waiting, next try in 15 s\n$/);
  });
});
