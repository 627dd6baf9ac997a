// Rows as an aligned text table, for `ariadne sql` and `ariadne list`.
/** `right`: the fields whose values align right (numbers, so their digits line up). */
export function formatTable(
  rows: Record<string, unknown>[],
  fields: string[],
  opts: { right?: readonly string[] } = {},
): string {
  const cell = (v: unknown): string => {
    if (v === null || v === undefined) return '';
    if (v instanceof Date) return v.toISOString();
    if (typeof v === 'object') return JSON.stringify(v);
    // what is left of a pg row value: a primitive
    const primitive = v as string | number | bigint | boolean;
    return String(primitive).replace(/\s+/g, ' ');
  };
  const cells = rows.map((r) => fields.map((f) => cell(r[f])));
  const widths = fields.map((f, i) => Math.min(60, Math.max(f.length, ...cells.map((c) => c[i].length))));
  const right = fields.map((f) => opts.right?.includes(f) === true);
  const fit = (v: string, i: number) => {
    if (v.length > widths[i]) return `${v.slice(0, widths[i] - 1)}…`;
    return right[i] ? v.padStart(widths[i]) : v.padEnd(widths[i]);
  };
  const line = (vals: string[]) => vals.map(fit).join(' | ').trimEnd();
  return [
    line(fields),
    widths.map((w) => '-'.repeat(w)).join('-+-'),
    ...cells.map(line),
    `(${rows.length} row${rows.length === 1 ? '' : 's'})`,
  ].join('\n');
}
