// ariadne suite: the named, versioned maze suites (core/maze/suites.ts): list them, show one's mazes and the
// baselines' reference scores, write the sweep that made those scores, and verify that this installation generates
// the suite's mazes byte for byte (before its numbers on them are compared with anyone's).
import { noiseFloorText } from '../../../reports/noise-floor.ts';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import type { MazeSuite, ReferenceStats, RegisteredSuite } from '../../../core/maze/suites.ts';
import { formatInterval, formatNumber, formatRate } from '../../../reports/stat-format.ts';
import { EXIT } from '../exit-codes.ts';
import { describeFileError, isFileError } from '../file-errors.ts';
import { withExample } from '../help.ts';
import { commandPrefix } from '../invocation.ts';
import { jsonOption } from '../options.ts';
import { describeSize, outDirOption, outputFile, userDirectory, writeOutput } from '../output-dir.ts';
import { hiddenNote, renderTable, wrapText, type Column, type TableLayout } from '../table.ts';
import { addTableOutputOptions, outputFormat, printTableOutput, type TableOutputOptions } from '../table-output.ts';
import * as suites from '../../../core/maze/suites.ts';
import { humanReference, type HumanReference } from '../../../reports/human-reference.ts';
import { humanLines, registerRecordHumans } from './suite-humans.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';

const SUITE_ARGUMENT = 'a suite as <name>/v<version> (see ariadne suite list), or a suite file (.json)';

/** A known suite by name, or a suite file (a lab checking a copy it was sent): checked whole either way. */
function suiteOf(arg: string): RegisteredSuite {
  const { findSuite, parseSuite, suiteRef } = suites;
  if (!arg.endsWith('.json')) return findSuite(arg);
  const path = resolve(userDirectory(), arg);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const why = isFileError(err) ? describeFileError(err) : `not JSON: ${(err as Error).message}`;
    throw new InvalidInputError('suite', arg, `suite file "${arg}" cannot be read (${path}): ${why}`);
  }
  const suite = parseSuite(json, arg);
  return { ref: suiteRef(suite), file: path, suite };
}

const list = (xs: unknown[]) => xs.join(', ');

type ListRow = ReturnType<typeof listRow>;

function listRow({ ref, file, suite }: RegisteredSuite) {
  return {
    suite: ref,
    mazes: suite.mazes.length,
    generators: list(suite.generators),
    sizes: list(suite.sizes),
    seeds: suite.seeds.length,
    description: suite.description,
    file,
  };
}

const LIST_COLUMNS: Column<ListRow>[] = [
  { header: 'suite', cell: (r) => r.suite },
  { header: 'mazes', cell: (r) => r.mazes, align: 'right' },
  { header: 'generators', cell: (r) => r.generators, cut: true, drop: 3 },
  { header: 'sizes', cell: (r) => r.sizes, drop: 2 },
  { header: 'seeds', cell: (r) => r.seeds, align: 'right', drop: 4 },
  { header: 'description', cell: (r) => r.description, cut: true, drop: 1 },
];

function listCommand(o: TableOutputOptions): void {
  outputFormat(o);
  const known = suites.listSuites();
  printTableOutput(o, {
    table: (layout) => {
      const { lines, hidden } = renderTable(known.map(listRow), LIST_COLUMNS, layout);
      return [...lines, ...hiddenNote(hidden)];
    },
    csv: () => known.map(listRow),
    json: () =>
      known.map(({ ref, file, suite: s }) => ({
        suite: ref,
        file,
        name: s.name,
        version: s.version,
        description: s.description,
        generators: s.generators,
        sizes: s.sizes,
        seeds: s.seeds,
        mazes: s.mazes.length,
        config: s.config,
      })),
  });
}

/** One row of the reference: a baseline over one generator and size, or over all mazes ("all"). */
type ReferenceRow = { agent: string; generator: string; size: number | 'all' } & ReferenceStats;

