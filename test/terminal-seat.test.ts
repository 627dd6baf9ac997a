// `ariadne play`'s seat on a terminal (bin/cli/terminal-seat.ts), with a stream standing in for a terminal in raw
// mode: the keys are the commands they stand for (arrows move, r recalls, ":" types a line), giving up asks to be
// confirmed, help is no move, and what the seat prints is the prompt's messages as a model reads them.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { keyCommands, terminalSeat } from '../bin/cli/terminal-seat.ts';
import type { HumanPrompt } from '../core/providers/human-agent.ts';

/** A stream that passes for a terminal's stdin: raw mode is noted, not set. */
function fakeTerminal() {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, raw: false }) as PassThrough & {
    isTTY: boolean;
    raw: boolean;
    setRawMode(on: boolean): void;
  };
  stdin.setRawMode = (on: boolean) => {
    stdin.raw = on;
  };
  let shown = '';
  const out = Object.assign(new PassThrough(), {
    write: (s: string) => {
      shown += s;
      return true;
    },
  });
  return { stdin, out, shown: () => shown };
}

const PROMPT: HumanPrompt = {
  system: 'You are exploring a maze.',
  messages: [{ role: 'user', text: 'Turn 1. You are at (1,1).' }],
  tools: [],
  turnStart: true,
  turn: 1,
  actionsLeftInTurn: 8,
};

describe('a terminal game', () => {
  it('reads arrows, letters and typed lines as commands; ignores other keys; Ctrl-D ends the input', async () => {
    const t = fakeTerminal();
    const keys = keyCommands(t.out, t.stdin as never);
    expect(t.stdin.raw).toBe(true);
    const never = new AbortController().signal;
    t.stdin.write('\x1b[A'); // up
    expect(await keys.next(never)).toBe('n');
    t.stdin.write('x'); // not a command: nothing
    t.stdin.write('\x1b[D'); // left
    expect(await keys.next(never)).toBe('w');
    t.stdin.write('r');
    expect(await keys.next(never)).toBe('recall');
    t.stdin.write(':e pasx\x7ft it\r'); // a typed line, with a backspace
    expect(await keys.next(never)).toBe('e past it');
    t.stdin.write('\x04'); // Ctrl-D
    expect(await keys.next(never)).toBeNull();
    keys.close();
    expect(t.stdin.raw).toBe(false);
  });

  it('shows the prompt as a model reads it, takes a move, and gives up only once confirmed', async () => {
    const t = fakeTerminal();
    const keys = keyCommands(t.out, t.stdin as never);
    const seat = terminalSeat({
      player: 'ada',
      commands: keys,
      out: t.out,
      stopped: new AbortController().signal,
      onEnd: () => undefined,
    });
    const never = new AbortController().signal;
    const first = seat.next(PROMPT, never);
    t.stdin.write('?'); // help: no move
    t.stdin.write('\x1b[B'); // down
    expect(await first).toEqual({ call: { name: 'move_south', arguments: {} } });
    expect(t.shown()).toContain(
      '--- system prompt (a model is sent it with every call) ---\nYou are exploring a maze.\n',
    );
    expect(t.shown()).toContain('--- turn 1: 8 actions ---\nTurn 1. You are at (1,1).\n');
    expect(t.shown()).toMatch(/help shows this/);
    const second = seat.next({ ...PROMPT, turnStart: false, messages: [] }, never);
    t.stdin.write('y'); // answers no question: nothing
    t.stdin.write('q'); // give up? ...
    t.stdin.write('n'); // ... no: play on (n is not taken as a move here)
    t.stdin.write('q');
    t.stdin.write('y');
    expect(await second).toEqual({ giveUp: true });
    expect(t.shown().match(/give up this maze\?/g)).toHaveLength(2);
    // the system prompt is shown once
    expect(t.shown().match(/--- system prompt/g)).toHaveLength(1);
    keys.close();
  });
});
