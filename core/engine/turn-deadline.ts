// A turn's deadline: the moment by which its model calls must have ended, so
// that the turn can still commit what it did before its invocation is
// stopped. The caller derives it (a Lambda handler from the time its
// invocation has left, a local run from the turn function's timeout); the
// engine only reads the clock against it.
import type { CallDeadline } from './agent.ts';

export class TurnDeadline {
  private constructor(readonly atMs: number) {}

  /** `ms` from now, on the wall clock: the one a Lambda's timeout runs on. */
  static after(ms: number): TurnDeadline {
    return new TurnDeadline(Date.now() + ms);
  }

  remainingMs(): number {
    return this.atMs - Date.now();
  }

  /** Whether one more model call, which may take up to `callMs`, ends before the deadline. */
  fits(callMs: number): boolean {
    return this.remainingMs() >= callMs;
  }

  /** For one act of the agent: a signal that aborts at the deadline (its timer keeps no process alive). */
  forCall(): CallDeadline {
    // The signal's timer is made when first read, for the same moment: agents that call no model (a baseline acts
    // thousands of times a second) never read it, and a timer each act was 5% of a local run's CPU.
    const remainingMs = () => this.remainingMs();
    let signal: AbortSignal | undefined;
    return {
      get signal() {
        return (signal ??= AbortSignal.timeout(Math.max(0, remainingMs())));
      },
      remainingMs,
    };
  }
}
