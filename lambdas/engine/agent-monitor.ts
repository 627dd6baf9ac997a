// The agent's phase and stuck detection, as a pure function of its actions:
// feed it every executed action (and every turn's end) in order and it keeps
// the phase (exploring, backtracking, recalling, stuck, finishing), records
// each transition with its step and cause, and raises a signal when a
// detector trips. Because it depends only on the action log, a cold process
// can rebuild it by replaying the log, exactly like the agent's known map.
// Progress (a new tile seen) resets the detectors, so a long productive run
// raises nothing.
import type { ActionResult } from './game.ts';

export const PHASES = ['exploring', 'backtracking', 'recalling', 'stuck', 'finishing'] as const;
export type Phase = (typeof PHASES)[number];

/** Valid transitions; `finishing` is terminal. */
export const TRANSITIONS: Record<Phase, readonly Phase[]> = {
  exploring: ['backtracking', 'recalling', 'stuck', 'finishing'],
  backtracking: ['exploring', 'recalling', 'stuck', 'finishing'],
  recalling: ['exploring', 'backtracking', 'stuck', 'finishing'],
  stuck: ['exploring', 'backtracking', 'recalling', 'finishing'],
  finishing: [],
};

export interface DetectorThresholds {
  /** The same failed move, from the same cell, this many times in a row. */
  repeated_failed_move: number;
  /** Positions A-B-A-B... over this many moves. */
  oscillation_window: number;
  /** Executed actions without a new tile. */
  no_new_tile_actions: number;
  /** recall_all calls within the last `recall_window` actions. */
  recall_spam: number;
  recall_window: number;
  /** Turns in a row in which the agent executed no action. */
  idle_turns: number;
  /** Entries into one cell since the last progress. */
  cell_revisits: number;
}

export const DEFAULT_THRESHOLDS: DetectorThresholds = {
  repeated_failed_move: 3, oscillation_window: 4, no_new_tile_actions: 20, recall_spam: 3, recall_window: 10, idle_turns: 3, cell_revisits: 10,
};

export type Detector = 'repeated_failed_move' | 'oscillation' | 'no_new_tiles' | 'recall_spam' | 'idle_turns' | 'cell_revisits';

export interface StuckSignal { detector: Detector; step: number; turn: number; detail: string }

export interface Transition { from: Phase; to: Phase; step: number; turn: number; cause: string; refused: boolean }

export class AgentMonitor {
  phase: Phase = 'exploring';
  phaseSinceStep = 0;
  readonly transitions: Transition[] = [];
  readonly signals: StuckSignal[] = [];
  private failedStreak: { key: string; count: number } | null = null;
  private positions: string[] = [];
  private sinceNewTile = 0;
  private recentRecalls: number[] = [];
  private idleTurns = 0;
  private visits = new Map<string, number>();
  private bestFrontierDistance = Infinity;
  /** Detectors already tripped in the current streak: each raises once until progress resets it. */
  private tripped = new Set<Detector>();

  constructor(private readonly thresholds: DetectorThresholds = DEFAULT_THRESHOLDS) {}

