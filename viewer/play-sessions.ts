// The viewer's play page (ariadne view --play): each game a person plays in the browser is a session here, the seat of
// the human agent (core/providers/human-agent.ts) for one run through the local state machine (state-machine/
// local-play.ts), writing to the local database as `ariadne play` does. The session keeps what the person has been
// shown, as entries the page draws: the system prompt, each turn's first message and each tool result exactly as a
// model gets them (pictures as PNG data URLs), each move the person made; and it waits for the next move.
import { randomUUID } from 'node:crypto';
import type { ParameterCache } from '../core/config/parameters.ts';
import { InvalidInputError } from '../core/errors.ts';
import type { Database } from '../core/store/database.ts';
import {
  parseCommand,
  SeatClosedError,
  type HumanMove,
  type HumanPrompt,
  type HumanSeat,
} from '../core/providers/human-agent.ts';
import type { ChatMessage } from '../core/providers/llm/chat-model.ts';
import type { ExperimentSummary } from '../results/summary-row.ts';
import { ExperimentFailedError, ExperimentInterruptedError } from '../state-machine/local-experiment.ts';
import { playLocally, playRequest, type PlaySpec } from '../state-machine/local-play.ts';
import { InvalidRequestError } from './request-params.ts';

/** One thing the page shows, in order. */
type PlayEntry =
  | { kind: 'system'; text: string; tools: string[] }
  | { kind: 'turn'; turn: number; actionsLeft: number }
  /** A user message as a model reads it: its text, then its pictures in order. */
  | { kind: 'message'; text: string; images: Array<{ src: string; sha256: string }> }
  | { kind: 'result'; tool: string; text: string }
  | { kind: 'move'; tool: string; reasoning: string | null }
  | { kind: 'note'; text: string };

/** The run's end as the page says it: the summary's outcome, with what it took against the optimum. */
type PlayOutcome = Pick<
  ExperimentSummary,
  'status' | 'goal_found' | 'stop_reason' | 'actions' | 'optimal_moves' | 'efficiency' | 'turns' | 'failure_reason'
>;

export interface PlayView {
  id: string;
  player: string;
  /** your_move: waiting for the person; thinking: a move is being played; ended: the run is over (or stopped). */
  status: 'your_move' | 'thinking' | 'ended';
  /** Entries from `from` on (all the page asked for). */
  from: number;
  entries: PlayEntry[];
  /** The number of entries in all: a move is taken only from a page that has seen them all. */
  total: number;
  outcome: PlayOutcome | null;
  /** Why the run stopped without an outcome (a failure before the first turn, the viewer closing). */
  stopped: string | null;
}

/** A move the session does not take now: not the person's turn, or the page has not seen what came since. */
export class MoveRefusedError extends Error {
  override readonly name = 'MoveRefusedError';
}

const pngSrc = (png: Uint8Array) => `data:image/png;base64,${Buffer.from(png).toString('base64')}`;

/** A message a model would read, as the page's entries. */
function entriesOf(m: ChatMessage): PlayEntry[] {
  if (m.role === 'tool') return m.results.map((r) => ({ kind: 'result', tool: r.name, text: r.content }));
  if (m.role === 'user')
    return [
      {
        kind: 'message',
        text: m.text,
        images: (m.images ?? []).map((i) => ({ src: pngSrc(i.png), sha256: i.sha256 })),
      },
    ];
  return [];
}

/** One game in the browser: the person's seat, and the run it sits in. */
class PlaySession implements HumanSeat {
  readonly playedIn = 'viewer' as const;
  readonly entries: PlayEntry[] = [];
  status: PlayView['status'] = 'thinking';
  outcome: PlayOutcome | null = null;
  stopped: string | null = null;
  /** The person's move, while the seat waits for one. */
  private waiting: ((move: HumanMove) => void) | null = null;
  private systemShown: string | null = null;
  private listeners: Array<() => void> = [];
  /** Aborted when the viewer closes: the seat is left, the turn in flight commits, the run is kept interrupted. */
  readonly closed = new AbortController();
  done: Promise<void> = Promise.resolve();

  constructor(
    readonly id: string,
    readonly player: string,
  ) {}

  /** Tells whoever waits for the session to settle (the person's move due, or the run over). */
  private settle(): void {
    if (this.status === 'thinking') return;
    const listeners = this.listeners;
    this.listeners = [];
    for (const l of listeners) l();
  }

  /** Resolves once the person's move is due or the run is over. */
  settled(): Promise<void> {
    if (this.status !== 'thinking') return Promise.resolve();
    return new Promise((resolve) => this.listeners.push(resolve));
  }

