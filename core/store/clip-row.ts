// One row's values brought within their limits (engine/stored-limits.ts) as it is written: what a model or a server
// wrote is cut with a marker and named in the row's `clipped` (field: bytes before), anything else over its limit
// is refused, so that no row is written that the Data API could not read back.
import {
  clipJson,
  jsonbBytes,
  LIMITS,
  refuseOver,
  textBytes,
  truncateText,
  type LimitedField,
} from './stored-limits.ts';

const column = (field: LimitedField) => field.slice(field.indexOf('.') + 1);

export class RowClipper {
  private readonly cut: Record<string, number> = {};

  /** Text over its limit is cut, with a marker saying how much there was. */
  text<T extends string | null>(field: LimitedField, value: T): T {
    if (value === null) return value;
    const bytes = textBytes(value);
    if (bytes <= LIMITS[field]) return value;
    this.cut[column(field)] = bytes;
    return truncateText(value, LIMITS[field]) as T;
  }

  /** JSON over its limit keeps its shape, its longest strings cut (stored-limits.ts clipJson). */
  json(field: LimitedField, value: unknown): unknown {
    const bytes = jsonbBytes(value);
    if (bytes <= LIMITS[field]) return value;
    this.cut[column(field)] = bytes;
    return clipJson(value, LIMITS[field]);
  }

  /** A list over its limit keeps the items that fit, in order. */
  list<T>(field: LimitedField, items: T[] | null): T[] | null {
    if (items === null) return null;
    let bytes = 2;
    let fit = 0;
    for (const item of items) {
      bytes += jsonbBytes(item) + 2;
      if (bytes - 2 <= LIMITS[field]) fit++;
    }
    if (fit === items.length) return items;
    this.cut[column(field)] = bytes - 2;
    return items.slice(0, fit);
  }

  /** What was cut, for the row's `clipped` column; null when nothing was. */
  get clipped(): Record<string, number> | null {
    return Object.keys(this.cut).length > 0 ? { ...this.cut } : null;
  }
}

/**
 * A value the engine made as the JSON text the store sends, refused if its jsonb form is over its limit. The text
 * bounds that form: jsonb adds a space after each ':' and ',' (at most doubling it) and writes a number with an
 * exponent out in full; only a text that could be over, or has what may be an exponent, is sized exactly (each
 * turn's agent state was walked number by number to learn it was a tenth of its limit).
 */
export function jsonWithinLimit(field: LimitedField, value: unknown, fix: string): string {
  const json = JSON.stringify(value);
  if (2 * Buffer.byteLength(json) > LIMITS[field] || /\de/i.test(json)) refuseOver(field, jsonbBytes(value), fix);
  return json;
}

/** A value the engine made, refused over its limit with `fix`; returned as it is otherwise. */
export function refuseOversized<T>(field: LimitedField, value: T, fix: string): T {
  refuseOver(field, jsonbBytes(value), fix);
  return value;
}
