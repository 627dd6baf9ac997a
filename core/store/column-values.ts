// One decoding of column values for both transports of the SQL port (sql.ts), so that a row reads the same through
// pg and through the RDS Data API, and `ariadne sql --json` prints the same bytes locally and with --aws whatever the
// laptop's time zone. Both hand this module the value as Postgres prints it in text, in sessions set as
// SESSION_SETTINGS says; what each type becomes, and why pg's own parsers are not used, is on decodeText.

/**
 * The session settings the decoding assumes: pg's pool sets them on every connection (database.ts), so that
 * `now()::date` or `started_at::text` print as they do on Aurora; RdsDataSim runs its sessions with them, as the
 * Data API's zone-less UTC timestamps imply.
 */
export const SESSION_SETTINGS = {
  TimeZone: 'UTC',
  DateStyle: 'ISO',
  IntervalStyle: 'postgres',
  bytea_output: 'hex',
} as const;

type Decode = (text: string) => unknown;

/** "YYYY-MM-DD HH:MM:SS[.ffffff][+HH[:MM[:SS]]]"; no offset means UTC (the Data API sends timestamptz so). */
const TIMESTAMP =
  /^(\d{4,})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:Z|([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?)?$/;

function timestamptz(text: string): Date | string {
  const m = TIMESTAMP.exec(text);
  if (!m) return text; // infinity, -infinity, BC dates: no Date stands for them
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const sign = m[8] === '-' ? -1 : 1;
  const offsetSeconds = m[8] ? sign * (Number(m[9]) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0)) : 0;
  const d = new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
  if (year < 100) d.setUTCFullYear(year); // Date.UTC reads years 0-99 as 1900-1999
  return new Date(d.getTime() - offsetSeconds * 1000);
}

/** Trailing zeros of the seconds' fraction dropped, as Postgres prints them ("03:04:05.5", not "03:04:05.500"). */
const canonicalFraction: Decode = (text) =>
  text.replace(/(:\d\d)\.(\d*?)0+(?=$|[+-])/, (_m, s: string, f: string) => (f === '' ? s : `${s}.${f}`));

const number: Decode = (text) => Number(text);

const SCALARS: Record<string, Decode> = {
  int2: number,
  int4: number,
  int8: number,
  oid: number,
  float4: number,
  float8: number,
  numeric: number,
  bool: (text) => text === 't' || text === 'true',
  json: (text) => JSON.parse(text) as unknown,
  jsonb: (text) => JSON.parse(text) as unknown,
  timestamptz,
  timestamp: canonicalFraction,
  time: canonicalFraction,
  // bytea_output hex (SESSION_SETTINGS): "\x0102"
  bytea: (text) => (text.startsWith('\\x') ? Buffer.from(text.slice(2), 'hex') : text),
};

// What PgJDBC (under the Data API) may report as a column's type name for an integer column with a sequence.
const ALIASES: Record<string, string> = { serial: 'int4', bigserial: 'int8', smallserial: 'int2' };