function referenceRows(s: MazeSuite): ReferenceRow[] {
  // the baselines in the file's order (random, then frontier)
  return (Object.keys(s.reference) as Array<keyof MazeSuite['reference']>).flatMap((agent) => [
    { agent, generator: 'all', size: 'all' as const, ...s.reference[agent].overall },
    ...s.reference[agent].groups.map((g) => ({ agent, ...g })),
  ]);
}

const REFERENCE_COLUMNS: Column<ReferenceRow>[] = (
  [
    { header: 'agent', cell: (r) => r.agent },
    { header: 'generator', cell: (r) => r.generator },
    { header: 'size', cell: (r) => r.size },
    { header: 'n', cell: (r) => r.n },
    { header: 'successes', cell: (r) => r.successes, drop: 3 },
    { header: 'success', cell: (r) => formatRate(r.success_rate) },
    { header: 'wilson95', cell: (r) => formatInterval(r.wilson95_low, r.wilson95_high) },
    { header: 'efficiency', cell: (r) => formatNumber(r.mean_efficiency, 3), drop: 1 },
    { header: 'actions', cell: (r) => formatNumber(r.mean_actions, 1), drop: 2 },
  ] satisfies Column<ReferenceRow>[]
).map((c, i): Column<ReferenceRow> => (i < 2 ? c : { ...c, align: 'right' }));

interface MazeGroup {
  generator: string;
  size: number;
  mazes: number;
  paths: number[];
  toSight: number[];
}

const spread = (xs: number[]) =>
  `${Math.min(...xs)}-${Math.max(...xs)}, mean ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1)}`;

const MAZE_COLUMNS: Column<MazeGroup>[] = [
  { header: 'generator', cell: (g) => g.generator },
  { header: 'size', cell: (g) => g.size, align: 'right' },
  { header: 'mazes', cell: (g) => g.mazes, align: 'right' },
  { header: 'shortest_path', cell: (g) => spread(g.paths) },
  { header: 'shortest_path_to_sight', cell: (g) => spread(g.toSight), drop: 1 },
];

function mazeGroups(s: MazeSuite): MazeGroup[] {
  return s.generators.flatMap((generator) =>
    s.sizes.map((size) => {
      const mazes = s.mazes.filter((m) => m.generator === generator && m.size === size);
      return {
        generator,
        size,
        mazes: mazes.length,
        paths: mazes.map((m) => m.shortest_path),
        toSight: mazes.map((m) => m.shortest_path_to_sight),
      };
    }),
  );
}

function showLines({ ref, file, suite: s }: RegisteredSuite, layout: TableLayout): string[] {
  const width = layout.width;
  const mazes = renderTable(mazeGroups(s), MAZE_COLUMNS, layout);
  const reference = renderTable(referenceRows(s), REFERENCE_COLUMNS, layout);
  const made = s.reference_made_with;
  const config = Object.entries(s.config).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return [
    `${ref} (${file})`,
    ...wrapText(s.description, width),
    '',
    ...wrapText(
      `${s.mazes.length} mazes: ${s.generators.length} generators x ${s.sizes.length} sizes (square) x ` +
        `${s.seeds.length} seeds (${list(s.seeds)}).`,
      width,
    ),
    ...wrapText(`config, for every run of the suite: ${config.join(', ')}.`, width),
    '',
    ...mazes.lines,
    ...hiddenNote(mazes.hidden),
    '',
    ...wrapText(
      `reference scores: each baseline once on every maze, under the config above (ariadne ${made.ariadne_version}, ` +
        `commit ${made.commit.slice(0, 12)}, code sha256 ${made.code_hash.slice(0, 12)}, sweep ${made.sweep_name}):`,
      width,
    ),
    ...reference.lines,
    ...hiddenNote(reference.hidden),
    ...wrapText(
      'n: runs, one per maze; success: the goal found (under success_rule), with its Wilson 95% interval; ' +
        'efficiency: optimal moves (under success_rule and vision) / actions, mean over the successes; actions: ' +
        `mean over all runs. To make them again: ${commandPrefix()} suite show ${ref} --sweep, then ` +
        `${commandPrefix()} sweep on the file it writes and ${commandPrefix()} stats ${made.sweep_name} ` +
        '--by label,maze_generator,maze_size.',
      width,
    ),
    '',
    ...wrapText(noiseFloorText(ref, s.noise_floor.overall, s.noise_floor.repeats), width),
  ];
}

