// An experiment's logs as its replay reads them, each in keyset pages (the Data API's 1 MiB per response): the
// executed actions with their vision cones, the turns, the agent's phase changes and the stuck signals.
import type { Sql, SqlValue } from '../lambdas/store/sql.ts';
import { readPaged } from '../lambdas/store/pages.ts';

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
 */
export async function replayLogs(db: Sql, experimentId: string, pageRows?: number): Promise<ReplayLogs> {
  const rowsOf = async <R extends object>(text: string, values: SqlValue[]) => (await db.query<R>(text, values)).rows;
  const paged = <R>(read: (last: R | undefined, limit: number) => Promise<R[]>) => readPaged(read, pageRows);
  const [actions, turns, transitions, signals] = await Promise.all([
    paged<ReplayActionRow>((last, limit) =>
      rowsOf(
        `SELECT step_number, turn_number, tool, arguments, outcome, to_x, to_y, vision, assistant_text
         FROM actions WHERE experiment_id = $1 AND executed AND step_number > $2 ORDER BY step_number LIMIT $3`,
        [experimentId, last?.step_number ?? 0, limit],
      ),
    ),
    paged<ReplayTurnRow>((last, limit) =>
      rowsOf(
        `SELECT turn_number, input_tokens, output_tokens, stop_reason,
                actions_taken_after - actions_executed AS first_step
         FROM turns WHERE experiment_id = $1 AND turn_number > $2 ORDER BY turn_number LIMIT $3`,
        [experimentId, last?.turn_number ?? 0, limit],
      ),
    ),
    paged<ReplayTransitionRow>((last, limit) =>
      rowsOf(
        `SELECT turn_number, seq, step_number, to_phase FROM agent_state_transitions
         WHERE experiment_id = $1 AND machine = 'agent' AND NOT refused AND (turn_number, seq) > ($2::int, $3::int)
         ORDER BY turn_number, seq LIMIT $4`,
        [experimentId, last?.turn_number ?? -1, last?.seq ?? -1, limit],
      ),
    ),
    paged<ReplaySignalRow>((last, limit) =>
      rowsOf(
        `SELECT step_number, turn_number, seq, detector, detail FROM stuck_signals
         WHERE experiment_id = $1 AND (turn_number, seq) > ($2::int, $3::int) ORDER BY turn_number, seq LIMIT $4`,
        [experimentId, last?.turn_number ?? -1, last?.seq ?? -1, limit],
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
