// Belief probes (config.belief_probe_every): what a model believes the maze looks like, asked apart from its turns,
// read from its answer tolerantly, and scored against what it was shown. Pure functions: the turn engine asks
// (turn.ts), the agent answers (Agent.probe), the store keeps the row (migration 033).
import { EMPTY, GOAL, WALL, type Point } from '../maze/grid.ts';
import type { Maze } from '../maze/maze.ts';
import type { ExperimentConfig } from '../config/experiment-config.ts';
import { showsWholeMaze } from '../config/prompt-combinations.ts';
import { UNKNOWN, type ActionResult, type GameState } from './game.ts';
import type { Agent, ProbeReply, TokenUsage } from './agent.ts';
import type { TurnDeadline } from './turn-deadline.ts';
import { reportedCostUsd, spentTokens, type priceOf } from './token-cost.ts';

/** How a probe's question begins: what tells it from a turn's prompt (the simulators answer it with a map). */
export const BELIEF_PROBE_MARK = '[belief probe]';

/** The map's characters, as the prompts' legends name them (prompt-parts.ts), and "?" for a cell not known. */
const LEGEND = 'Legend: . open, # wall, G goal, @ you, ? not known.';
const CLAIMS = new Set(['.', '#', 'G', '@']);
const MAP_CHARS = /^[.#G@?]+$/;

/** Whether turn `turn` ends with a probe. */
const probeDue = (config: Pick<ExperimentConfig, 'belief_probe_every'>, turn: number): boolean =>
  config.belief_probe_every > 0 && turn % config.belief_probe_every === 0;

/** The question, appended after the turn's conversation as the user's message. */
export function beliefProbeQuestion(width: number, height: number): string {
  return [
    `${BELIEF_PROBE_MARK} A question outside the game: answer in text and call no tool. Your answer is not an ` +
      'action, takes no step and is not kept in the conversation.',
    'Write the whole maze as you believe it is now, from what you have been shown: ' +
      `${height} lines of ${width} characters, the row y = 0 first (north at the top) and x = 0 first in each ` +
      'line (west at the left).',
    LEGEND,
    'Then one more line: position: x,y (where you believe you are now).',
  ].join('\n');
}

/** A map read from an answer: its rows (legend characters only), the position it gives, what was off. */
export interface ParsedBelief {
  rows: string[];
  position: Point | null;
  problems: string[];
}

/**
 * A line of the map, or null: legend characters, spaces between them allowed, a row number before them and a
 * border of "|" around them ignored.
 */
function mapRow(line: string): string | null {
  const bare = line
    .trim()
    .replace(/^(?:y\s*=?\s*)?\d+\s*[:|)\]]?/i, '')
    .replace(/^\|+|\|+$/g, '')
    .replace(/\s+/g, '');
  return bare !== '' && MAP_CHARS.test(bare) ? bare : null;
}

/** The answer's largest block of consecutive map lines (the last of equal ones: a model's final draft). */
function largestBlock(lines: string[]): string[] {
  let best: string[] = [];
  let block: string[] = [];
  const close = () => {
    if (block.length > 0 && cellsOf(block) >= cellsOf(best)) best = block;
    block = [];
  };
  for (const line of lines) {
    const row = mapRow(line);
    if (row === null) close();
    else block.push(row);
  }
  close();
  return best;
}

const cellsOf = (rows: string[]) => rows.reduce((n, r) => n + r.length, 0);

/**
 * "position: x,y" (x=3, y=4 and (3, 4) forms too): the two numbers apart, by a comma, a semicolon or a space, so
 * "position: 12" is not read as (1,2).
 */