interface ShowOptions extends TableOutputOptions, ResultsSource {
  /** A file name, or true for the default name in the output directory. */
  sweep?: string | true;
  outDir?: string;
  /** The human reference from the results database (agent human's games on the suite's mazes). */
  humans?: boolean;
}

/**
 * The reference scores as CSV rows: the baselines', then any human reference (shipped in the file, then from the
 * database with --humans), each row saying which; with no human row, the baselines' columns alone.
 */
function referenceCsv(s: MazeSuite, database: HumanReference | null) {
  const humans = [
    ...(s.human_reference?.rows ?? []).map((r) => ({ reference: 'shipped', ...r })),
    ...(database?.rows ?? []).map((r) => ({ reference: 'database', ...r })),
  ];
  const baselines = referenceRows(s);
  if (humans.length === 0) return baselines;
  return [
    ...baselines.map(({ agent, generator, size, wilson95_low, wilson95_high, ...stats }) => ({
      reference: 'baseline',
      agent,
      player: null,
      observation: null,
      generator,
      size,
      mazes: stats.n,
      n: stats.n,
      successes: stats.successes,
      success_rate: stats.success_rate,
      low95: wilson95_low,
      high95: wilson95_high,
      interval: 'wilson',
      mean_efficiency: stats.mean_efficiency,
      mean_actions: stats.mean_actions,
    })),
    ...humans.map(({ reference, player, observation, generator, size, mazes, ...stats }) => ({
      reference,
      agent: 'human',
      player,
      observation,
      generator,
      size,
      mazes,
      ...stats,
    })),
  ];
}

/** The sweep file that made the reference scores, written for `ariadne sweep`. */
function writeSweep(found: RegisteredSuite, o: ShowOptions, cmd: Command): void {
  if (o.format !== undefined || o.wide)
    throw new InvalidInputError(
      o.format !== undefined ? '--format' : '--wide',
      o.format ?? true,
      '--sweep writes the sweep file and prints where: it takes --json, not --format or --wide',
    );
  const made = found.suite.reference_made_with;
  const target = outputFile(cmd, o.sweep === true ? undefined : o.sweep, `${made.sweep_name}.yaml`, '--sweep');
  const file = writeOutput(target, suites.recordedSweepText(found.suite));
  if (o.json) {
    process.stdout.write(`${JSON.stringify({ suite: found.ref, sweep: made.sweep_name, ...file }, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `${file.path} (${describeSize(file.bytes)}): the sweep that made the reference scores of ${found.ref}\n` +
      `make them again: ${commandPrefix()} sweep ${file.path}, then ${commandPrefix()} stats ${made.sweep_name} ` +
      '--by label,maze_generator,maze_size\n',
  );
}

async function showCommand(arg: string, o: ShowOptions, cmd: Command): Promise<void> {
  if (o.outDir !== undefined && o.sweep === undefined)
    throw new InvalidInputError('--out-dir', o.outDir, '--out-dir goes with --sweep: add --sweep to write the sweep');
  if (!o.humans && (o.aws || o.region !== undefined))
    throw new InvalidInputError('--aws', true, '--aws, --stack and --region say where --humans reads: add --humans');
  if (o.sweep === undefined) outputFormat(o); // a contradiction costs nothing
  const found = suiteOf(arg);
  if (o.sweep !== undefined) {
    if (o.humans) throw new InvalidInputError('--humans', true, '--sweep writes the sweep file; --humans is for show');
    writeSweep(found, o, cmd);
    return;
  }
  const shipped = found.suite.human_reference;
  const print = (humans: HumanReference | null) =>
    printTableOutput(o, {
      table: (layout) => [
        ...showLines(found, layout),
        ...(shipped ? humanLines(found.ref, shipped, { shipped }, layout) : []),
        ...(humans ? humanLines(found.ref, humans, { database: true }, layout) : []),
      ],
      csv: () => referenceCsv(found.suite, humans),
      json: () => ({
        suite: found.ref,
        file: found.file,
        ...found.suite,
        ...(humans ? { database_human_reference: humans } : {}),
      }),
    });
  if (!o.humans) return print(null);
  await withResultsDatabase(o, async (db) => print(await humanReference(db, found.ref, found.suite)));
}

function verifyCommand(arg: string, o: { json?: boolean }): void {
  const found = suiteOf(arg);
  const mismatches = suites.verifySuite(found.suite);
  const differing = new Set(mismatches.map((m) => m.maze)).size;
  const total = found.suite.mazes.length;
  if (mismatches.length > 0) process.exitCode = EXIT.workFailed;
  if (o.json) {
    const result = { suite: found.ref, file: found.file, mazes: total, identical: total - differing, mismatches };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  if (mismatches.length === 0) {
    process.stdout.write(
      `${found.ref}: all ${total} mazes generated here are identical to the suite's ` +
        '(content hash, shortest path, shortest path to sight)\n',
    );
    return;
  }
  process.stdout.write(
    `${found.ref}: ${differing} of ${total} mazes generated here differ from the suite's:\n` +
      mismatches.map((m) => `  ${m.message}\n`).join('') +
      'Numbers from this installation on these mazes do not compare with the reference or with other labs: ' +
      'use the Ariadne version the suite names, or report the difference.\n',
  );
}

