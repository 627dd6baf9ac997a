// `ariadne play`'s seat (core/providers/human-agent.ts): the person at the terminal. It prints what a model would be
// sent (the system prompt once, each turn's first message, each tool result) exactly as the model gets it, between
// marker lines that are not part of it, and reads the person's moves: arrow keys (and a few letters) when stdin is a
// terminal, typed commands one a line (n, s, e, w, recall, quit...) when it is not, so a game can be piped in.
import { createInterface, emitKeypressEvents, type Interface } from 'node:readline';
import {
  COMMANDS_HELP,
  parseCommand,
  SeatClosedError,
  type HumanMove,
  type HumanPrompt,
  type HumanSeat,
} from '../../core/providers/human-agent.ts';
import type { ChatMessage } from '../../core/providers/llm/chat-model.ts';

/** Where the person's commands come from: a line each, or null once there will be none (stdin ended). */
export interface CommandSource {
  /** The next command; null at the end of input, or once `signal` aborts. */
  next(signal: AbortSignal): Promise<string | null>;
  /** Whether the person answers interactively (a terminal): giving up is then confirmed first. */
  readonly interactive: boolean;
  close(): void;
}

/** A line from a waiting reader, or from those queued before it asked. */
class Queue {
  private readonly lines: Array<string | null> = [];
  private waiting: ((line: string | null) => void) | null = null;
  ended = false;

  push(line: string | null): void {
    if (this.ended) return;
    if (line === null) this.ended = true;
    const w = this.waiting;
    this.waiting = null;
    if (w) w(line);
    else this.lines.push(line);
  }

  take(signal: AbortSignal): Promise<string | null> {
    if (this.lines.length > 0) return Promise.resolve(this.lines.shift()!);
    if (this.ended || signal.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const onAbort = () => {
        this.waiting = null;
        resolve(null);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting = (line) => {
        signal.removeEventListener('abort', onAbort);
        resolve(line);
      };
    });
  }
}

/** Typed commands, one a line (stdin piped or redirected). */
export function lineCommands(input: NodeJS.ReadableStream = process.stdin): CommandSource {
  const queue = new Queue();
  const rl: Interface = createInterface({ input, terminal: false });
  rl.on('line', (line) => queue.push(line));
  rl.on('close', () => queue.push(null));
  return { next: (signal) => queue.take(signal), interactive: false, close: () => rl.close() };
}

/** The y key, which only answers a question (giving up): no typed line can hold a NUL, so none is read as it. */
const YES_KEY = '\u0000y';

/** The keys a terminal game takes, as the commands they stand for. */
const KEYS: Record<string, string> = {
  up: 'n',
  down: 's',
  right: 'e',
  left: 'w',
  n: 'n',
  s: 's',
  e: 'e',
  w: 'w',
  r: 'recall',
  q: 'quit',
  y: YES_KEY,
  '?': 'help',
  h: 'help',
};

/**
 * Keys on a terminal in raw mode: arrows and n/s/e/w move, r recalls, q gives up (confirmed with y), ? shows help,
 * and ":" (or Enter) opens a line to type any command (a move with its reason, a tool by name). Ctrl-C is passed on
 * as SIGINT (raw mode does not send it), so the run stops as `ariadne run` does; Ctrl-D ends the input.
 */
export function keyCommands(out: NodeJS.WritableStream, stdin: NodeJS.ReadStream = process.stdin): CommandSource {
  const queue = new Queue();
  let typing: string | null = null;
  emitKeypressEvents(stdin);
  stdin.setRawMode(true);
  stdin.resume();
  const onKey = (text: string | undefined, key: { name?: string; ctrl?: boolean; sequence?: string } = {}) => {
    if (key.ctrl && key.name === 'c') {
      process.kill(process.pid, 'SIGINT');
      return;
    }
    if (key.ctrl && key.name === 'd') return queue.push(null);
    if (typing !== null) {
      if (key.name === 'return' || key.name === 'enter') {
        out.write('\n');
        const line = typing;
        typing = null;
        return queue.push(line);
      }
      if (key.name === 'escape') {
        typing = null;
        return void out.write(' (cancelled)\n');
      }
      if (key.name === 'backspace') {
        if (typing.length > 0) {
          typing = typing.slice(0, -1);
          out.write('\b \b');
        }
        return;
      }
      if (text && text >= ' ' && !key.ctrl) {
        typing += text;
        out.write(text);
      }
      return;
    }
    if (text === ':' || key.name === 'return' || key.name === 'enter') {
      typing = '';
      return void out.write(': ');
    }
    const command = KEYS[key.name ?? ''] ?? KEYS[text ?? ''];
    if (command) queue.push(command);
  };
  stdin.on('keypress', onKey);
  return {
    next: (signal) => queue.take(signal),
    interactive: true,
    close: () => {
      stdin.off('keypress', onKey);
      stdin.setRawMode(false);
      stdin.pause();
    },
  };
}

