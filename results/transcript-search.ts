// Search across every transcript (replies, reasoning, tool names, errors), answered by the database: matched
// literally and case-insensitively, each hit a short snippet cut in SQL so a Data API response stays small. Each
// source has a trigram index on exactly its expression (migration 018), which answers `t ILIKE '%q%'` with q escaped.
// A query most rows match asks the newest experiments first: if they alone hold enough hits, those are the first.
import type { Sql } from '../core/store/sql.ts';

export const SEARCH_KINDS = ['reply', 'reasoning', 'tool', 'error'] as const;
type SearchKind = (typeof SEARCH_KINDS)[number];

export interface SearchHit {
  experiment_id: string;
  agent: string;
  model: string | null;
  turn: number | null;
  step: number | null;
  kind: SearchKind;
  /** Up to 240 characters around the first match. */
  snippet: string;
  started_at: string;
}

/** Each source of text: its kind, and SQL giving experiment_id, turn, step and the text as `t`. */
const SOURCES: Array<[SearchKind, string]> = [
  [
    'reply',
    `SELECT l.experiment_id, l.turn_number AS turn, a.step_number AS step, l.assistant_text AS t
     FROM llm_calls l LEFT JOIN actions a ON a.experiment_id = l.experiment_id AND a.turn_number = l.turn_number
       AND a.call_index = l.first_action_index`,
  ],
  [
    'reasoning',
    `SELECT experiment_id, turn_number AS turn, step_number AS step,
            coalesce(reasoning, arguments ->> 'reasoning') AS t FROM actions`,
  ],
  ['tool', 'SELECT experiment_id, turn_number AS turn, step_number AS step, tool AS t FROM actions'],
  [
    'error',
    `SELECT id AS experiment_id, NULL::int AS turn, NULL::int AS step, failure_reason AS t FROM experiments
     UNION ALL
     SELECT experiment_id, turn_number, NULL::int, retries::text FROM llm_calls WHERE jsonb_array_length(retries) > 0
     UNION ALL
     SELECT experiment_id, turn_number, step_number, tool || ': ' || message FROM actions
     WHERE outcome IN ('unknown_tool', 'invalid_arguments')`,
  ],
];

export interface TranscriptSearch {
  /** The text, matched literally and case-insensitively. */
  q: string;
  /** One kind of text only; every kind when left out. */
  kind?: SearchKind;
  limit: number;
}

/** How many of the newest experiments are searched first (see above): a few hundred to a few thousand actions. */
const NEWEST_FIRST = 10;

/** `q` as a LIKE pattern matching it anywhere: its `\\`, `%` and `_` escaped with LIKE's default escape, `\\`. */
function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The newest experiments' hits first; `more` says whether there were more than `limit`. */
export async function searchTranscripts(db: Sql, q: TranscriptSearch) {
  const sources = SOURCES.filter(([kind]) => !q.kind || kind === q.kind);
  const pattern = containsPattern(q.q);
  const newest = await db.query<SearchHit>(hitsSql(sources, true), [q.q, q.limit + 1, pattern, NEWEST_FIRST]);
  const rows =
    newest.rows.length > q.limit
      ? newest.rows
      : (await db.query<SearchHit>(hitsSql(sources, false), [q.q, q.limit + 1, pattern])).rows;
  return { query: q.q, hits: rows.slice(0, q.limit), more: rows.length > q.limit };
}

/**
 * $1 the text, $2 one more row than asked for (to say whether there are more), $3 its pattern; with `newest`, $4:
 * how many of the newest experiments to search. The ILIKE is on each source's own `t`, which Postgres pushes into
 * the source and matches against the index on the same expression; strpos only places the snippet of a hit.
 */
function hitsSql(sources: Array<[SearchKind, string]>, newest: boolean): string {
  const within = newest
    ? ` AND s.experiment_id = ANY((SELECT array_agg(id) FROM (SELECT id FROM experiments
          ORDER BY started_at DESC, id LIMIT $4) w)::text[])`
    : '';
  const union = sources
    .map(
      ([kind, sql]) =>
        `SELECT '${kind}' AS kind, s.experiment_id, s.turn, s.step, strpos(lower(s.t), lower($1)) AS at, s.t
         FROM (${sql}) s WHERE s.t ILIKE $3${within}`,
    )
    .join('\nUNION ALL\n');
  // the old order, then the text itself: a turn's several errors of one kind would otherwise tie
  return `SELECT h.experiment_id, e.agent, e.model, h.turn, h.step, h.kind,
            substring(h.t FROM greatest(1, h.at - 100) FOR 240) AS snippet,
            to_char(e.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS started_at
     FROM (${union}) h JOIN experiments e ON e.id = h.experiment_id
     ORDER BY e.started_at DESC, h.experiment_id, h.turn NULLS FIRST, h.step NULLS FIRST, h.kind, h.t
     LIMIT $2`;
}
