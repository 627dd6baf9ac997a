// Everything a replay shows, read from the database and packed small: the true maze, each step's position, tool,
// outcome and vision cone (actions.vision), when each cell became known, the phase per step, stuck signals, tokens
// per turn and the model's words. Typed arrays travel as base64, so a 10,000-action run stays well under a megabyte.
// The summary and the logs come from the read model (results/summary-row.ts, results/replay-logs.ts).
import type { Sql } from '../core/store/sql.ts';
import { summaryOf } from '../results/summary-row.ts';
import { replayLogs, replayLogsAfter, type ReplayLogs } from '../results/replay-logs.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { visibleCells } from '../core/maze/vision.ts';
import type { Maze } from '../core/maze/maze.ts';
import { b64 } from '../core/maze/packed-grid.ts';
import { visionOf } from '../core/engine/game.ts';
import { PHASES } from '../core/engine/agent-monitor.ts';
import { ExperimentNotFoundError } from '../core/errors.ts';
import { TOOL_NAMES } from '../core/engine/tools.ts';

const OUTCOMES = [
  'moved',
  'blocked_by_wall',
  'blocked_by_edge',
  'recalled',
  'recall_cooldown',
  'unknown_tool',
  'invalid_arguments',
] as const;
const TOOLS = [...TOOL_NAMES, 'other'] as const;
const NEVER = 0xffffffff;

export interface ReplayData {
  experiment: Record<string, unknown>;
  maze: { width: number; height: number; grid: string; start: [number, number]; goal: [number, number] };
  steps: number;
  /** base64 typed arrays, one entry per step 0..steps (step 0 is the start). */
  x: string;
  y: string;
  tool: string;
  outcome: string;
  turn: string;
  phase: string;
  /** Vision cone of step s: cells visionCells[visionStart[s] .. visionStart[s+1]). */
  visionStart: string;
  visionCells: string;
  /** Per cell, the first step at which it was seen (0xffffffff: never). */
  seenAt: string;
  tools: readonly string[];
  outcomes: readonly string[];
  phases: readonly string[];
  turns: Array<{
    turn: number;
    firstStep: number;
    inputTokens: number | null;
    outputTokens: number | null;
    stopReason: string;
  }>;
  signals: Array<{ step: number; turn: number; detector: string; detail: string }>;
  /** Words of the model, by step: the reply's text (on its first call) and the call's reasoning. */
  notes: Array<{ step: number; text: string | null; reasoning: string | null; call: string }>;
}

/** The reasoning argument of a tool call, when it has one. */
function reasoningOf(args: unknown): string | null {
  if (!args || typeof args !== 'object' || !('reasoning' in args)) return null;
  return typeof args.reasoning === 'string' ? args.reasoning : null;
}

// one base64 for the pages and the database (mazes.cells); compare-runs.ts takes it from here
export { b64 };

/** The maze as every page draws it (maze-canvas.js): its cells as base64 bytes, start and goal as [x, y]. */
export function packMaze(maze: Maze): ReplayData['maze'] {
  return {
    width: maze.width,
    height: maze.height,
    grid: b64(maze.grid.cells),
    start: [maze.start.x, maze.start.y],
    goal: [maze.goal.x, maze.goal.y],
  };
}

/**
 * `pageRows`: rows per keyset page; over pg, which has no response limit, a caller may read a long run in fewer,
 * larger pages (the Data API's default stands otherwise). `headSteps`: only the turns up to the one of that step,
 * exact for every step they hold (seenAt counts no later step); the rest comes from loadReplayAfter.
 */
export async function loadReplay(
  db: Sql,
  experimentId: string,
  opts: { pageRows?: number; headSteps?: number } = {},
): Promise<ReplayData> {
  const store = new PgStore(db);
  // every read at once: the logs need only the id; the first cone needs the maze, which needs the experiment
  const [summary, { info, maze }, logs] = await Promise.all([
    summaryOf(db, experimentId),
    store.getExperimentInfo(experimentId).then(async (info) => ({ info, maze: await store.loadMaze(info.mazeId) })),
    replayLogs(db, experimentId, opts.pageRows, opts.headSteps),
  ]);
  const { actions: acts, transitions } = logs;
  if (!summary) throw new ExperimentNotFoundError(experimentId);
  const n = acts.length;
  const size = maze.width * maze.height;
  const seenAt = new Uint32Array(size).fill(NEVER);
  // step 0 is the start and what is seen from it; each cell's first step marks when it was seen
  const startCone = [...visibleCells(maze.grid, maze.start, visionOf(info.config))];
  const packed = packSteps(acts, maze.width, { x: maze.start.x, y: maze.start.y, cone: startCone }, (i, step) => {
    if (seenAt[i] === NEVER) seenAt[i] = step;
  });
  const phase = phasesOf(transitions, 0, n, 0);
  return {
    experiment: { ...summary, config: info.config, prompt_text: undefined },
    maze: packMaze(maze),
    steps: n,
    ...packed,
    phase: b64(phase),
    seenAt: b64(seenAt),
    tools: TOOLS,
    outcomes: OUTCOMES,
    phases: PHASES,
    ...listsOf(logs, 1),
  };
}

/**
 * Steps packed as the page reads them, one entry a step (base64 typed arrays): position, tool, outcome, turn, and
 * the cells of each cone (step s's are visionCells[visionStart[s] .. visionStart[s+1])). `start`, the full replay's
 * step 0, goes first; an update has none. `onCell(cell, step)` sees each cone cell in order.
 */