const rule = (label: string) => `--- ${label} ---`;

/** A message as a model reads it: its text whole; the name of each tool result above its content. */
function messageLines(m: ChatMessage): string[] {
  if (m.role === 'tool') return m.results.flatMap((r) => [rule(`tool result: ${r.name}`), r.content]);
  if (m.role === 'user')
    return [
      m.text,
      ...(m.images ?? []).map(
        (i) => `[a picture (sha256 ${i.sha256.slice(0, 12)}) a model would see here: a terminal cannot show it]`,
      ),
    ];
  return [];
}

/**
 * The person at the terminal: prints what is new before each move and reads the move. `stopped` aborts when the run
 * is being stopped (Ctrl-C); `onEnd` is told when the input ends, so the caller can stop the run (the run is kept,
 * interrupted, to resume).
 */
export function terminalSeat(opts: {
  player: string;
  commands: CommandSource;
  out: NodeJS.WritableStream;
  stopped: AbortSignal;
  onEnd: () => void;
}): HumanSeat {
  const { commands, out } = opts;
  const say = (lines: string[]) => out.write(`${lines.join('\n')}\n`);
  let systemShown: string | null = null;
  /** The next command, or null when the input ended or the wait stopped. */
  const read = async (signal: AbortSignal): Promise<string | null> => {
    const line = await commands.next(AbortSignal.any([signal, opts.stopped]));
    if (line === null && !signal.aborted && !opts.stopped.aborted) opts.onEnd();
    return line;
  };
  return {
    player: opts.player,
    playedIn: 'terminal',
    async next(prompt: HumanPrompt, signal: AbortSignal): Promise<HumanMove> {
      if (prompt.system !== systemShown) {
        systemShown = prompt.system;
        say([rule('system prompt (a model is sent it with every call)'), prompt.system]);
        say([`tools a model is offered: ${prompt.tools.map((t) => t.name).join(', ')}`]);
      }
      if (prompt.turnStart) say([rule(`turn ${prompt.turn}: ${prompt.actionsLeftInTurn} actions`)]);
      for (const m of prompt.messages) {
        const lines = messageLines(m);
        if (lines.length > 0) say(lines);
      }
      for (;;) {
        out.write(commands.interactive ? 'your move (arrows, r, q, ? for help): ' : '');
        const line = await read(signal);
        if (line === null) {
          if (commands.interactive) out.write('\n');
          if (signal.aborted && !opts.stopped.aborted)
            say(['(no move before the turn ended: a turn waits a few minutes; the next one starts now)']);
          throw signal.aborted && !opts.stopped.aborted
            ? (signal.reason as Error)
            : new SeatClosedError('the player stopped');
        }
        if (line === YES_KEY) continue; // no question was asked
        const command = parseCommand(line);
        if (command.kind === 'none') continue;
        if (command.kind === 'help') {
          if (commands.interactive) out.write('\n');
          say([COMMANDS_HELP]);
          continue;
        }
        if (command.kind === 'give-up') {
          if (commands.interactive) {
            out.write('\ngive up this maze? the run ends, not solved (y: give up, any other key: play on) ');
            const answer = await read(signal);
            out.write('\n');
            if (answer !== YES_KEY) continue;
          }
          say(['> quit (the player gave up)']);
          return { giveUp: true };
        }
        const { name, arguments: args } = command.call;
        const reasoning = typeof args.reasoning === 'string' ? ` (reasoning: ${args.reasoning})` : '';
        say([`${commands.interactive ? '\n' : ''}> ${name}${reasoning}`]);
        return { call: command.call };
      }
    },
  };
}
