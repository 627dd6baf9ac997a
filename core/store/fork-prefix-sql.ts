// A fork's first model calls (ariadne fork, a sweep's forks:, StartExperiment's fork): the parent's recorded replies
// up to its step K, the reply holding step K cut after it (migration 031). Each turn's agent gets a fresh cursor past
// the calls the fork already committed, so a turn tried again, here or in another Lambda, starts where it should.
import { InvalidInputError } from '../errors.ts';
import { ForkPrefix, type PrefixCall } from '../providers/llm/recorded-model.ts';
import { readBodies } from './model-bodies-sql.ts';
import { readPaged } from './pages.ts';
import type { Sql } from './sql.ts';

interface PrefixRow {
  turn_number: number;
  call_index: number;
  seq: number;
  reply_sha256: string;
  first_step: number | null;
  last_step: number | null;
  /** Of the call's actions, how many come up to the fork's step (null when the step is not among them). */
  up_to_step: number | null;
  from_text: boolean;
  workflow: boolean;
}

/**
 * The calls of a run that start at or before a step, in order, from a keyset ($3, $4, $5: the last row read): each
 * with its reply's hash, the steps it made, how many of them come up to the step, and whether it can be cut.
 */
const PREFIX_SQL = `WITH calls AS (
     SELECT l.turn_number, l.call_index, l.first_action_index, l.workflow_steps IS NOT NULL AS workflow,
       lead(l.first_action_index) OVER (PARTITION BY l.turn_number ORDER BY l.call_index) AS next_first
     FROM llm_calls l WHERE l.experiment_id = $1
   ), spans AS (
     SELECT c.*, min(a.step_number) AS first_step, max(a.step_number) AS last_step,
       count(*) FILTER (WHERE a.call_index <= (SELECT s.call_index FROM actions s
         WHERE s.experiment_id = $1 AND s.step_number = $2 AND s.turn_number = c.turn_number))::int AS up_to,
       coalesce(bool_or(a.parsed_from_text), false) AS from_text
     FROM calls c LEFT JOIN actions a ON a.experiment_id = $1 AND a.turn_number = c.turn_number
       AND a.call_index >= c.first_action_index AND (c.next_first IS NULL OR a.call_index < c.next_first)
     GROUP BY c.turn_number, c.call_index, c.first_action_index, c.workflow, c.next_first
   )
   SELECT s.turn_number, s.call_index, x.seq, x.reply_sha256, s.first_step, s.last_step,
     nullif(s.up_to, 0) AS up_to_step, s.from_text, s.workflow
   FROM spans s
   JOIN model_exchanges x ON x.experiment_id = $1 AND x.turn_number = s.turn_number AND x.call_index = s.call_index
   WHERE (s.first_step IS NULL OR s.first_step <= $2) AND (s.turn_number, s.call_index, x.seq) > ($3, $4, $5)
   ORDER BY s.turn_number, s.call_index, x.seq LIMIT $6`;

const after = (last: PrefixRow | undefined) => [last?.turn_number ?? -1, last?.call_index ?? 0, last?.seq ?? 0];

/**
 * The calls of `parent` up to step `atStep`, in order, for a fork, with how much of each reply to keep: every call
 * before the step's, and the step's own cut after it. A reply whose calls were written as text cannot be cut
 * (InvalidInputError naming the steps it spans), nor a workflow's (its steps are several calls). No reply is read:
 * checking a fork point needs none.
 */
async function prefixRows(
  db: Sql,
  parent: string,
  atStep: number,
): Promise<Array<{ sha256: string; keep: number | null }>> {
  const actions = Number(
    (await db.query<{ n: number }>('SELECT actions_taken AS n FROM experiments WHERE id = $1', [parent])).rows[0]?.n ??
      0,
  );
  if (atStep < 1 || atStep > actions)
    throw new InvalidInputError('--at-step', atStep, `--at-step must be a step of ${parent}: 1 to ${actions}`);
  const rows = await readPaged<PrefixRow>(
    async (last, limit) => (await db.query<PrefixRow>(PREFIX_SQL, [parent, atStep, ...after(last), limit])).rows,
  );
  if (rows.some((r) => r.workflow))
    throw new InvalidInputError(
      'experiment-id',
      parent,
      `${parent} ran a workflow prompt: a fork of it is not supported yet`,
    );
  return prefixCalls(rows, atStep, parent);
}

/** The replies of the prefix's calls (prefixRows), the one crossing the fork point cut after the step. */
async function prefixOf(db: Sql, parent: string, atStep: number): Promise<PrefixCall[]> {
  const calls = await prefixRows(db, parent, atStep);
  const replies = await readBodies(
    db,
    calls.map((c) => c.sha256),
  );
  return calls.map((c) => ({ reply: replies.get(c.sha256)!, keep: c.keep }));
}

/** The calls before the fork point, and the one that crosses it cut after the step. */
function prefixCalls(rows: readonly PrefixRow[], atStep: number, parent: string) {
  const out: Array<{ sha256: string; keep: number | null }> = [];
  for (const r of rows) {
    if (r.first_step !== null && r.first_step > atStep) break;
    if (r.last_step === null || r.last_step <= atStep) {
      out.push({ sha256: r.reply_sha256, keep: null });
      if (r.last_step === atStep) break;
      continue;
    }
    if (r.from_text)
      throw new InvalidInputError(
        '--at-step',
        atStep,
        `step ${atStep} is inside a reply of ${parent} whose calls were written as text (steps ${r.first_step} to ` +
          `${r.last_step}): fork at step ${r.first_step! - 1} or ${r.last_step}`,
      );
    out.push({ sha256: r.reply_sha256, keep: r.up_to_step });
    break;
  }
  return out;
}

/** The model requests a run has committed: where a turn's fresh cursor over a record starts. */
export async function answeredRequests(db: Sql, experimentId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM model_exchanges WHERE experiment_id = $1',
    [experimentId],
  );
  return rows[0]?.n ?? 0;
}

/**
 * InvalidInputError unless `parent` is a run on the maze of content hash `mazeHash` (its replies answer moves on that
 * maze) that can be forked after `atStep` (a step it took, in a reply that can be cut).
 */
export async function checkForkPoint(db: Sql, parent: string, atStep: number, mazeHash: string): Promise<void> {
  const { rows } = await db.query<{ maze: string }>(
    'SELECT m.content_hash AS maze FROM experiments e JOIN mazes m ON m.id = e.maze_id WHERE e.id = $1',
    [parent],
  );
  if (!rows[0]) throw new InvalidInputError('fork.parent', parent, `no experiment ${parent} to fork: see ariadne list`);
  if (rows[0].maze !== mazeHash)
    throw new InvalidInputError(
      'maze',
      mazeHash.slice(0, 12),
      `a fork plays on its parent's maze, and this is not ${parent}'s (${rows[0].maze.slice(0, 12)}): give ` +
        `${parent}'s maze, as ariadne fork does`,
    );
  await prefixRows(db, parent, atStep);
}

/** A fork's prefix for each of its turns, the parent's replies read once per fork point in this process. */
export function sqlForkPrefixes(db: Sql) {
  const prefixes = new Map<string, Promise<PrefixCall[]>>();
  return async (experimentId: string, fork: { parent: string; atStep: number }): Promise<ForkPrefix> => {
    const key = `${fork.parent}@${fork.atStep}`;
    let calls = prefixes.get(key);
    if (!calls) prefixes.set(key, (calls = prefixOf(db, fork.parent, fork.atStep)));
    calls.catch(() => prefixes.delete(key));
    return new ForkPrefix(await calls, await answeredRequests(db, experimentId));
  };
}