const POSITION = /position\s*(?:is|:|=)?\s*[([]?\s*(?:x\s*[=:]\s*)?(-?\d+)(?:\s*[,;]\s*|\s+)(?:y\s*[=:]\s*)?(-?\d+)/gi;

/** The last position the answer gives; null when it gives none. */
function positionLine(text: string): Point | null {
  const found = [...text.matchAll(POSITION)].at(-1);
  return found ? { x: Number(found[1]), y: Number(found[2]) } : null;
}

/**
 * The map and position an answer gives, for a maze of `width` x `height`; a string (why) when it gives no map.
 * Tolerant: a code fence, prose around the map, row numbers, spaces between cells, rows of the wrong length or a
 * missing row are read as far as they go (a missing cell claims nothing), each noted among `problems`.
 */
export function parseBelief(answer: string, width: number, height: number): ParsedBelief | string {
  const rows = largestBlock(answer.split(/\r?\n/));
  if (rows.length === 0) return "no map: no line of the legend's characters (. # G @ ?)";
  const problems: string[] = [];
  if (rows.length !== height) problems.push(`${rows.length} rows for the maze's ${height}`);
  const off = rows.filter((r) => r.length !== width).length;
  if (off > 0) problems.push(`${off} row(s) not ${width} characters long`);
  const marks = rows.flatMap((r, y) => [...r].flatMap((c, x) => (c === '@' ? [{ x, y }] : [])));
  if (marks.length > 1) problems.push(`${marks.length} @ on the map`);
  let position = positionLine(answer);
  if (position === null && marks.length === 1) position = marks[0];
  else if (position === null) problems.push('no position');
  else if (marks.length === 1 && (marks[0].x !== position.x || marks[0].y !== position.y))
    problems.push(`the @ at (${marks[0].x},${marks[0].y}) is not the position line's (${position.x},${position.y})`);
  return { rows, position, problems };
}

/** How an answer scores against what the model was shown (the counts migration 033 stores). */
export interface BeliefScores {
  shownCells: number;
  shownWalls: number;
  /** Open cells, the goal among them. */
  shownOpen: number;
  correctCells: number;
  correctWalls: number;
  correctOpen: number;
  /** Cells the answer gives as open, wall, goal or its own that it was never shown, and how many are right. */
  claimedUnshown: number;
  claimedUnshownCorrect: number;
  believed: Point | null;
  /** Manhattan distance from `believed` to where the agent is; null when the answer gives no position. */
  positionError: number | null;
}

/** Whether a claimed character is the tile: "@" stands on open ground or the goal. */
function claimRight(claim: string, tile: number): boolean {
  if (claim === '#') return tile === WALL;
  if (claim === '.') return tile === EMPTY;
  if (claim === 'G') return tile === GOAL;
  return claim === '@' && tile !== WALL;
}

/**
 * The tiles the model was shown: every cell in sight at the start and after each action (GameState.known, what
 * recall_all and a resumed run rebuild from the logged visions); the whole maze where the format shows it every turn
 * (full_map as a picture, adjacency as the links between open tiles: every other cell a wall).
 */
export function shownCells(config: Pick<ExperimentConfig, 'observation'>, known: Uint8Array): (i: number) => boolean {
  return showsWholeMaze(config.observation) ? () => true : (i) => known[i] !== UNKNOWN;
}

/** A parsed answer (or none: a malformed one, which claims no cell) scored against what was shown. */
export function scoreBelief(
  belief: ParsedBelief | null,
  maze: Maze,
  shown: (i: number) => boolean,
  position: Point,
): BeliefScores {
  const s: BeliefScores = {
    shownCells: 0,
    shownWalls: 0,
    shownOpen: 0,
    correctCells: 0,
    correctWalls: 0,
    correctOpen: 0,
    claimedUnshown: 0,
    claimedUnshownCorrect: 0,
    believed: belief?.position ?? null,
    positionError: null,
  };
  for (let y = 0; y < maze.height; y++)
    for (let x = 0; x < maze.width; x++) {
      const i = y * maze.width + x;
      const tile = maze.grid.cells[i];
      const claim = belief?.rows[y]?.[x] ?? '?';
      const right = claimRight(claim, tile);
      if (!shown(i)) {
        if (CLAIMS.has(claim)) s.claimedUnshown++;
        if (right) s.claimedUnshownCorrect++;
      } else if (tile === WALL) {
        s.shownWalls++;
        if (right) s.correctWalls++;
      } else {
        s.shownOpen++;
        if (right) s.correctOpen++;
      }
    }
  s.shownCells = s.shownWalls + s.shownOpen;
  s.correctCells = s.correctWalls + s.correctOpen;
  if (s.believed) s.positionError = Math.abs(s.believed.x - position.x) + Math.abs(s.believed.y - position.y);
  return s;
}

/** A belief probe as stored (migration 033): what was asked, answered and scored, and what the call took. */
export interface BeliefProbeWrite {
  /** Actions taken when it was asked. */
  stepNumber: number;
  /** scored: a map was read; malformed: none could be (it claims no cell); failed: no answer; skipped: not asked. */
  status: 'scored' | 'malformed' | 'failed' | 'skipped';
  question: string;
  answer: string | null;
  /** Why it is malformed, failed or skipped, or what was off in a scored answer; null when nothing was. */
  problem: string | null;
  /** Null when there was no answer to score (failed, skipped). */
  scores: BeliefScores | null;
  /** Where the agent was. */
  position: { x: number; y: number };
  /** As reported; null when the call failed or was not made. */
  usage: TokenUsage | null;
  costUsd: number | null;
  latencyMs: number;
  stopReason: string | null;
  /** Who answered: the model's server (its spend counts) or a replayed run's record; null when none did. */
  answeredBy: 'model' | 'replay' | null;
  simulator: string | null;
}

/** What a probe needs of the turn it follows. */
export interface ProbeMoment {
  agent: Agent;
  maze: Maze;
  config: ExperimentConfig;
  turnNumber: number;
  state: Pick<GameState, 'position' | 'known' | 'actionsTaken'>;
  /** The results of the turn's last calls (answered in the probe's prompt when the model was not shown them yet). */
  lastResults: ActionResult[];
  deadline?: TurnDeadline;
  /** Which budget of the run (or of the sweep it shares one with) is spent, if any: no probe is asked past it. */
  budgetSpent: () => string | null;
  price: ReturnType<typeof priceOf>;
}

/**
 * The probe due after the turn, asked and scored; undefined when none is due or the agent is never asked. It never
 * fails the turn: a call that fails is kept as failed, a probe with no time or budget left as skipped.
 */
export async function askBeliefProbe(m: ProbeMoment): Promise<BeliefProbeWrite | undefined> {
  if (!m.agent.probe || !probeDue(m.config, m.turnNumber)) return undefined;
  const question = beliefProbeQuestion(m.maze.width, m.maze.height);
  const unanswered = (status: 'failed' | 'skipped', problem: string): BeliefProbeWrite => ({
    ...NOT_ANSWERED,
    stepNumber: m.state.actionsTaken,
    status,
    question,
    problem,
    position: { ...m.state.position },
  });
  if (m.deadline && !m.deadline.fits(m.config.retry.timeout_ms))
    return unanswered('skipped', 'the turn had no time left for one more model call');
  const spent = m.budgetSpent();
  if (spent) return unanswered('skipped', `the budget is spent (${spent})`);
  let reply: ProbeReply | null;
  try {
    reply = await m.agent.probe(question, m.turnNumber, m.lastResults, m.deadline?.forCall());
  } catch (err) {
    return unanswered('failed', err instanceof Error ? `${err.name}: ${err.message}` : String(err));
  }
  if (!reply) return unanswered('skipped', 'the turn asked the model nothing');
  const read = scored(m, reply.text);
  // a map cut short by the output cap is scored as far as it goes, and says so
  const cut = reply.truncated ? 'the answer was cut by the output cap (max_output_tokens)' : null;
  const problem = [read.problem, cut].filter(Boolean).join('; ') || null;
  return { ...read, problem, ...callOf(reply, m.price), stepNumber: m.state.actionsTaken, question };
}

const NOT_ANSWERED = {
  answer: null,
  scores: null,
  usage: null,
  costUsd: null,
  latencyMs: 0,
  stopReason: null,
  answeredBy: null,
  simulator: null,
} as const;

/** The answer read and scored: a map, or malformed (it claims no cell, so it scores 0). */
function scored(m: ProbeMoment, answer: string) {
  const parsed = parseBelief(answer, m.maze.width, m.maze.height);
  const belief = typeof parsed === 'string' ? null : parsed;
  return {
    status: belief ? ('scored' as const) : ('malformed' as const),
    answer,
    problem: belief ? belief.problems.join('; ') || null : (parsed as string),
    scores: scoreBelief(belief, m.maze, shownCells(m.config, m.state.known), m.state.position),
    position: { ...m.state.position },
  };
}

/** What the probe's call took, at the run's prices. */
function callOf(reply: ProbeReply, price: ProbeMoment['price']) {
  const u = reply.usage;
  return {
    usage: u,
    costUsd: u ? reportedCostUsd(price, countsOf(u)) : null,
    latencyMs: Math.round(reply.latencyMs),
    stopReason: reply.stopReason,
    answeredBy: reply.answeredBy,
    simulator: reply.simulator,
  };
}

/** What a probe spent, as a budget counts it: nothing when a record answered it (a replay). */
export function probeSpend(p: BeliefProbeWrite | undefined): { tokens: number; costUsd: number } {
  if (!p?.usage || p.answeredBy !== 'model') return { tokens: 0, costUsd: 0 };
  return { tokens: spentTokens(countsOf(p.usage)), costUsd: p.costUsd ?? 0 };
}

/** Reported usage as the cost and spend functions read it: a count not reported is null. */
const countsOf = (u: TokenUsage) => ({
  inputTokens: u.inputTokens,
  outputTokens: u.outputTokens,
  cacheReadInputTokens: u.cacheReadInputTokens ?? null,
  cacheWriteInputTokens: u.cacheWriteInputTokens ?? null,
});
