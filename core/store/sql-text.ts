// Just enough of Postgres's lexical rules to find what matters outside quoted text: `$n` parameters (the Data API
// takes named `:name` ones) and top-level semicolons (the Data API runs one statement per call, so a migration
// file is sent statement by statement). Skipped as opaque: '...' strings ('' escapes; E'...' also \ escapes),
// "..." identifiers, -- and /* */ comments (which nest in Postgres), $tag$...$tag$ bodies and `::` casts.

type Kind = 'code' | 'quoted' | 'comment' | 'parameter' | 'semicolon';

interface Token {
  kind: Kind;
  text: string;
}

const IDENT_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;
// A dollar-quote tag: `$$` or `$name$`; a tag cannot start with a digit, which makes `$1` a parameter instead.
const DOLLAR_TAG = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/;

/** The end (exclusive) of the quoted run opening at `start` with `quote`, doubled quotes escaping it. */
function quotedEnd(sql: string, start: number, quote: string, backslashes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i];
    if (backslashes && c === '\\') i += 2;
    else if (c === quote && sql[i + 1] === quote) i += 2;
    else if (c === quote) return i + 1;
    else i += 1;
  }
  return sql.length; // unterminated: Postgres will say so
}

function blockCommentEnd(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql.startsWith('/*', i)) {
      depth += 1;
      i += 2;
    } else if (sql.startsWith('*/', i)) {
      depth -= 1;
      i += 2;
      if (depth === 0) return i;
    } else i += 1;
  }
  return sql.length;
}

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let code = '';
  const push = (kind: Kind, text: string) => {
    if (code) tokens.push({ kind: 'code', text: code });
    code = '';
    tokens.push({ kind, text });
  };
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const prev = i > 0 ? sql[i - 1] : '';
    // Inside a word (`foo$bar`, `e` of `some'`) these characters are not openers; E'...' is checked below.
    const inWord = prev !== '' && IDENT_CHAR.test(prev);
    let end = -1;
    let kind: Kind = 'quoted';
    if (c === "'") {
      // E'...' (escape string syntax): the E must be a word of its own, not the end of an identifier.
      const before = i >= 2 ? sql[i - 2] : '';
      const escape = (prev === 'E' || prev === 'e') && !(before !== '' && IDENT_CHAR.test(before));
      end = quotedEnd(sql, i, "'", escape);
    } else if (c === '"') end = quotedEnd(sql, i, '"', false);
    else if (sql.startsWith('--', i)) {
      const nl = sql.indexOf('\n', i);
      end = nl === -1 ? sql.length : nl;
      kind = 'comment';
    } else if (sql.startsWith('/*', i)) {
      end = blockCommentEnd(sql, i);
      kind = 'comment';
    } else if (c === '$' && !inWord) {
      const param = /^\$\d+/.exec(sql.slice(i, i + 12));
      const tag = param ? null : DOLLAR_TAG.exec(sql.slice(i, i + 128));
      if (param) {
        end = i + param[0].length;
        kind = 'parameter';
      } else if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        end = close === -1 ? sql.length : close + tag[0].length;
      }
    } else if (sql.startsWith('::', i)) {
      // A cast is code, consumed whole so that its second colon is never read as the start of `:name`.
      code += '::';
      i += 2;
      continue;
    } else if (c === ';') {
      end = i + 1;
      kind = 'semicolon';
    }
    if (end === -1) {
      code += c;
      i += 1;
    } else {
      push(kind, sql.slice(i, end));
      i = end;
    }
  }
  if (code) tokens.push({ kind: 'code', text: code });
  return tokens;
}

/** `$1..$n` as the Data API's named `:p1..:pn`; quoted text, comments and dollar-quoted bodies are left alone. */
export function toNamedParameters(text: string): string {
  return tokenize(text)
    .map((t) => (t.kind === 'parameter' ? `:p${t.text.slice(1)}` : t.text))
    .join('');
}

/**
 * A script (a migration file) as its statements, split at top-level semicolons, each without its semicolon and
 * trimmed; pieces holding only whitespace and comments are dropped.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let piece: Token[] = [];
  const flush = () => {
    if (piece.some((t) => t.kind !== 'comment' && t.text.trim() !== ''))
      statements.push(
        piece
          .map((t) => t.text)
          .join('')
          .trim(),
      );
    piece = [];
  };
  for (const t of tokenize(sql)) {
    if (t.kind === 'semicolon') flush();
    else piece.push(t);
  }
  flush();
  return statements;
}
