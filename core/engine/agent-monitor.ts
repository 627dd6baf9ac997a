// The agent's phase and stuck detection, as a pure function of its actions: fed every executed action and turn end in
// order, it keeps the phase (exploring, backtracking, recalling, stuck, finishing), records each transition with its
// step and cause, and raises a signal when a detector trips. Its state is a small JSON snapshot persisted with each
// turn, so it needs no Lambda memory. Progress resets the detectors, so a productive run raises nothing; every
// detector is O(1) (or O(window)) per action.
import type { ActionResult } from './game.ts';
import { DEFAULT_CONFIG, type ExperimentConfig } from '../config/experiment-config.ts';

type StuckThresholds = ExperimentConfig['stuck_thresholds'];

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

export type DetectorThresholds = StuckThresholds;

export const DEFAULT_THRESHOLDS: DetectorThresholds = DEFAULT_CONFIG.stuck_thresholds;

export const DETECTORS = [
  'repeated_failed_move',
  'oscillation',
  'no_new_tiles',
  'recall_spam',
  'idle_turns',
  'cell_revisits',
] as const;
export type Detector = (typeof DETECTORS)[number];

/** What the agent is told under the `advise` policy, per detector. */
export const ADVICE: Record<Detector, string> = {
  repeated_failed_move: 'You keep trying the same move into a wall. That direction is blocked: choose another one.',
  oscillation:
    'You are moving back and forth between the same two cells. ' +
    'Commit to one direction and follow it to unexplored ground.',
  no_new_tiles: 'Your recent actions revealed nothing new. Head for the edge of what you have seen.',
  recall_spam: 'You call recall_all too often; it shows nothing new. Move instead.',
  idle_turns: 'You have ended several turns without a tool call. Call a move tool.',
  cell_revisits: 'You keep returning to the same cell. Try routes you have not taken yet.',
};

export interface StuckSignal {
  detector: Detector;
  step: number;
  turn: number;
  detail: string;
}

export interface Transition {
  from: Phase;
  to: Phase;
  step: number;
  turn: number;
  cause: string;
  refused: boolean;
}

export interface MonitorSnapshot {
  phase: Phase;
  phaseSinceStep: number;
  phaseSinceTurn: number;
  failedStreak: { key: string; count: number } | null;
  positions: string[];
  sinceProgress: number;
  recentRecalls: number[];
  idleTurns: number;
  visits: Array<[string, number]>;
  /** Best known-route distance to unexplored ground since the last new tile; null until measured. */
  bestFrontierDistance: number | null;
  tripped: Array<[Detector, string]>;
}

export interface AgentStateView {
  phase: Phase;
  actionsInPhase: number;
  turnsInPhase: number;
  healthy: boolean;
  /** Detectors tripped since the last progress, with their details and advice. */
  detected: Array<{ detector: Detector; detail: string; advice: string }>;
}

export class AgentMonitor {
  phase: Phase = 'exploring';
  phaseSinceStep = 0;
  phaseSinceTurn = 1;
  /** Transitions and signals recorded by this instance (one turn's, when restored per turn). */
  readonly transitions: Transition[] = [];
  readonly signals: StuckSignal[] = [];
  private failedStreak: { key: string; count: number } | null = null;
  private positions: string[] = [];
  private sinceProgress = 0;
  private recentRecalls: number[] = [];
  private idleTurns = 0;
  private visits = new Map<string, number>();
  private bestFrontierDistance: number | null = null;
  /** Detectors tripped since the last progress, with their details: each raises once until progress resets it. */
  private tripped = new Map<Detector, string>();

  constructor(
    private readonly thresholds: DetectorThresholds = DEFAULT_THRESHOLDS,
    snapshot?: MonitorSnapshot,
  ) {
    if (!snapshot) return;
    this.phase = snapshot.phase;
    this.phaseSinceStep = snapshot.phaseSinceStep;
    this.phaseSinceTurn = snapshot.phaseSinceTurn;
    this.failedStreak = snapshot.failedStreak;
    this.positions = [...snapshot.positions];
    this.sinceProgress = snapshot.sinceProgress;
    this.recentRecalls = [...snapshot.recentRecalls];
    this.idleTurns = snapshot.idleTurns;
    this.visits = new Map(snapshot.visits);
    this.bestFrontierDistance = snapshot.bestFrontierDistance;
    this.tripped = new Map(snapshot.tripped);
  }