/** A column type's name as pg_type.typname spells it, from the Data API's typeName ("INT4", "serial", "_text"). */
export function typeName(name: string): string {
  const lower = name.toLowerCase().replace(/"/g, '');
  return ALIASES[lower] ?? lower;
}

/** The element type of an array type ("_int4" -> "int4"), or undefined for a type that is not an array. */
export function arrayElementType(type: string): string | undefined {
  return type.startsWith('_') ? type.slice(1) : undefined;
}

/**
 * A value as Postgres prints it, as the JS value both transports give for a column of `type` (typname):
 *   int2, int4, int8, oid            number (our counts and ids stay far below 2^53)
 *   float4, float8, numeric          number (numeric as the code has always read it: digits past a double's are lost)
 *   bool                             boolean
 *   json, jsonb                      the parsed value
 *   timestamptz                      a Date (its JSON: ISO 8601 in UTC, to the millisecond); infinity stays text
 *   timestamp, time                  the text Postgres prints ("2026-01-02 03:04:05.5"), never moved by a time zone
 *   date, timetz, interval           the text Postgres prints ("2026-01-02", "1 day 02:00:00")
 *   bytea                            a Buffer
 *   arrays of the above              arrays of the element's values, NULL as null
 *   anything else (text, uuid, ...)  the text
 * pg's default parsers differ: zone-less dates and timestamps become Dates in local time (shifted once printed as
 * JSON), intervals objects, int8 and numeric strings. Over the Data API the types it lists for Aurora PostgreSQL
 * arrive as typed Field members (aws-facts: data-api.field-members): longValue, doubleValue, booleanValue,
 * blobValue, arrayValue; numeric as stringValue (decimalReturnType STRING, the default); json, date, time and
 * timestamps as stringValue. Interval is not listed: what arrives is taken to be the session's text for it.
 */
export function decodeText(type: string, text: string): unknown {
  const element = arrayElementType(type);
  if (element !== undefined) return decodeArray(element, parseArrayLiteral(text));
  const decode = SCALARS[type];
  return decode ? decode(text) : text;
}

/** Whether decodeText changes a text of this type at all (text, varchar, uuid, interval... are kept as they come). */
export function decodesText(type: string): boolean {
  return type in SCALARS || arrayElementType(type) !== undefined;
}

type Nested<T> = Array<T | Nested<T>>;

/** Array elements (strings as Postgres prints them, or numbers and booleans already typed) as element values. */
export function decodeArray(element: string, items: Nested<unknown>): unknown[] {
  const decode = SCALARS[element];
  return items.map((x): unknown =>
    Array.isArray(x) ? decodeArray(element, x) : typeof x === 'string' && decode ? decode(x) : (x ?? null),
  );
}

/**
 * Postgres's array text ({1,2}, {{a,"b c"},{NULL,"q\"d"}}, [0:1]={x,y}) as nested arrays of the element texts, null
 * for NULL (8.15.6, "Array Value Input": elements quoted with double quotes and backslash escapes, unquoted NULL).
 */
export function parseArrayLiteral(text: string): Nested<string | null> {
  let i = text.indexOf('{'); // a "[lower:upper]=" dimension prefix says where indexes start: JS arrays start at 0
  if (i < 0) throw new SyntaxError(`not a Postgres array: ${text.slice(0, 80)}`);
  const parseLevel = (): Nested<string | null> => {
    const out: Nested<string | null> = [];
    i += 1; // past "{"
    if (text[i] === '}') {
      i += 1;
      return out;
    }
    for (;;) {
      if (text[i] === '{') out.push(parseLevel());
      else if (text[i] === '"') {
        let s = '';
        for (i += 1; text[i] !== '"'; i += 1) s += text[i] === '\\' ? text[++i] : text[i];
        i += 1;
        out.push(s);
      } else {
        const end = text.slice(i).search(/[,}]/);
        const raw = text.slice(i, i + end).trim();
        i += end;
        out.push(raw === 'NULL' ? null : raw);
      }
      if (text[i] === '}') {
        i += 1;
        return out;
      }
      if (text[i] !== ',') throw new SyntaxError(`unexpected "${text[i] ?? 'end'}" in Postgres array at ${i}`);
      i += 1;
    }
  };
  return parseLevel();
}

// Type oids of pg_type.dat (PostgreSQL's catalog source): the types this module decodes and their arrays. An oid
// not here (an enum, a domain, an extension's type) is passed on as text, as pg does by default.
const OIDS: Record<number, string> = {
  16: 'bool',
  17: 'bytea',
  20: 'int8',
  21: 'int2',
  23: 'int4',
  26: 'oid',
  114: 'json',
  700: 'float4',
  701: 'float8',
  1082: 'date',
  1083: 'time',
  1114: 'timestamp',
  1184: 'timestamptz',
  1186: 'interval',
  1266: 'timetz',
  1700: 'numeric',
  3802: 'jsonb',
  199: '_json',
  1000: '_bool',
  1001: '_bytea',
  1005: '_int2',
  1007: '_int4',
  1009: '_text',
  1014: '_bpchar',
  1015: '_varchar',
  1016: '_int8',
  1021: '_float4',
  1022: '_float8',
  1028: '_oid',
  1115: '_timestamp',
  1182: '_date',
  1183: '_time',
  1185: '_timestamptz',
  1187: '_interval',
  1231: '_numeric',
  1270: '_timetz',
  2951: '_uuid',
  3807: '_jsonb',
};

const asText = (text: string) => text;

/** pg's text parser for a type oid (the `types` option of a pool): decodeText for the type, else the text. */
export function pgTextParser(oid: number): (text: string) => unknown {
  const type = OIDS[oid];
  return type === undefined ? asText : (text) => decodeText(type, text);
}
