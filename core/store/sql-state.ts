// A refused statement's SQLState, read from a structured field wherever one exists and from message text only where
// none does. Over pg it is the ErrorResponse's C field, always present (postgresql.org/docs/current/
// protocol-error-fields.html), kept as the error's `code`. The Data API's DatabaseErrorException carries only a
// message, so the SQLState is parsed from its undocumented wording (see parseDatabaseErrorMessage): the one fallback.

/** Where a SQLState was read. */
export type SqlStateSource = 'field' | 'message';

const SQLSTATE = /^[0-9A-Z]{5}$/;

interface ErrorFields {
  code?: unknown;
  severity?: unknown;
  codeFrom?: unknown;
}

/**
 * The SQLState of an error: pg's `code` field when Postgres sent the error (it has a severity: a socket error's
 * `code`, "EPIPE" or "ECONNRESET", is not a SQLState), else the code of an error that says it was read from a
 * message (the Data API transport's SqlError); undefined for any other error.
 */
export function sqlStateOf(err: unknown): { code: string; from: SqlStateSource } | undefined {
  const e = err as ErrorFields | null;
  if (!e || typeof e !== 'object' || typeof e.code !== 'string' || !SQLSTATE.test(e.code)) return undefined;
  if (typeof e.severity === 'string') return { code: e.code, from: 'field' };
  if (e.codeFrom === 'message') return { code: e.code, from: 'message' };
  return undefined;
}

export interface DatabaseErrorText {
  /** The Postgres message, without the "ERROR:" prefix, the position and the SQLState. */
  message: string;
  code: string;
  /** 1-based character offset into the statement, when Postgres gave one. */
  position: number | undefined;
}

/**
 * A Data API DatabaseErrorException's message taken apart; undefined when it does not end with a SQLState. The
 * exception has no other member (aws-facts: data-api.database-error-members), and AWS does not document the wording
 * ("ERROR: <message>[\n  Position: n]; SQLState: XXXXX"): the only place message text is read for a SQLState.
 */
export function parseDatabaseErrorMessage(text: string): DatabaseErrorText | undefined {
  const state = /;\s*SQLState:\s*([0-9A-Z]{5})\s*$/.exec(text);
  if (!state) return undefined;
  let position: number | undefined;
  const message = text
    .slice(0, state.index)
    .replace(/\n\s*Position: (\d+)/, (_m, n: string) => {
      position = Number(n);
      return '';
    })
    .replace(/^(?:ERROR|FATAL|PANIC):\s+/, '')
    .trim();
  return { message, code: state[1], position };
}
