// The one decoding of column values both transports use (core/store/column-values.ts), and where a SQLState is
// read from (core/store/sql-state.ts): a structured field first, a Data API message only when there is no field.
import { describe, expect, it } from 'vitest';
import { decodeArray, decodeText, parseArrayLiteral, pgTextParser, typeName } from '../core/store/column-values.ts';
import { parseDatabaseErrorMessage, sqlStateOf } from '../core/store/sql-state.ts';
import { SqlError } from '../core/store/data-api-sql.ts';

describe('column values', () => {
  it('timestamptz: one instant from any offset, or none; no offset is UTC (as the Data API sends it)', () => {
    const at = new Date('2026-01-02T03:04:05.123Z');
    for (const text of [
      '2026-01-02 03:04:05.123456+00',
      '2026-01-02 16:04:05.123+13',
      '2026-01-01 22:34:05.1239-04:30',
      '2026-01-02 03:04:05.123',
      '2026-01-02T03:04:05.123Z',
    ])
      expect(decodeText('timestamptz', text), text).toEqual(at);
    // an offset with seconds (local mean time, before 1900) and a year below 100, which Date.UTC would read as 19xx
    expect(decodeText('timestamptz', '1850-06-01 00:00:00+00:17:30')).toEqual(new Date('1850-05-31T23:42:30Z'));
    expect((decodeText('timestamptz', '0050-03-04 05:06:07+00') as Date).toISOString()).toBe(
      '0050-03-04T05:06:07.000Z',
    );
    expect(decodeText('timestamptz', 'infinity')).toBe('infinity');
    expect(decodeText('timestamptz', '2026-01-02 03:04:05+00 BC')).toBe('2026-01-02 03:04:05+00 BC');
  });

  it('timestamp, date, time and interval: the text Postgres prints, whatever the time zone of this process', () => {
    expect(decodeText('timestamp', '2026-01-02 03:04:05.5')).toBe('2026-01-02 03:04:05.5');
    expect(decodeText('timestamp', '2026-01-02 03:04:05.500')).toBe('2026-01-02 03:04:05.5');
    expect(decodeText('timestamp', '2026-01-02 03:04:05.000')).toBe('2026-01-02 03:04:05');
    expect(decodeText('timestamp', '2026-01-02 03:04:05.105')).toBe('2026-01-02 03:04:05.105');
    expect(decodeText('time', '04:05:06.250')).toBe('04:05:06.25');
    expect(decodeText('date', '2026-01-02')).toBe('2026-01-02');
    expect(decodeText('interval', '1 day 02:00:03.5')).toBe('1 day 02:00:03.5');
    expect(decodeText('timetz', '04:05:06+13')).toBe('04:05:06+13');
  });

  it('numbers, booleans, json, bytea; other types as text', () => {
    expect(decodeText('numeric', '1.50')).toBe(1.5);
    expect(decodeText('numeric', 'NaN')).toBeNaN();
    expect(decodeText('int8', '9007199254740991')).toBe(9_007_199_254_740_991);
    expect(decodeText('float8', '-Infinity')).toBe(-Infinity);
    expect([decodeText('bool', 't'), decodeText('bool', 'f'), decodeText('bool', 'true')]).toEqual([true, false, true]);
    expect(decodeText('jsonb', '{"a": [1, "x"], "b": null}')).toEqual({ a: [1, 'x'], b: null });
    expect(decodeText('bytea', '\\x0102ff')).toEqual(Buffer.from([1, 2, 255]));
    expect(decodeText('uuid', '6f1c0b7e-0000-4000-8000-000000000001')).toBe('6f1c0b7e-0000-4000-8000-000000000001');
    expect(decodeText('money', '$1.00')).toBe('$1.00');
  });

  it('arrays: nested, quoted, escaped, NULL, a dimension prefix; elements decoded by their type', () => {
    expect(parseArrayLiteral('{}')).toEqual([]);
    expect(parseArrayLiteral('{a,"b c",NULL,"NULL","q\\"d","back\\\\slash",""}')).toEqual([
      'a',
      'b c',
      null,
      'NULL',
      'q"d',
      'back\\slash',
      '',
    ]);
    expect(parseArrayLiteral('{{1,2},{3,NULL}}')).toEqual([
      ['1', '2'],
      ['3', null],
    ]);
    expect(parseArrayLiteral('[0:1]={x,y}')).toEqual(['x', 'y']);
    expect(() => parseArrayLiteral('{a b')).toThrow(SyntaxError);
    expect(decodeText('_int8', '{{1,2},{3,NULL}}')).toEqual([
      [1, 2],
      [3, null],
    ]);
    expect(decodeText('_timestamptz', '{"2026-01-02 03:04:05+00"}')).toEqual([new Date('2026-01-02T03:04:05Z')]);
    expect(decodeText('_date', '{2026-01-02}')).toEqual(['2026-01-02']);
    // the Data API's typed lists: numbers and booleans are taken as they come, strings decoded
    expect(decodeArray('numeric', ['1.50', '2'])).toEqual([1.5, 2]);
    expect(decodeArray('int4', [1, 2])).toEqual([1, 2]);
  });

  it("pg's parsers by oid; the Data API's type names as pg_type spells them", () => {
    expect(pgTextParser(1082)('2026-01-02')).toBe('2026-01-02'); // date: pg's default is a Date at local midnight
    expect(pgTextParser(1186)('1 day')).toBe('1 day'); // interval: pg's default is an object
    expect(pgTextParser(1700)('1.50')).toBe(1.5);
    expect(pgTextParser(999_999)('an enum')).toBe('an enum');
    expect([typeName('INT4'), typeName('serial'), typeName('bigserial'), typeName('_text')]).toEqual([
      'int4',
      'int4',
      'int8',
      '_text',
    ]);
  });
});

describe('SQLState', () => {
  it("is read from pg's field, never from a message, when Postgres sent the error", () => {
    // what pg gives for a Postgres error: code and severity as fields (the message says something else)
    const pgError = Object.assign(new Error('value looks like SQLState: 40001'), { code: '22012', severity: 'ERROR' });
    expect(sqlStateOf(pgError)).toEqual({ code: '22012', from: 'field' });
    // a socket error's code is not a SQLState, even one of five capitals
    expect(sqlStateOf(Object.assign(new Error('write EPIPE'), { code: 'EPIPE', syscall: 'write' }))).toBeUndefined();
    expect(sqlStateOf(new Error('SQLState: 40001'))).toBeUndefined();
  });

  it("is read from the Data API's message, the only place it gives one, and says so", () => {
    const parsed = parseDatabaseErrorMessage('ERROR: relation "x" does not exist\n  Position: 15; SQLState: 42P01');
    expect(parsed).toEqual({ message: 'relation "x" does not exist', code: '42P01', position: 15 });
    expect(parseDatabaseErrorMessage('ERROR: something without a state')).toBeUndefined();
    const err = new SqlError(parsed!.message, parsed!.code, parsed!.position);
    expect(err.codeFrom).toBe('message');
    expect(sqlStateOf(err)).toEqual({ code: '42P01', from: 'message' });
  });
});
