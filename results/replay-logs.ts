// An experiment's logs as its replay reads them, each in keyset pages (the Data API's 1 MiB per response): the
// executed actions with their vision cones, the turns, the agent's phase changes and the stuck signals.
import type { Sql, SqlValue } from '../core/store/sql.ts';
import { readPaged } from '../core/store/pages.ts';

interface ReplayActionRow {
  step_number: number;
  turn_number: number;
  tool: string;
  arguments: unknown;
  outcome: string;
  to_x: number;
  to_y: number;
  vision: Array<[number, number, number]>;
  assistant_text: string | null;
}

interface ReplayTurnRow {
  turn_number: number;
  input_tokens: number | null;
  output_tokens: number | null;
  stop_reason: string;
  first_step: number;
}

interface ReplayTransitionRow {
  turn_number: number;
  seq: number;
  step_number: number;
  to_phase: string;
}

interface ReplaySignalRow {
  step_number: number;
  turn_number: number;
  seq: number;
  detector: string;
  detail: string;
}

export interface ReplayLogs {
  actions: ReplayActionRow[];
  turns: ReplayTurnRow[];
  transitions: ReplayTransitionRow[];
  signals: ReplaySignalRow[];
}

/**
 * Every log of one experiment a replay draws, read at once. `pageRows`: rows per keyset page; over pg, which has
 * no response limit, a caller may read a long run in fewer, larger pages (the Data API's default stands otherwise).
 * `headSteps`: only the turns up to the one of that step (all of it), so a page can draw a long run's start before
 * the rest arrives (what the agent had seen by a step depends on no later step).
 */
export async function replayLogs(
  db: Sql,
  experimentId: string,
  pageRows?: number,
  headSteps?: number,
): Promise<ReplayLogs> {
  let upTo = INT_MAX;
  if (headSteps !== undefined) {
    const { rows } = await db.query<{ turn_number: number }>(
      'SELECT turn_number FROM actions WHERE experiment_id = $1 AND step_number = $2',
      [experimentId, headSteps],
    );
    upTo = rows[0]?.turn_number ?? INT_MAX;
  }
  return readLogs(db, experimentId, { afterStep: 0, afterTurn: -1, afterSeq: -1 }, pageRows, false, upTo);
}

/** The logs of the turns after one a live page holds, and where they start. */
export interface ReplayLogsAfter extends ReplayLogs {
  /** The step the new turns start after (the last step of turn `afterTurn`). */
  afterStep: number;
  /** The agent's phase after the turns before (null: it never changed), which the new turns carry on from. */
  phaseBefore: string | null;
}

/**
 * The logs of the turns after `afterTurn` only, so a live page's update grows with the new turns, not the run.
 * The turns are read first and the rest only up to the last of them: the reads are separate statements, and a turn
 * committed in between must not show its actions without its turn.
 */
export async function replayLogsAfter(
  db: Sql,
  experimentId: string,
  afterTurn: number,
  pageRows?: number,
): Promise<ReplayLogsAfter> {
  const [held, phase] = await Promise.all([
    db.query<{ actions_taken_after: number }>(
      'SELECT actions_taken_after FROM turns WHERE experiment_id = $1 AND turn_number = $2',
      [experimentId, afterTurn],
    ),
    db.query<{ to_phase: string }>(
      `SELECT to_phase FROM agent_state_transitions
       WHERE experiment_id = $1 AND machine = 'agent' AND NOT refused AND turn_number <= $2
       ORDER BY turn_number DESC, seq DESC LIMIT 1`,
      [experimentId, afterTurn],
    ),
  ]);
  const afterStep = held.rows[0]?.actions_taken_after ?? 0;
  const logs = await readLogs(db, experimentId, { afterStep, afterTurn, afterSeq: INT_MAX }, pageRows, true);
  return { ...logs, afterStep, phaseBefore: phase.rows[0]?.to_phase ?? null };
}

/** int4's largest: a bound that bounds nothing, and the seq after every seq of a turn. */
const INT_MAX = 2 ** 31 - 1;

/** Where a read starts: after this step, and after (turn, seq) for the logs kept by turn. */
interface Window {
  afterStep: number;
  afterTurn: number;
  afterSeq: number;
}

async function readLogs(
  db: Sql,
  experimentId: string,
  window: Window,
  pageRows: number | undefined,
  turnsFirst = false,
  upToTurn = INT_MAX,
): Promise<ReplayLogs> {
  const rowsOf = async <R extends object>(text: string, values: SqlValue[]) => (await db.query<R>(text, values)).rows;
  const paged = <R>(read: (last: R | undefined, limit: number) => Promise<R[]>) => readPaged(read, pageRows);
  const readTurns = () =>
    paged<ReplayTurnRow>((last, limit) =>
      rowsOf(
        `SELECT turn_number, input_tokens, output_tokens, stop_reason,
                actions_taken_after - actions_executed AS first_step
         FROM turns WHERE experiment_id = $1 AND turn_number > $2 AND turn_number <= $3
        ORDER BY turn_number LIMIT $4`,
        [experimentId, last?.turn_number ?? Math.max(0, window.afterTurn), upToTurn, limit],
      ),
    );
  const early = turnsFirst ? await readTurns() : null;
  // with the turns read first, nothing of a later turn
  const upTo = early ? (early.at(-1)?.turn_number ?? window.afterTurn) : upToTurn;
  const [actions, turns, transitions, signals] = await Promise.all([
    paged<ReplayActionRow>((last, limit) =>
      rowsOf(
        `SELECT step_number, turn_number, tool, arguments, outcome, to_x, to_y, vision, assistant_text
         FROM actions WHERE experiment_id = $1 AND executed AND step_number > $2 AND turn_number <= $3
         ORDER BY step_number LIMIT $4`,
        [experimentId, last?.step_number ?? window.afterStep, upTo, limit],
      ),
    ),
    early ?? readTurns(),
    paged<ReplayTransitionRow>((last, limit) =>
      rowsOf(
        `SELECT turn_number, seq, step_number, to_phase FROM agent_state_transitions
         WHERE experiment_id = $1 AND machine = 'agent' AND NOT refused AND (turn_number, seq) > ($2::int, $3::int)
           AND turn_number <= $4
         ORDER BY turn_number, seq LIMIT $5`,
        [experimentId, last?.turn_number ?? window.afterTurn, last?.seq ?? window.afterSeq, upTo, limit],
      ),
    ),
    paged<ReplaySignalRow>((last, limit) =>
      rowsOf(
        `SELECT step_number, turn_number, seq, detector, detail FROM stuck_signals
         WHERE experiment_id = $1 AND (turn_number, seq) > ($2::int, $3::int) AND turn_number <= $4
         ORDER BY turn_number, seq LIMIT $5`,
        [experimentId, last?.turn_number ?? window.afterTurn, last?.seq ?? window.afterSeq, upTo, limit],
      ),
    ),
  ]);
  return { actions, turns, transitions, signals };
}

/** The path an experiment walked: the cell after each executed action, by step (compare overlays these). */
export function executedPath(
  db: Sql,
  experimentId: string,
  pageRows?: number,
): Promise<Array<{ step_number: number; to_x: number; to_y: number }>> {
  return readPaged<{ step_number: number; to_x: number; to_y: number }>(
    async (last, limit) =>
      (
        await db.query<{ step_number: number; to_x: number; to_y: number }>(
          `SELECT step_number, to_x, to_y FROM actions
           WHERE experiment_id = $1 AND executed AND step_number > $2 ORDER BY step_number LIMIT $3`,
          [experimentId, last?.step_number ?? 0, limit],
        )
      ).rows,
    pageRows,
  );
}