  snapshot(): MonitorSnapshot {
    return {
      phase: this.phase,
      phaseSinceStep: this.phaseSinceStep,
      phaseSinceTurn: this.phaseSinceTurn,
      failedStreak: this.failedStreak,
      positions: [...this.positions],
      sinceProgress: this.sinceProgress,
      recentRecalls: [...this.recentRecalls],
      idleTurns: this.idleTurns,
      visits: [...this.visits],
      bestFrontierDistance: this.bestFrontierDistance,
      tripped: [...this.tripped],
    };
  }

  /**
   * Feeds one executed action; returns what it changed. Calls that were not
   * executed are ignored. `frontierDistance(below)` measures the agent's known
   * route to unexplored ground after the action (engine/frontier.ts), or null
   * if it is not shorter than `below`; it is called only for moves that saw
   * nothing new, so productive runs rarely pay for it.
   * Getting closer than ever since the last new tile counts as progress: a
   * walk back across explored ground to the next unexplored area is not a
   * loop, while stepping back and forth is (it never sets a new best).
   */
  observe(
    action: ActionResult,
    turn: number,
    frontierDistance: (below?: number) => number | null = () => null,
  ): { transitions: Transition[]; signals: StuckSignal[] } {
    const before = { t: this.transitions.length, s: this.signals.length };
    if (!action.executed || action.step === null) return { transitions: [], signals: [] };
    const step = action.step;
    const moved = action.outcome === 'moved';
    const progress = this.madeProgress(action, moved, frontierDistance);
    if (progress) this.resetDetectors();
    else this.sinceProgress++;

    this.watchFailedMoves(action, step, turn);
    if (moved) this.watchMoves(action, step, turn);
    if (this.sinceProgress >= this.thresholds.no_new_tile_actions) {
      this.trip('no_new_tiles', step, turn, `${this.sinceProgress} actions without a new tile`);
    }
    if (action.tool === 'recall_all') this.watchRecalls(step, turn);

    const tripped = this.signals.length > before.s;
    const next = this.nextPhase(action, moved, progress, tripped);
    if (next && next !== this.phase)
      this.transition(
        next,
        step,
        turn,
        action.goalFound ? 'goal found' : tripped ? this.signals.at(-1)!.detector : action.outcome,
      );
    return { transitions: this.transitions.slice(before.t), signals: this.signals.slice(before.s) };
  }

  /** A new tile seen, or a move that brings the agent closer than ever since the last one to unexplored ground. */
  private madeProgress(action: ActionResult, moved: boolean, frontierDistance: (below?: number) => number | null) {
    if (action.newTiles > 0) {
      this.bestFrontierDistance = null;
      return true;
    }
    if (!moved) return false;
    const d = frontierDistance(this.bestFrontierDistance ?? undefined);
    // The first distance after a new tile only sets the baseline; after that, only a new best is progress.
    const progress = d !== null && this.bestFrontierDistance !== null && d < this.bestFrontierDistance;
    if (d !== null && (this.bestFrontierDistance === null || d < this.bestFrontierDistance))
      this.bestFrontierDistance = d;
    return progress;
  }

  /** The same failed move from the same cell. */
  private watchFailedMoves(action: ActionResult, step: number, turn: number): void {
    const failedMove = action.outcome === 'blocked_by_wall' || action.outcome === 'blocked_by_edge';
    if (failedMove) {
      const key = `${action.tool}@${action.from.x},${action.from.y}`;
      this.failedStreak =
        this.failedStreak?.key === key ? { key, count: this.failedStreak.count + 1 } : { key, count: 1 };
      if (this.failedStreak.count >= this.thresholds.repeated_failed_move) {
        this.trip(
          'repeated_failed_move',
          step,
          turn,
          `${action.tool} failed ${this.failedStreak.count} times in a row ` +
            `at (${action.from.x},${action.from.y}): ${action.message}`,
        );
      }
    } else if (action.outcome === 'moved' || action.tool !== this.failedStreak?.key.split('@')[0]) {
      this.failedStreak = null;
    }
  }

