// CSV as RFC 4180 has it: a field holding a comma, a double quote or a line break is quoted, its quotes doubled.
// For `ariadne export` and every table command's --format csv.

/** One value as a CSV field: null as empty, a date in ISO 8601, an object or array as JSON. */
export function csvValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s: string;
  if (v instanceof Date) s = v.toISOString();
  else if (typeof v === 'string') s = v;
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
  else s = JSON.stringify(v); // objects and arrays (jsonb, text[]); a row holds nothing else
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A header line and one line per record (ended by \n, as `ariadne export` writes); `columns`: the first's keys. */
export function csvText(records: Record<string, unknown>[], columns = Object.keys(records[0] ?? {})): string {
  const line = (values: unknown[]) => `${values.map(csvValue).join(',')}\n`;
  if (columns.length === 0) return ''; // no rows, and no columns to name
  return line(columns) + records.map((r) => line(columns.map((c) => r[c]))).join('');
}
