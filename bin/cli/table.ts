// Rows as an aligned text table that fits the terminal (at most 100 columns): each command declares its columns,
// which to drop first and which may be cut short; ids and dates are never cut. --wide shows every column whole.

/** The widest a table is by default, a terminal or not. */
const TABLE_WIDTH = 100;

/** The narrowest a cut column gets (or its header's width, if wider). */
const MIN_CUT_WIDTH = 10;

const SEPARATOR = ' | ';

export interface Column<R> {
  header: string;
  /** What the table shows for a row; null and undefined show as blank, a date in ISO 8601, an object as JSON. */
  cell: (row: R) => unknown;
  /** Numbers align right, so their digits line up. */
  align?: 'right';
  /** When the table is too wide, the column with the highest `drop` goes first; 0 (the default): never dropped. */
  drop?: number;
  /** May be cut short, with an ellipsis, to fit; never an id or a date. */
  cut?: boolean;
  /** The narrowest a cut column gets, when less says nothing (a setting's name alone); MIN_CUT_WIDTH by default. */
  min?: number;
}

export interface TableLayout {
  /** The widest line allowed, unless every column left is one that is never dropped nor cut. */
  width: number;
  /** Every column, none cut: the width is ignored. */
  wide?: boolean;
}

/** The width a table fits by default: the terminal's when stdout is one, never over TABLE_WIDTH. */
export function terminalWidth(stream: NodeJS.WriteStream = process.stdout): number {
  return stream.isTTY && stream.columns > 0 ? Math.min(stream.columns, TABLE_WIDTH) : TABLE_WIDTH;
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') return JSON.stringify(v);
  // what is left of a pg row value: a primitive
  const primitive = v as string | number | bigint | boolean;
  return String(primitive).replace(/\s+/g, ' ');
}

const lineWidth = (widths: number[]) =>
  widths.reduce((sum, w) => sum + w, 0) + SEPARATOR.length * Math.max(0, widths.length - 1);

/**
 * Which columns to show and how wide: the columns with the highest `drop` go while the table would not fit even
 * with its cuttable columns at their narrowest; then the widest cuttable column narrows until the table fits.
 */
function fit(
  headers: string[],
  natural: number[],
  columns: Array<Pick<Column<never>, 'cut' | 'drop' | 'min'>>,
  layout: TableLayout,
) {
  const shown = columns.map((_, i) => i);
  const floor = natural.map((w, i) =>
    columns[i].cut ? Math.min(w, Math.max(headers[i].length, columns[i].min ?? MIN_CUT_WIDTH)) : w,
  );
  if (layout.wide) return { shown, widths: natural };
  for (;;) {
    if (lineWidth(shown.map((i) => floor[i])) <= layout.width) break;
    const droppable = shown.filter((i) => (columns[i].drop ?? 0) > 0);
    if (droppable.length === 0) break;
    // the highest drop goes first; of equals, the rightmost
    const gone = droppable.reduce((a, b) => ((columns[b].drop ?? 0) >= (columns[a].drop ?? 0) ? b : a));
    shown.splice(shown.indexOf(gone), 1);
  }
  const widths = natural.slice();
  let excess = lineWidth(shown.map((i) => widths[i])) - layout.width;
  while (excess > 0) {
    const slack = shown.filter((i) => widths[i] > floor[i]);
    if (slack.length === 0) break;
    const widest = slack.reduce((a, b) => (widths[b] > widths[a] ? b : a));
    widths[widest]--;
    excess--;
  }
  return { shown, widths };
}

export interface RenderedTable {
  /** The header, the rule, a line per row, and "(n rows)". */
  lines: string[];
  /** The headers of the columns left out to fit. */
  hidden: string[];
}

/** `rows` under `columns`, fitted to `layout`. */
export function renderTable<R>(rows: R[], columns: Column<R>[], layout: TableLayout): RenderedTable {
  const headers = columns.map((c) => c.header);
  const cells = rows.map((r) => columns.map((c) => cellText(c.cell(r))));
  const natural = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i].length)));
  const { shown, widths } = fit(headers, natural, columns, layout);
  const fitted = (v: string, i: number) => {
    if (v.length > widths[i]) return `${v.slice(0, widths[i] - 1)}…`;
    return columns[i].align === 'right' ? v.padStart(widths[i]) : v.padEnd(widths[i]);
  };
  const line = (values: string[]) =>
    shown
      .map((i) => fitted(values[i], i))
      .join(SEPARATOR)
      .trimEnd();
  return {
    lines: [
      line(headers),
      shown.map((i) => '-'.repeat(widths[i])).join('-+-'),
      ...cells.map(line),
      `(${rows.length} row${rows.length === 1 ? '' : 's'})`,
    ],
    hidden: columns.filter((_, i) => !shown.includes(i)).map((c) => c.header),
  };
}

/** The line under a table that left columns out, or none. */
export function hiddenNote(hidden: string[]): string[] {
  if (hidden.length === 0) return [];
  return [`${hidden.length} column${hidden.length === 1 ? '' : 's'} hidden: --wide or --format csv shows them`];
}

/**
 * `text` in lines of at most `width` characters, broken at spaces (a word longer than a line is broken where it
 * must), its leading spaces kept and later lines indented by `indent`.
 */
export function wrapText(text: string, width: number, indent = ''): string[] {
  const lead = /^ */.exec(text)![0];
  const lines: string[] = [];
  let line = lead;
  let empty = true; // nothing but indentation on `line` yet
  for (let word of text.slice(lead.length).split(/ +/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent;
      empty = true;
    }
    // a word that would not fit a line of its own is split
    while (line.length + word.length > width && width - line.length > 0) {
      const room = width - line.length;
      lines.push(line + word.slice(0, room));
      word = word.slice(room);
      line = indent;
    }
    line = empty ? line + word : `${line} ${word}`;
    empty = false;
  }
  if (!empty) lines.push(line);
  return lines;
}