  /** Back and forth between two cells, and one cell entered again and again. */
  private watchMoves(action: ActionResult, step: number, turn: number): void {
    const cell = `${action.to.x},${action.to.y}`;
    this.positions.push(cell);
    if (this.positions.length > this.thresholds.oscillation_window) this.positions.shift();
    const p = this.positions;
    if (p.length === this.thresholds.oscillation_window && p[0] !== p[1] && p.every((c, i) => c === p[i % 2])) {
      this.trip('oscillation', step, turn, `moving back and forth between (${p[0]}) and (${p[1]})`);
    }
    const n = (this.visits.get(cell) ?? 0) + 1;
    this.visits.set(cell, n);
    if (n >= this.thresholds.cell_revisits)
      this.trip('cell_revisits', step, turn, `entered (${cell}) ${n} times without progress`);
  }

  /** recall_all called too often within the window. */
  private watchRecalls(step: number, turn: number): void {
    this.recentRecalls.push(step);
    while (this.recentRecalls[0] <= step - this.thresholds.recall_window) this.recentRecalls.shift();
    if (this.recentRecalls.length >= this.thresholds.recall_spam) {
      this.trip(
        'recall_spam',
        step,
        turn,
        `${this.recentRecalls.length} recall_all calls in the last ${this.thresholds.recall_window} actions`,
      );
    }
  }

  /** The phase this action puts the agent in; null to stay. */
  private nextPhase(action: ActionResult, moved: boolean, progress: boolean, tripped: boolean): Phase | null {
    return action.goalFound
      ? 'finishing'
      : tripped
        ? 'stuck'
        : action.tool === 'recall_all' && action.success
          ? 'recalling'
          : moved && action.newTiles > 0
            ? 'exploring'
            : // a move over known ground; out of stuck only with progress
              moved && (progress || this.phase !== 'stuck')
              ? 'backtracking'
              : null;
  }

  /** Feeds the end of a turn: a turn with no executed action counts toward `idle_turns`. */
  endTurn(turn: number, actionsExecuted: number, step: number): StuckSignal[] {
    const before = this.signals.length;
    this.idleTurns = actionsExecuted === 0 ? this.idleTurns + 1 : 0;
    if (this.idleTurns >= this.thresholds.idle_turns) {
      this.trip('idle_turns', step, turn, `${this.idleTurns} turns in a row without a tool call`);
      if (this.signals.length > before && this.phase !== 'stuck') this.transition('stuck', step, turn, 'idle_turns');
    }
    return this.signals.slice(before);
  }

  /** Asks for a phase change (e.g. from a workflow); an invalid one is recorded as refused, never thrown. */
  request(to: Phase, step: number, turn: number, cause: string): boolean {
    return this.transition(to, step, turn, cause);
  }

  get healthy(): boolean {
    return this.phase !== 'stuck';
  }

  /** The agent's state as the `advise` policy reports it, at `step` of `turn`. */
  view(step: number, turn: number): AgentStateView {
    return {
      phase: this.phase,
      actionsInPhase: step - this.phaseSinceStep,
      turnsInPhase: turn - this.phaseSinceTurn,
      healthy: this.healthy,
      detected: [...this.tripped].map(([detector, detail]) => ({ detector, detail, advice: ADVICE[detector] })),
    };
  }

  private transition(to: Phase, step: number, turn: number, cause: string): boolean {
    const allowed = TRANSITIONS[this.phase].includes(to);
    this.transitions.push({ from: this.phase, to, step, turn, cause, refused: !allowed });
    if (!allowed) return false;
    // A phase change resets the error tracking.
    this.failedStreak = null;
    this.phase = to;
    this.phaseSinceStep = step;
    this.phaseSinceTurn = turn;
    return true;
  }

  private trip(detector: Detector, step: number, turn: number, detail: string): void {
    if (this.tripped.has(detector)) return;
    this.tripped.set(detector, detail);
    this.signals.push({ detector, step, turn, detail });
  }

  private resetDetectors(): void {
    this.sinceProgress = 0;
    this.positions = [];
    this.visits.clear();
    this.recentRecalls = [];
    this.tripped.clear();
  }
}
