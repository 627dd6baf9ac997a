// The transcript search before its trigram index, verbatim but for its name: strpos on lower()
// over every row. test/transcript-search.test.ts checks the indexed search against it; bench/search.ts times both.
import type { Sql } from '../../core/store/sql.ts';
import type { SearchHit } from '../../results/transcript-search.ts';

/** The search before the index, verbatim but for its name: strpos on lower() over every row. */
const REFERENCE_SOURCES: Array<[string, string]> = [
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

export async function referenceSearch(db: Sql, q: { q: string; kind?: string; limit: number }) {
  const sources = REFERENCE_SOURCES.filter(([kind]) => !q.kind || kind === q.kind);
  const union = sources
    .map(
      ([kind, sql]) =>
        `SELECT '${kind}' AS kind, s.experiment_id, s.turn, s.step, strpos(lower(s.t), lower($1)) AS at, s.t
         FROM (${sql}) s WHERE strpos(lower(s.t), lower($1)) > 0`,
    )
    .join('\nUNION ALL\n');
  const { rows } = await db.query<SearchHit>(
    `SELECT h.experiment_id, e.agent, e.model, h.turn, h.step, h.kind,
            substring(h.t FROM greatest(1, h.at - 100) FOR 240) AS snippet,
            to_char(e.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS started_at
     FROM (${union}) h JOIN experiments e ON e.id = h.experiment_id
     ORDER BY e.started_at DESC, h.experiment_id, h.turn NULLS FIRST, h.step NULLS FIRST, h.kind
     LIMIT $2`,
    [q.q, q.limit + 1],
  );
  return { query: q.q, hits: rows.slice(0, q.limit), more: rows.length > q.limit };
}
