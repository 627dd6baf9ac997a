// Every command that prints a table fits 100 columns by default, --wide shows what it left out, --format csv
// parses back and --format json keeps its numbers numbers; and the renderer's fitting, on small tables.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hiddenNote, renderTable, wrapText, type Column } from '../bin/cli/table.ts';
import { csvText } from '../reports/csv.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';
import { cli } from './support/cli.ts';

/** RFC 4180 read back: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') field += text[++i];
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n') {
      rows.push([...row, field]);
      row = [];
      field = '';
    } else field += ch;
  }
  expect(quoted, 'an unclosed quote').toBe(false);
  expect(row.length === 0 && field === '', 'the last line ends with a line break').toBe(true);
  return rows;
}

type Row = { id: string; name: string; n: number; when: string };
const ROWS: Row[] = [
  { id: 'experiment-0000-0001', name: 'a name long enough to be cut short somewhere', n: 5, when: '2026-01-02 03:04' },
  { id: 'experiment-0000-0002', name: 'short', n: 12345, when: '2026-01-03 04:05' },
];
const COLUMNS: Column<Row>[] = [
  { header: 'id', cell: (r) => r.id },
  { header: 'name', cell: (r) => r.name, cut: true },
  { header: 'n', cell: (r) => r.n, align: 'right', drop: 1 },
  { header: 'extra', cell: () => 'x'.repeat(20), drop: 2 },
  { header: 'when', cell: (r) => r.when },
];
const longest = (lines: string[]) => Math.max(...lines.map((l) => l.length));

describe('the table renderer', () => {
  it('wide enough, it shows every column whole', () => {
    const { lines, hidden } = renderTable(ROWS, COLUMNS, { width: 200 });
    expect(hidden).toEqual([]);
    expect(lines[0].split('|').map((h) => h.trim())).toEqual(['id', 'name', 'n', 'extra', 'when']);
    expect(lines[2]).toContain(ROWS[0].name);
    expect(lines[3]).toMatch(/\| 12345 \|/);
    expect(lines.at(-1)).toBe('(2 rows)');
  });

  it('narrower, it cuts the cuttable column first, with an ellipsis, and keeps ids and dates whole', () => {
    const { lines, hidden } = renderTable(ROWS, COLUMNS, { width: 95 });
    expect(hidden).toEqual([]);
    expect(longest(lines)).toBeLessThanOrEqual(95);
    expect(lines[2]).toMatch(/a name long enough.*… \|/);
    expect(lines[2]).toContain(ROWS[0].id);
    expect(lines[2]).toContain(ROWS[0].when);
  });

  it('narrower still, it drops the highest drop first, then the next; never an id, a date or a drop-0 column', () => {
    const first = renderTable(ROWS, COLUMNS, { width: 80 });
    expect(first.hidden).toEqual(['extra']);
    expect(longest(first.lines)).toBeLessThanOrEqual(80);
    const second = renderTable(ROWS, COLUMNS, { width: 55 });
    expect(second.hidden).toEqual(['n', 'extra']); // in the columns' order
    expect(longest(second.lines)).toBeLessThanOrEqual(55);
    expect(second.lines[0].split('|').map((h) => h.trim())).toEqual(['id', 'name', 'when']);
    // nothing left to drop or cut: the ids and dates stay whole, past the width
    const tiny = renderTable(ROWS, COLUMNS, { width: 20 });
    expect(tiny.lines[2]).toContain(ROWS[0].id);
    expect(tiny.lines[2]).toContain(ROWS[0].when);
    expect(hiddenNote(tiny.hidden)).toEqual(['2 columns hidden: --wide or --format csv shows them']);
    expect(hiddenNote(['x'])).toEqual(['1 column hidden: --wide or --format csv shows them']);
    expect(hiddenNote([])).toEqual([]);
  });

  it('--wide ignores the width: every column, none cut', () => {
    const { lines, hidden } = renderTable(ROWS, COLUMNS, { width: 20, wide: true });
    expect(hidden).toEqual([]);
    expect(lines[2]).toContain(ROWS[0].name);
    expect(lines[2]).toContain('x'.repeat(20));
  });

  it('wraps text at spaces, keeps its indentation, and breaks a word longer than a line', () => {
    expect(wrapText('  one two three four', 10, '    ')).toEqual(['  one two', '    three', '    four']);
    expect(wrapText('abcdefghijkl', 5)).toEqual(['abcde', 'fghij', 'kl']);
    expect(wrapText('fits', 10)).toEqual(['fits']);
  });

  it('writes csv that reads back: quoted commas, quotes and line breaks; empty for null', () => {
    const records = [{ a: 'x,y', b: 'say "hi"', c: 'two\nlines', d: null, e: 1.5 }];
    expect(parseCsv(csvText(records))).toEqual([
      ['a', 'b', 'c', 'd', 'e'],
      ['x,y', 'say "hi"', 'two\nlines', '', '1.5'],
    ]);
    expect(csvText([], ['a', 'b'])).toBe('a,b\n');
  });
});

describe('every table command on a database with a sweep in it', () => {
  let db: TestDatabase;
  const { ariadne } = cli(() => db);
  const dir = tempDir('cli-tables');
  const SWEEP = 'tables-with-a-rather-long-sweep-name';
  beforeAll(async () => {
    db = await testDatabase();
    const file = join(dir, 'sweep.yaml');
    writeFileSync(
      file,
      [
        `sweep: ${SWEEP}`,
        'agents: [{ agent: random, label: random-walker.seeded }, { agent: frontier }]',
        'mazes: { generators: [medium, rooms_and_corridors], sizes: [9], seeds: [1] }',
        'settings: { vision_range: [2, 3], success_rule: [seen, reached] }',
        'config: { max_moves: 40 }',
        'repeats: 1',
        'max_concurrency: 2',
      ].join('\n'),
    );
    const r = await ariadne(['sweep', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    // one run left running and silent for an hour: the status table flags it, its reason said under the table
    await db.pool.query(
      `UPDATE experiments SET status = 'running', updated_at = now() - interval '1 hour'
       WHERE id = (SELECT min(id) FROM experiments WHERE sweep_id = $1)`,
      [SWEEP],
    );
  }, 300_000);
  afterAll(async () => {
    await db.drop();
  });

  const COMMANDS: Array<[string, string[]]> = [
    ['list', ['list']],
    ['list --sweeps', ['list', '--sweeps']],
    ['stats', ['stats', SWEEP, '--resamples', '200']],
    ['stats --by', ['stats', SWEEP, '--by', 'label,maze_generator,vision_range,success_rule', '--resamples', '200']],
    ['status', ['status']],
    ['sweep status', ['sweep', 'status', SWEEP]],
    ['mazes', ['mazes']],
    ['sql', ['sql', 'SELECT * FROM experiment_summary']],
    ['compare', ['compare', SWEEP, 'random-walker.seeded', 'frontier']],
    ['compare --all', ['compare', SWEEP, '--all']],
  ];

  it.each(COMMANDS)('%s: no line over 100 characters', async (_label, args) => {
    const r = await ariadne(args);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  it('stats keeps n, the rate and its interval, and --wide shows the columns it hid', async () => {
    const compact = (await ariadne(['stats', SWEEP, '--resamples', '200'])).stdout;
    const header = (out: string) =>
      out
        .split('\n')[1]
        .split('|')
        .map((h) => h.trim());
    expect(header(compact)).toEqual(expect.arrayContaining(['label', 'n', 'success', 'maze95', 'mazes']));
    expect(header(compact)).not.toContain('from_text');
    const hidden = /^(\d+) columns hidden: --wide or --format csv shows them$/m.exec(compact);
    expect(hidden).not.toBeNull();
    const wide = (await ariadne(['stats', SWEEP, '--resamples', '200', '--wide'])).stdout;
    expect(header(wide)).toHaveLength(header(compact).length + Number(hidden![1]));
    expect(header(wide)).toEqual(expect.arrayContaining(['from_text', 'tokens', 'identical', 'if_errors_failed']));
    expect(wide).not.toMatch(/columns? hidden/);
  });

  it('status flags the silent run in the table and says why under it', async () => {
    const out = (await ariadne(['status'])).stdout;
    expect(out).toMatch(/^1 experiment\(s\) running, 1 stale$/m);
    expect(out).toMatch(/^tables-with-a-rather-long-sweep-name-c\d+-r1 \|.*\| STALE$/m);
    expect(out).toMatch(/^STALE tables-with-.*: no turn recorded for \d+ min/m);
  });

  it('--format csv: every column, parsed back to the rows --format json gives, numbers as numbers', async () => {
    const json = JSON.parse((await ariadne(['list', '--sweep', SWEEP, '--format', 'json'])).stdout) as Record<
      string,
      unknown
    >[];
    expect(json.length).toBe(16);
    expect(typeof json[0].actions).toBe('number');
    expect(typeof json[0].maze_width).toBe('number');
    const [head, ...body] = parseCsv((await ariadne(['list', '--sweep', SWEEP, '--format', 'csv'])).stdout);
    expect(head).toEqual(expect.arrayContaining(['experiment_id', 'label', 'actions', 'efficiency', 'started_at']));
    expect(body.map((r) => r[head.indexOf('experiment_id')])).toEqual(json.map((r) => r.experiment_id));
    expect(new Set(body.map((r) => r[head.indexOf('label')]))).toEqual(new Set(['random-walker.seeded', 'frontier']));
    expect(body.map((r) => Number(r[head.indexOf('actions')]))).toEqual(json.map((r) => r.actions));

    const stats = parseCsv((await ariadne(['stats', SWEEP, '--resamples', '200', '--format', 'csv'])).stdout);
    expect(stats[0]).toEqual(
      expect.arrayContaining([
        'label',
        'n',
        'success_rate',
        'maze95_low',
        'mazes',
        'spl',
        'stop_goal',
        'from_text_rate',
      ]),
    );
    expect(stats.slice(1).every((r) => Number.isFinite(Number(r[stats[0].indexOf('n')])))).toBe(true);

    const quoted = await ariadne([
      'sql',
      `SELECT 'a,b' AS comma, 'say "hi"' AS quote, E'two\\nlines' AS lines`,
      '--format',
      'csv',
    ]);
    expect(parseCsv(quoted.stdout)).toEqual([
      ['comma', 'quote', 'lines'],
      ['a,b', 'say "hi"', 'two\nlines'],
    ]);
  });

  it("stats --format markdown and latex: the csv's groups and numbers, a caption, what is excluded", async () => {
    const [head, ...groups] = parseCsv(
      (await ariadne(['stats', SWEEP, '--by', 'label', '--resamples', '200', '--format', 'csv'])).stdout,
    );
    const col = (r: string[], name: string) => r[head.indexOf(name)];
    const pct = (x: string) => (Number(x) * 100).toFixed(1);

    const md = await ariadne(['stats', SWEEP, '--by', 'label', '--resamples', '200', '--format', 'markdown']);
    expect(md.code, md.stderr).toBe(0);
    const lines = md.stdout.split('\n');
    // one run is left running (above): the caption says the sweep is incomplete
    expect(lines[0]).toBe(`**Sweep ${SWEEP}: success by label (incomplete: 15 of 16 planned runs).**`);
    const table = lines.filter((l) => l.startsWith('|'));
    expect(table[0]).toBe(
      '| label | n | independent | mazes | success % | maze-level 95% CI | maze bootstrap 95% CI | excluded | SPL | ' +
        'efficiency of successes | actions | looped % | looped 95% CI | revisit ratio | wall bumps / 100 attempts | ' +
        'tiles vs frontier |',
    );
    expect(table[1]).toMatch(/^\| :--- \|( ---: \|){15}$/);
    expect(table).toHaveLength(2 + groups.length);
    for (const g of groups) {
      const row = table.find((l) => l.startsWith(`| ${col(g, 'label')} |`))!;
      const cells = row.split('|').map((c) => c.trim());
      expect(cells[2]).toBe(col(g, 'n'));
      // the denominator of the rate and its intervals
      expect(cells[3]).toBe(col(g, 'independent'));
      expect(cells[4]).toBe(col(g, 'mazes'));
      expect(cells[5]).toBe(pct(col(g, 'success_rate')));
      expect(cells[6]).toBe(`[${pct(col(g, 'maze95_low'))}, ${pct(col(g, 'maze95_high'))}]`);
      const excluded = ['errors', 'wall_clock', 'running'].reduce((s, c) => s + Number(col(g, c)), 0);
      expect(cells[8]).toBe(String(excluded));
      expect(cells[9]).toBe(Number(col(g, 'spl')).toFixed(3));
      // how the runs moved: the csv's behaviour columns, as the paper table rounds them
      expect(cells[12]).toBe(pct(col(g, 'looped_rate')));
      expect(cells[14]).toBe(Number(col(g, 'revisit_ratio')).toFixed(3));
      expect(cells[15]).toBe(Number(col(g, 'wall_bumps_per_100')).toFixed(1));
      expect(cells[16]).toBe(Number(col(g, 'tiles_vs_frontier')).toFixed(3));
    }
    expect(md.stdout).toMatch(/^Looped: runs that entered some cell 10 or more times \(MazeEval's loop\)/m);
    // the run left running (above) is counted out, and said so
    expect(md.stdout).toMatch(/Excluded from every denominator: .* \(0 in all\), .* and runs still running \(1\)\./);
    expect(md.stdout).toMatch(/200 resamples, seed 1, percentile/);
    expect(md.stdout).toMatch(/How the runs ended: goal \d+/);
    expect(md.stdout).toMatch(/The maze is the unit of replication/);

    const tex = await ariadne(['stats', SWEEP, '--by', 'label', '--resamples', '200', '--format', 'latex']);
    expect(tex.code, tex.stderr).toBe(0);
    expect(tex.stdout).toContain('\\begin{tabular}{lrrrrrrrrrrrrrrr}');
    expect(tex.stdout).toContain(`\\label{tab:${SWEEP}}`);
    expect(tex.stdout).toContain(
      'label & n & independent & mazes & success \\% & maze-level 95\\% CI & maze bootstrap 95\\% CI',
    );
    const body = tex.stdout.slice(tex.stdout.indexOf('\\midrule'), tex.stdout.indexOf('\\bottomrule'));
    expect(body.split('\n').filter((l) => l.endsWith(' \\\\'))).toHaveLength(groups.length);
    expect(tex.stdout).toMatch(/\\footnotesize n counts the runs that succeeded or failed/);

    // only the commands whose table goes into papers write one
    const list = await ariadne(['list', '--format', 'latex']);
    expect(list.code).toBe(2);
    expect(list.stderr).toMatch(/--format "latex" is not one of: table, csv, json/);
  });

  it('--json is --format json; with another --format it is refused (exit 2), naming both', async () => {
    const asJson = (await ariadne(['stats', SWEEP, '--resamples', '200', '--json'])).stdout;
    expect((await ariadne(['stats', SWEEP, '--resamples', '200', '--format', 'json'])).stdout).toBe(asJson);
    const rows = (JSON.parse(asJson) as { rows: Array<Record<string, unknown>> }).rows;
    expect(typeof rows[0].n).toBe('number');
    expect(typeof rows[0].success_rate).toBe('number');
    const both = await ariadne(['list', '--json', '--format', 'csv']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--json and --format csv contradict each other/);
    const bad = await ariadne(['mazes', '--format', 'xml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format "xml" is not one of: table, csv, json/);
  });
});