  next(prompt: HumanPrompt, signal: AbortSignal): Promise<HumanMove> {
    if (prompt.system !== this.systemShown) {
      this.systemShown = prompt.system;
      this.entries.push({ kind: 'system', text: prompt.system, tools: prompt.tools.map((t) => t.name) });
    }
    if (prompt.turnStart) this.entries.push({ kind: 'turn', turn: prompt.turn, actionsLeft: prompt.actionsLeftInTurn });
    for (const m of prompt.messages) this.entries.push(...entriesOf(m));
    if (this.closed.signal.aborted) return Promise.reject(new SeatClosedError('the viewer closed'));
    return new Promise<HumanMove>((resolve, reject) => {
      const stop = (err: Error) => {
        this.waiting = null;
        this.status = 'thinking';
        signal.removeEventListener('abort', onDeadline);
        this.closed.signal.removeEventListener('abort', onClose);
        reject(err);
      };
      const onDeadline = () => {
        this.entries.push({ kind: 'note', text: 'no move before the turn ended (a turn waits a few minutes)' });
        stop(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
      };
      const onClose = () => stop(new SeatClosedError('the viewer closed'));
      signal.addEventListener('abort', onDeadline, { once: true });
      this.closed.signal.addEventListener('abort', onClose, { once: true });
      this.waiting = (move) => {
        this.waiting = null;
        signal.removeEventListener('abort', onDeadline);
        this.closed.signal.removeEventListener('abort', onClose);
        resolve(move);
      };
      this.status = 'your_move';
      this.settle();
    });
  }

  /** Takes the person's command (a typed line or a button's), if it is their move and they have seen everything. */
  move(command: string, seen: number): void {
    if (this.status !== 'your_move' || !this.waiting)
      throw new MoveRefusedError(
        this.status === 'ended' ? 'the game is over' : 'not your move yet: the last one is still being played',
      );
    if (seen !== this.entries.length)
      throw new MoveRefusedError('the game went on since the page last read it: read what is new, then move');
    const parsed = parseCommand(command);
    if (parsed.kind === 'none' || parsed.kind === 'help')
      throw new InvalidRequestError('command', command, 'a move (n, s, e, w, recall, a tool name) or quit');
    const move: HumanMove = parsed.kind === 'give-up' ? { giveUp: true } : { call: parsed.call };
    this.entries.push(
      'giveUp' in move
        ? { kind: 'move', tool: 'quit', reasoning: 'the player gave up' }
        : {
            kind: 'move',
            tool: move.call.name,
            reasoning: typeof move.call.arguments.reasoning === 'string' ? move.call.arguments.reasoning : null,
          },
    );
    this.status = 'thinking';
    this.waiting(move);
  }

  /** The run is over: its outcome, or why it stopped without one. */
  end(outcome: PlayOutcome | null, stopped: string | null): void {
    this.outcome = outcome;
    this.stopped = stopped;
    this.status = 'ended';
    this.settle();
  }

  view(from: number): PlayView {
    const at = Math.min(Math.max(0, from), this.entries.length);
    return {
      id: this.id,
      player: this.player,
      status: this.status,
      from: at,
      entries: this.entries.slice(at),
      total: this.entries.length,
      outcome: this.outcome,
      stopped: this.stopped,
    };
  }
}

const outcomeOf = (s: ExperimentSummary | null): PlayOutcome | null =>
  s && {
    status: s.status,
    goal_found: s.goal_found,
    stop_reason: s.stop_reason,
    actions: s.actions,
    optimal_moves: s.optimal_moves,
    efficiency: s.efficiency,
    turns: s.turns,
    failure_reason: s.failure_reason,
  };

/** Games running at once, at most: each holds a run (and a database connection while it commits). */
const MAX_LIVE = 8;
/** Ended games kept for their pages to read. */
const MAX_KEPT = 50;

/** Every game played in this viewer, by experiment id. */
export class PlaySessions {
  private readonly sessions = new Map<string, PlaySession>();

  constructor(private readonly deps: { db: Database; parameters?: ParameterCache }) {}

  private live(): PlaySession[] {
    return [...this.sessions.values()].filter((s) => s.status !== 'ended');
  }

  /** A new game: resolves once its first move is due (or it ended, e.g. refused at its start). */
  async start(spec: Omit<PlaySpec, 'experimentId'>): Promise<PlayView> {
    if (this.live().length >= MAX_LIVE)
      throw new InvalidRequestError('play', spec.player, `${MAX_LIVE} games are being played here: finish one first`);
    let request;
    try {
      request = playRequest({ ...spec, experimentId: randomUUID() });
    } catch (err) {
      if (err instanceof InvalidInputError) throw new InvalidRequestError(err.field, err.value, err.message);
      throw err;
    }
    const session = new PlaySession(request.experimentId!, spec.player);
    this.sessions.set(session.id, session);
    this.forgetOld();
    session.done = playLocally(request, session, {
      db: this.deps.db,
      parameters: this.deps.parameters,
      signal: session.closed.signal,
    }).then(
      (r) => session.end(outcomeOf(r.summary), r.summary ? null : 'the run did not start'),
      (err: unknown) => {
        if (err instanceof ExperimentFailedError) return session.end(outcomeOf(err.summary), err.message);
        if (err instanceof ExperimentInterruptedError)
          return session.end(null, `${err.message}; resume with: ariadne play --resume ${session.id}`);
        session.end(null, err instanceof Error ? err.message : String(err));
      },
    );
    await session.settled();
    return session.view(0);
  }

  private forgetOld(): void {
    const ended = [...this.sessions.values()].filter((s) => s.status === 'ended');
    for (const s of ended.slice(0, Math.max(0, ended.length - MAX_KEPT))) this.sessions.delete(s.id);
  }

  get(id: string): PlaySession | undefined {
    return this.sessions.get(id);
  }

  /** The person's move; resolves with what came of it once the next is due or the run is over. */
  async move(id: string, command: string, seen: number): Promise<PlayView> {
    const session = this.sessions.get(id);
    if (!session) throw new MoveRefusedError(`no game ${id} is being played in this viewer`);
    session.move(command, seen);
    await session.settled();
    return session.view(seen);
  }

  /** Every game left (the viewer closes): each run's turn in flight commits and the run is kept, interrupted. */
  async close(): Promise<void> {
    for (const s of this.sessions.values()) s.closed.abort('the viewer closed to ariadne view --play');
    await Promise.all([...this.sessions.values()].map((s) => s.done));
  }
}