  /**
   * Feeds one executed action; returns what it changed. Calls that were not
   * executed are ignored. `frontierDistance`: the length of the agent's known
   * route to unexplored ground after the action (engine/frontier.ts). Getting
   * closer than ever since the last new tile counts as progress, like a new
   * tile: a walk back across explored ground to the next unexplored area is
   * not a loop, while stepping back and forth is (it never sets a new best).
   */
  observe(action: ActionResult, turn: number, frontierDistance: number | null = null): { transitions: Transition[]; signals: StuckSignal[] } {
    const before = { t: this.transitions.length, s: this.signals.length };
    if (!action.executed || action.step === null) return { transitions: [], signals: [] };
    const step = action.step;
    const moved = action.outcome === 'moved';
    const failedMove = action.outcome === 'blocked_by_wall' || action.outcome === 'blocked_by_edge';
    // The first distance seen only sets the baseline; after that, only a new best is progress.
    const closer = frontierDistance !== null && this.bestFrontierDistance !== Infinity && frontierDistance < this.bestFrontierDistance;
    const progress = action.newTiles > 0 || closer;
    if (action.newTiles > 0 || closer || this.bestFrontierDistance === Infinity) this.bestFrontierDistance = frontierDistance ?? Infinity;

    if (progress) this.resetDetectors();
    else this.sinceNewTile++;

    // the same failed move from the same cell
    if (failedMove) {
      const key = `${action.tool}@${action.from.x},${action.from.y}`;
      this.failedStreak = this.failedStreak?.key === key ? { key, count: this.failedStreak.count + 1 } : { key, count: 1 };
      if (this.failedStreak.count >= this.thresholds.repeated_failed_move) {
        this.trip('repeated_failed_move', step, turn, `${action.tool} failed ${this.failedStreak.count} times in a row at (${action.from.x},${action.from.y}): ${action.message}`);
      }
    } else if (moved || action.tool !== this.failedStreak?.key.split('@')[0]) {
      this.failedStreak = null;
    }

    if (moved) {
      const cell = `${action.to.x},${action.to.y}`;
      this.positions.push(cell);
      if (this.positions.length > this.thresholds.oscillation_window) this.positions.shift();
      const p = this.positions;
      if (p.length === this.thresholds.oscillation_window && p[0] !== p[1] && p.every((c, i) => c === p[i % 2])) {
        this.trip('oscillation', step, turn, `moving back and forth between (${p[0]}) and (${p[1]})`);
      }
      const n = (this.visits.get(cell) ?? 0) + 1;
      this.visits.set(cell, n);
      if (n >= this.thresholds.cell_revisits) this.trip('cell_revisits', step, turn, `entered (${cell}) ${n} times without seeing a new tile`);
    }

    if (this.sinceNewTile >= this.thresholds.no_new_tile_actions) {
      this.trip('no_new_tiles', step, turn, `${this.sinceNewTile} actions without a new tile`);
    }

    if (action.tool === 'recall_all') {
      this.recentRecalls.push(step);
      this.recentRecalls = this.recentRecalls.filter((s) => s > step - this.thresholds.recall_window);
      if (this.recentRecalls.length >= this.thresholds.recall_spam) {
        this.trip('recall_spam', step, turn, `${this.recentRecalls.length} recall_all calls in the last ${this.thresholds.recall_window} actions`);
      }
    }

    // the phase this action puts the agent in
    const tripped = this.signals.length > before.s;
    const next: Phase | null = action.goalFound ? 'finishing'
      : tripped ? 'stuck'
        : action.tool === 'recall_all' && action.success ? 'recalling'
          : moved && action.newTiles > 0 ? 'exploring'
            : moved && this.phase !== 'stuck' ? 'backtracking'
              : null;
    if (next && next !== this.phase) this.transition(next, step, turn, action.goalFound ? 'goal found' : tripped ? this.signals.at(-1)!.detector : action.outcome);
    return { transitions: this.transitions.slice(before.t), signals: this.signals.slice(before.s) };
  }

  /** Feeds the end of a turn: a turn with no executed action counts toward `idle_turns`. */
  endTurn(turn: number, actionsExecuted: number, step: number): StuckSignal[] {
    const before = this.signals.length;
    this.idleTurns = actionsExecuted === 0 ? this.idleTurns + 1 : 0;
    if (this.idleTurns >= this.thresholds.idle_turns) {
      this.trip('idle_turns', step, turn, `${this.idleTurns} turns in a row without a tool call`);
      if (this.phase !== 'stuck') this.transition('stuck', step, turn, 'idle_turns');
    }
    return this.signals.slice(before);
  }

  /** Asks for a phase change (e.g. from a workflow); an invalid one is recorded as refused, never thrown. */
  request(to: Phase, step: number, turn: number, cause: string): boolean {
    return this.transition(to, step, turn, cause);
  }

  get healthy(): boolean { return this.phase !== 'stuck'; }

  private transition(to: Phase, step: number, turn: number, cause: string): boolean {
    const allowed = TRANSITIONS[this.phase].includes(to);
    this.transitions.push({ from: this.phase, to, step, turn, cause, refused: !allowed });
    if (!allowed) return false;
    // A phase change resets the error tracking.
    this.failedStreak = null;
    this.phase = to;
    this.phaseSinceStep = step;
    return true;
  }

  private trip(detector: Detector, step: number, turn: number, detail: string): void {
    if (this.tripped.has(detector)) return;
    this.tripped.add(detector);
    this.signals.push({ detector, step, turn, detail });
  }

  private resetDetectors(): void {
    this.sinceNewTile = 0;
    this.positions = [];
    this.visits.clear();
    this.recentRecalls = [];
    this.tripped.clear();
  }
}
