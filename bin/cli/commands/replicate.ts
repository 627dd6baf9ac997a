// `ariadne replicate [name] [--sweep id]`: a published protocol (examples/protocols/, reports/protocols.ts) as data.
// Alone it lists the protocols; with a name it prints what the paper fixed, its published numbers with their sources,
// what differs in Ariadne's protocol and the command that runs it; with --sweep (a sweep that ran it), ours beside
// each published number with our maze-level interval and a verdict (reports/replication.ts), read from the same store
// as every results command (--aws included).
import { relative, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import {
  findProtocol,
  isProtocolPath,
  loadProtocolFile,
  ProtocolDefinitionError,
  protocolNames,
  type Protocol,
  type PublishedNumber,
} from '../../../reports/protocols.ts';
import {
  compareNumbers,
  EQUIVALENCE_MARGIN,
  specDifferences,
  type ComparisonRow,
} from '../../../reports/replication.ts';
import { sweepStatistics, type GroupStatistics } from '../../../reports/sweep-statistics.ts';
import { formatInterval, formatRate } from '../../../reports/stat-format.ts';
import { sweepSpec } from '../../../results/run-state.ts';
import { describeFileError, isFileError } from '../file-errors.ts';
import { withExample } from '../help.ts';
import { commandPrefix } from '../invocation.ts';
import { userDirectory } from '../output-dir.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import { hiddenNote, renderTable, wrapText, type Column, type TableLayout } from '../table.ts';
import { addTableOutputOptions, outputFormat, printTableOutput, type TableOutputOptions } from '../table-output.ts';
import { requireSweep } from './results.ts';

type Options = ResultsSource & TableOutputOptions & { sweep?: string };

/** A protocol by name, or by the path of its .published.yaml file (relative to where the command was run). */
function protocolOf(arg: string): Protocol {
  try {
    return isProtocolPath(arg) ? loadProtocolFile(resolve(userDirectory(), arg)) : findProtocol(arg);
  } catch (err) {
    if (err instanceof ProtocolDefinitionError) throw new InvalidInputError(err.path, arg, err.message);
    if (isFileError(err))
      throw new InvalidInputError('protocol', arg, `protocol file "${arg}" cannot be read: ${describeFileError(err)}`);
    throw err;
  }
}

/** A file as the user names it: relative to where they are when it lies below, else absolute. */
function shownPath(file: string): string {
  const rel = relative(userDirectory(), file);
  return rel.startsWith('..') || rel === '' ? file : rel;
}

/** The two commands: run the protocol's sweep, then compare it. */
function commands(p: Protocol, argument: string) {
  return {
    sweep: `${commandPrefix()} sweep ${shownPath(p.sweepFile)}`,
    replicate: `${commandPrefix()} replicate ${argument} --sweep ${p.sweep.spec.sweep}`,
  };
}

/** A source as one citation: "Einarsson (2025), "MazeEval: ...", arXiv:2507.20395, https://...". */
function citation(s: Protocol['sources'][string]): string {
  const authors = s.authors.length > 2 ? `${s.authors[0]} et al.` : s.authors.join(' and ');
  return [`${authors} (${s.year})`, `"${s.title}"`, s.venue, s.arxiv && `arXiv:${s.arxiv}`, s.url]
    .filter(Boolean)
    .join(', ');
}

/** Their rate, with k/n when an n is known ("n?": an n not from the number's source). */
const theirText = (p: { value: number; successes?: number; n?: number }, assumedN: boolean) =>
  p.n === undefined
    ? formatRate(p.value)
    : `${formatRate(p.value)} (${p.successes ?? Math.round(p.value * p.n)}/${p.n}${assumedN ? ' n?' : ''})`;
/** ours - theirs's interval in percentage points. */
const differenceText = ({ difference: d }: ComparisonRow['verdict']) =>
  d ? `${(d.low * 100).toFixed(1)} to ${(d.high * 100).toFixed(1)}` : '-';
const selectorText = (o: Record<string, unknown>) =>
  Object.entries(o)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');

const NUMBER_COLUMNS: Column<PublishedNumber>[] = [
  { header: 'number', cell: (p) => p.id },
  { header: 'theirs', cell: (p) => theirText(p, p.n_source !== undefined), align: 'right' },
  { header: 'ours_from', cell: (p) => selectorText(p.ours), cut: true },
  { header: 'source', cell: (p) => p.source, drop: 1 },
];

const COMPARISON_COLUMNS: Column<ComparisonRow>[] = [
  { header: 'number', cell: (r) => r.id },
  { header: 'theirs', cell: (r) => theirText(r.theirs, r.theirs.nSource !== undefined), align: 'right' },
  { header: 'ours', cell: (r) => `${formatRate(r.ours.rate)} (${r.ours.successes}/${r.ours.runs})`, align: 'right' },
  { header: 'maze95', cell: (r) => formatInterval(r.ours.low, r.ours.high), align: 'right' },
  { header: 'mazes', cell: (r) => r.ours.mazes, align: 'right' },
  { header: 'diff95_pts', cell: (r) => differenceText(r.verdict), align: 'right' },
  { header: 'verdict', cell: (r) => r.verdict.verdict },
  { header: 'test', cell: (r) => r.verdict.test, drop: 1 },
];

/** What the paper fixed, the differences (the protocol's, then each number's) and the gaps, as lines. */
function protocolNotes(p: Protocol, width: number): string[] {
  const bullet = (text: string) => wrapText(`- ${text}`, width, '    ').map((l) => `  ${l}`);
  return [
    'what the paper fixed:',
    ...Object.entries(p.fixed).flatMap(([k, v]) => wrapText(`${k}: ${v}`, width - 2, '    ').map((l) => `  ${l}`)),
    '',
    "what differs in Ariadne's protocol:",
    ...p.differences.flatMap(bullet),
    ...p.published.flatMap((n) => n.differs.map((d) => `${n.id}: ${d}`)).flatMap(bullet),
    ...(p.gaps.length > 0
      ? ['', 'not in the sources read (left out, or not compared):', ...p.gaps.flatMap(bullet)]
      : []),
  ];
}

function headerLines(p: Protocol, width: number): string[] {
  return [
    ...wrapText(`${p.protocol}: ${p.title}`, width),
    ...Object.entries(p.sources).flatMap(([key, s]) => [
      ...wrapText(`source ${key}: ${citation(s)}`, width, '    '),
      ...wrapText(`read: ${s.read}`, width, '      ').map((l) => `  ${l}`),
    ]),
  ];
}

function protocolLines(p: Protocol, argument: string, layout: TableLayout): string[] {
  const { lines, hidden } = renderTable(p.published, NUMBER_COLUMNS, layout);
  const run = commands(p, argument);
  const numberLines = (x: PublishedNumber) => [
    `${x.id}: ${x.claim}`,
    `  where: ${x.source}, ${x.where}`,
    ...(x.n_source ? [`  n: ${x.n_source}`] : []),
  ];
  return [
    ...headerLines(p, layout.width),
    '',
    'published numbers (success rates; ours_from: the group of the sweep each is compared with):',
    ...lines,
    ...hiddenNote(hidden),
    ...p.published.flatMap(numberLines).flatMap((l) => wrapText(l, layout.width, '      ')),
    '',
    ...protocolNotes(p, layout.width),
    '',
    `run it: ${run.sweep}`,
    `then:   ${run.replicate}`,
  ];
}

/** The note on simulated runs, on runs missing, and where the sweep is not the protocol's file. */
function comparisonNotes(rows: ComparisonRow[], differs: string[], width: number): string[] {
  const simulated = rows.filter((r) => r.ours.simulatedRuns > 0).map((r) => r.id);
  return [
    ...(differs.length > 0
      ? wrapText(
          `this sweep differs from the protocol's file in ${differs.join(', ')}: ours is of the sweep as it ran, ` +
            'not of the protocol',
          width,
        )
      : []),
    ...(simulated.length > 0
      ? wrapText(
          `${simulated.join(', ')}: answered by a bundled simulator, not a model: a check of the machinery, ` +
            'not a replication',
          width,
        )
      : []),
  ];
}

function comparisonLines(
  p: Protocol,
  sweepId: string,
  rows: ComparisonRow[],
  differs: string[],
  layout: TableLayout,
): string[] {
  const { lines, hidden } = renderTable(rows, COMPARISON_COLUMNS, layout);
  const width = layout.width;
  const margin = (EQUIVALENCE_MARGIN * 100).toFixed(0);
  return [
    ...headerLines(p, width),
    '',
    ...wrapText(`published numbers against sweep ${sweepId}:`, width),
    ...lines,
    ...hiddenNote(hidden),
    ...wrapText(
      'ours: success rate (successes/independent runs) of the group the number names, maze95 its interval at the ' +
        'level of the maze (the unit of replication). diff95_pts: ours - theirs in percentage points, 95% ' +
        "(Newcombe's square-and-add: our maze interval, their Wilson interval of k/n; n?: an n not from the " +
        `source). verdict: differs when it excludes 0; consistent when it lies within +-${margin} points; ` +
        'inconclusive when it holds 0 but is wider than that, or when they give no n (no interval for theirs can ' +
        'be computed). Each at 95%, not corrected for the several numbers.',
      width,
    ),
    ...rows.flatMap((r) =>
      wrapText(`${r.id} (${selectorText(r.group ?? r.selector)}): ${r.verdict.reason}`, width, '    '),
    ),
    ...comparisonNotes(rows, differs, width),
    '',
    ...protocolNotes(p, width),
  ];
}

const protocolJson = (p: Protocol, argument: string) => ({
  protocol: p.protocol,
  title: p.title,
  file: p.file,
  sweep_file: p.sweepFile,
  sources: p.sources,
  fixed: p.fixed,
  published: p.published,
  differences: p.differences,
  gaps: p.gaps,
  commands: commands(p, argument),
});

async function compare(argument: string, p: Protocol, sweepId: string, o: Options): Promise<void> {
  await withResultsDatabase(o, async (db) => {
    await requireSweep(db, sweepId);
    const byFactors = new Map<string, GroupStatistics[]>();
    for (const factors of new Set(p.published.map((x) => JSON.stringify(Object.keys(x.ours)))))
      byFactors.set(factors, (await sweepStatistics(db, sweepId, { by: JSON.parse(factors) as string[] })).groups);
    const rows = compareNumbers(p.published, (factors) => byFactors.get(JSON.stringify(factors))!);
    const differs = specDifferences(p.sweep.spec, (await sweepSpec(db, sweepId))!);
    printTableOutput(o, {
      table: (layout) => comparisonLines(p, sweepId, rows, differs, layout),
      csv: () =>
        rows.map((r) => ({
          number: r.id,
          ...Object.fromEntries(Object.entries(r.group ?? r.selector)),
          theirs: r.theirs.value,
          their_successes: r.theirs.successes ?? null,
          their_n: r.theirs.n ?? null,
          their_n_source: r.theirs.nSource ?? null,
          ours: r.ours.rate,
          our_successes: r.ours.successes,
          our_runs: r.ours.runs,
          maze95_low: r.ours.low,
          maze95_high: r.ours.high,
          mazes: r.ours.mazes,
          verdict: r.verdict.verdict,
          test: r.verdict.test,
          difference: r.verdict.difference?.estimate ?? null,
          difference95_low: r.verdict.difference?.low ?? null,
          difference95_high: r.verdict.difference?.high ?? null,
          margin: r.verdict.margin,
          simulated_runs: r.ours.simulatedRuns,
        })),
      json: () => ({
        ...protocolJson(p, argument),
        comparison: { sweep: sweepId, differs_from_protocol: differs, rows },
      }),
    });
  });
}

function listProtocols(o: Options): void {
  const all = protocolNames().map((name) => findProtocol(name));
  const columns: Column<Protocol>[] = [
    { header: 'protocol', cell: (p) => p.protocol },
    { header: 'numbers', cell: (p) => p.published.length, align: 'right' },
    {
      header: 'source',
      cell: (p) => Object.values(p.sources).map((s) => (s.arxiv ? `arXiv:${s.arxiv}` : s.url))[0],
    },
    { header: 'title', cell: (p) => p.title, cut: true },
  ];
  printTableOutput(o, {
    table: (layout) => {
      const { lines, hidden } = renderTable(all, columns, layout);
      return [...lines, ...hiddenNote(hidden), `show one: ${commandPrefix()} replicate <protocol>`];
    },
    csv: () => all.map((p) => ({ protocol: p.protocol, numbers: p.published.length, title: p.title })),
    json: () => all.map((p) => protocolJson(p, p.protocol)),
  });
}

async function replicate(argument: string | undefined, o: Options): Promise<void> {
  outputFormat(o); // a contradiction costs nothing
  if (o.sweep === undefined && o.aws)
    throw new InvalidInputError('--aws', true, '--aws reads a sweep that ran: it goes with --sweep');
  if (argument === undefined) {
    if (o.sweep !== undefined)
      throw new InvalidInputError(
        '--sweep',
        o.sweep,
        '--sweep compares a protocol: name it (ariadne replicate <protocol>)',
      );
    listProtocols(o);
    return;
  }
  const p = protocolOf(argument);
  if (o.sweep !== undefined) return compare(argument, p, o.sweep, o);
  printTableOutput(o, {
    table: (layout) => protocolLines(p, argument, layout),
    csv: () =>
      p.published.map((x) => ({
        number: x.id,
        model: x.model,
        value: x.value,
        successes: x.successes ?? null,
        n: x.n ?? null,
        source: x.source,
        where: x.where,
        ours: selectorText(x.ours),
      })),
    json: () => protocolJson(p, argument),
  });
}

export function registerReplicateCommand(program: Command): void {
  const command = addResultsSourceOptions(
    addTableOutputOptions(
      program
        .command('replicate')
        .description(
          'a published protocol as data (examples/protocols/): what the paper fixed, its published numbers with ' +
            'their sources, what differs here and the sweep that runs it; with --sweep, ours beside each number ' +
            '(maze-level 95% interval) with a verdict; without a protocol, the list',
        )
        .argument('[protocol]', 'a protocol name (mazebench, spatialbench, mazeeval), or a .published.yaml file')
        .addOption(new Option('--sweep <id>', 'a sweep that ran the protocol: compare its results with the numbers')),
      'as JSON',
    ),
  ).action(replicate);
  withExample(command, 'ariadne replicate mazeeval --sweep mazeeval');
}