function packSteps(
  acts: ReplayLogs['actions'],
  width: number,
  start?: { x: number; y: number; cone: number[] },
  onCell?: (cell: number, step: number) => void,
): Pick<ReplayData, 'x' | 'y' | 'tool' | 'outcome' | 'turn' | 'visionStart' | 'visionCells'> {
  const first = start ? 1 : 0;
  const n = acts.length + first;
  const x = new Uint16Array(n),
    y = new Uint16Array(n),
    tool = new Uint8Array(n),
    outcome = new Uint8Array(n),
    turn = new Uint32Array(n),
    visionStart = new Uint32Array(n + 1);
  const cone: number[] = [];
  const see = (cell: number, step: number) => {
    cone.push(cell);
    onCell?.(cell, step);
  };
  if (start) {
    x[0] = start.x;
    y[0] = start.y;
    for (const cell of start.cone) see(cell, 0);
  }
  acts.forEach((a, k) => {
    const s = k + first;
    visionStart[s] = cone.length;
    x[s] = a.to_x;
    y[s] = a.to_y;
    tool[s] = toolIndex(a.tool);
    outcome[s] = outcomeIndex(a.outcome);
    turn[s] = a.turn_number;
    for (const [cx, cy] of a.vision) see(cy * width + cx, s);
  });
  visionStart[n] = cone.length;
  return {
    x: b64(x),
    y: b64(y),
    tool: b64(tool),
    outcome: b64(outcome),
    turn: b64(turn),
    visionStart: b64(visionStart),
    visionCells: b64(Uint32Array.from(cone)),
  };
}

const toolIndex = (name: string) => {
  const t = (TOOLS as readonly string[]).indexOf(name);
  return t >= 0 ? t : TOOLS.length - 1;
};
const outcomeIndex = (name: string) => Math.max(0, (OUTCOMES as readonly string[]).indexOf(name));
const PHASE_NAMES = PHASES as readonly string[];

/** The phase each step `from`..`to` leaves the agent in, from phase index `p` before them. */
function phasesOf(transitions: ReplayLogs['transitions'], from: number, to: number, p: number): Uint8Array {
  const phase = new Uint8Array(to - from + 1);
  let next = 0;
  for (let s = from; s <= to; s++) {
    while (next < transitions.length && transitions[next].step_number <= s)
      p = PHASE_NAMES.indexOf(transitions[next++].to_phase);
    phase[s - from] = Math.max(0, p);
  }
  return phase;
}

/** The turns, signals and notes of the logs, the first action being step `firstStep`. */
function listsOf(logs: ReplayLogs, firstStep: number): Pick<ReplayData, 'turns' | 'signals' | 'notes'> {
  const notes: ReplayData['notes'] = [];
  logs.actions.forEach((a, k) => {
    const reasoning = reasoningOf(a.arguments);
    if (reasoning || a.assistant_text)
      notes.push({
        step: firstStep + k,
        text: a.assistant_text,
        reasoning,
        call: `${a.tool}(${JSON.stringify(a.arguments ?? {})})`,
      });
  });
  return {
    turns: logs.turns.map((t) => ({
      turn: t.turn_number,
      firstStep: t.first_step + 1,
      inputTokens: t.input_tokens,
      outputTokens: t.output_tokens,
      stopReason: t.stop_reason,
    })),
    signals: logs.signals.map((g) => ({
      step: g.step_number,
      turn: g.turn_number,
      detector: g.detector,
      detail: g.detail,
    })),
    notes,
  };
}

/**
 * What a live page needs to append the turns after `after`, the last turn it holds: the new steps' arrays packed as
 * loadReplay packs them (`phase` and `visionStart` hold one more entry: the phase of the step before the first, and
 * the end of the last cone, offsets counted from this update's own cells), the new turns, signals and notes, and
 * the experiment's summary now. Its size follows the new turns, not the run: a page merges it (viewer's
 * experiment.js) and ends up with what a fresh load gives.
 */
export interface ReplayUpdate extends Pick<
  ReplayData,
  | 'steps'
  | 'x'
  | 'y'
  | 'tool'
  | 'outcome'
  | 'turn'
  | 'phase'
  | 'visionStart'
  | 'visionCells'
  | 'turns'
  | 'signals'
  | 'notes'
> {
  /** The summary without its config, which never changes and which the page holds. */
  experiment: Record<string, unknown>;
  after: number;
  /** The last step the page holds; the new steps are firstStep = afterStep + 1 onwards. */
  afterStep: number;
}

/** The update a live page holding turns up to `after` asks for (see ReplayUpdate). */
export async function loadReplayAfter(
  db: Sql,
  experimentId: string,
  after: number,
  opts: { pageRows?: number } = {},
): Promise<ReplayUpdate> {
  const [summary, logs] = await Promise.all([
    summaryOf(db, experimentId),
    replayLogsAfter(db, experimentId, after, opts.pageRows),
  ]);
  if (!summary) throw new ExperimentNotFoundError(experimentId);
  const { actions: acts } = logs;
  const n = acts.length;
  const packed = packSteps(acts, Number(summary.maze_width));
  const start = logs.phaseBefore === null ? 0 : PHASE_NAMES.indexOf(logs.phaseBefore);
  const phase = phasesOf(logs.transitions, logs.afterStep, logs.afterStep + n, start);
  return {
    experiment: { ...summary, prompt_text: undefined },
    after,
    afterStep: logs.afterStep,
    steps: n,
    ...packed,
    phase: b64(phase),
    ...listsOf(logs, logs.afterStep + 1),
  };
}