export function registerSuiteCommands(program: Command): void {
  // `ariadne suite` alone lists them, as `suite list` does
  const suite = addTableOutputOptions(program.command('suite'), 'the suites as JSON')
    .description(
      'named, versioned maze suites: fixed mazes (each with its content hash), the config to run them under and ' +
        "the baselines' reference scores; list them (also: suite list), show one, verify its mazes here",
    )
    .action(listCommand);
  withExample(suite, 'ariadne suite');

  withExample(
    addTableOutputOptions(suite.command('list'), 'the suites as JSON')
      .description('list the maze suites this installation knows')
      .action(listCommand),
    'ariadne suite list',
  );

  withExample(
    addTableOutputOptions(suite.command('show'), 'the whole suite as JSON: every maze, the config, the reference')
      .description(
        "a suite's mazes by generator and size, the config its runs are played under and the baselines' " +
          'reference scores (csv: the reference scores); or, with --sweep, the sweep that made those scores',
      )
      .argument('<suite>', SUITE_ARGUMENT)
      .addOption(
        new Option(
          '--sweep [file]',
          'write the sweep file that made the reference scores (run it with ariadne sweep to make them again) to ' +
            'this file, or without a name to <sweep>.yaml in the output directory',
        ),
      )
      .addOption(outDirOption())
      .option(
        '--humans',
        "add the human reference: agent human's games on the suite's mazes in the results database (ariadne " +
          'play --suite), per player and for all, by observation format',
      ),
    'ariadne suite show ariadne-mazes/v1',
  );
  addResultsSourceOptions(suite.commands.find((c) => c.name() === 'show')!).action(showCommand);
  registerRecordHumans(suite, suiteOf);

  withExample(
    suite
      .command('verify')
      .description(
        "generate every maze of a suite here and compare it with the suite's content hash and shortest paths: " +
          'exit 0 when all are identical, 1 naming each one that differs',
      )
      .argument('<suite>', SUITE_ARGUMENT)
      .addOption(jsonOption('the result as JSON: the mazes, how many are identical, each difference'))
      .action(verifyCommand),
    'ariadne suite verify ariadne-mazes/v1',
  );
}
