// The commands that read stored results: summary, replay, report, export, compare. Files go to the output
// directory (see output-dir.ts) and are printed with absolute paths.
import { dirname } from 'node:path';
import { Option, type Command } from 'commander';
import type { Sql } from '../../../core/store/sql.ts';
import type { ExportProgress } from '../../../reports/export.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import { NotFoundError } from '../exit-codes.ts';
import { InvalidInputError } from '../../../core/errors.ts';
import { isFileError } from '../file-errors.ts';
import { withExample } from '../help.ts';
import { commandPrefix } from '../invocation.ts';
import { choiceOption, intOption, jsonOption } from '../options.ts';
import { terminalWidth, wrapText } from '../table.ts';
import {
  describeSize,
  outDirOption,
  outputDirectory,
  outputError,
  outputFile,
  writeOutput,
  writtenFile,
  type OutputTarget,
} from '../output-dir.ts';
import { sweepRecord } from '../../../results/sweep-runs.ts';
import { summaryOf } from '../../../results/summary-row.ts';
import { showSummary } from '../summary.ts';
import { loadReplay } from '../../../reports/replay-data.ts';
import { replayHtml } from '../../../reports/replay-page.ts';
import { writeReport } from '../../../reports/write-report.ts';
import {
  exportOpen,
  exportSweep as writeSweepExport,
  isOpenFormat,
  OPEN_FORMATS,
  type ExportFormat,
} from '../../../reports/export.ts';
import { exportedRun } from '../../../results/run-export.ts';
import { compareAgents, compareSettings } from '../../../reports/compare.ts';
import { compareAllAgents } from '../../../reports/compare-all.ts';
import { showAllPairs } from '../compare-all.ts';
import { formatNumber } from '../../../reports/stat-format.ts';
import { MIN_TEST_MAZES } from '../../../reports/maze-inference.ts';
import { ExperimentNotFoundError } from '../../../core/errors.ts';

/** What --no-behaviour says it skips (report, stats). */
export const BEHAVIOUR_SKIP =
  'leave out how the runs moved (loops, wall bumps, revisits, ...): those figures read every move of every counted ' +
  'run, about a second a million actions over pg';

const noExperiment = (id: string) =>
  new NotFoundError('experiment-id', id, `no experiment with id "${id}"; list them with: ${commandPrefix()} list`);

/** A NotFoundError naming the way to list sweeps, unless the sweep exists. */
export async function requireSweep(db: Sql, sweepId: string): Promise<void> {
  if ((await sweepRecord(db, sweepId)) === null)
    throw new NotFoundError(
      'sweep',
      sweepId,
      `no sweep named "${sweepId}"; list them with: ${commandPrefix()} list --sweeps`,
    );
}

/** A name from an id that stays one file name whatever the id holds. */
const fileName = (id: string) => id.replace(/[^A-Za-z0-9_.-]/g, '_');

/** Runs `write`, turning a file error under `target` into a message naming its option (exit 2). */
async function writingTo<T>(target: OutputTarget, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isFileError(err)) throw outputError(target, err);
    throw err;
  }
}

const printJson = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

async function summary(id: string, o: ResultsSource & { json?: boolean }): Promise<void> {
  await withResultsDatabase(o, async (db) => {
    const found = await summaryOf(db, id);
    if (!found) throw noExperiment(id);
    await showSummary(db, found, o.json === true);
  });
}

async function replay(id: string, o: ResultsSource & { out?: string; json?: boolean }, cmd: Command): Promise<void> {
  // checked before anything runs: a path that cannot be written fails now, not after the work
  const target = outputFile(cmd, o.out, `replay-${fileName(id)}.html`);
  await withResultsDatabase(o, async (db) => {
    let data;
    try {
      data = await loadReplay(db, id);
    } catch (err) {
      if (err instanceof ExperimentNotFoundError) throw noExperiment(id);
      throw err;
    }
    const file = writeOutput(target, replayHtml(data));
    if (o.json) printJson({ experiment_id: id, steps: data.steps, files: [file] });
    else
      process.stdout.write(`${file.path} (${describeSize(file.bytes)}, ${data.steps} steps): open it in a browser\n`);
  });
}

async function report(
  sweepId: string,
  o: ResultsSource & { out?: string; maxReplays: number; behaviour: boolean; json?: boolean },
  cmd: Command,
) {
  const target = outputFile(cmd, o.out, `report-${fileName(sweepId)}.html`);
  await withResultsDatabase(o, async (db) => {
    await requireSweep(db, sweepId);
    const written = await writingTo(target, () =>
      writeReport(db, sweepId, target.path, o.maxReplays, { behaviour: o.behaviour }),
    );
    const reportFile = writtenFile(written.report);
    const replays = written.replayFiles.map(writtenFile);
    if (o.json) {
      printJson({
        sweep: sweepId,
        report: reportFile.path,
        replay_dir: written.replayDir,
        replays: replays.length,
        files: [reportFile, ...replays],
      });
      return;
    }
    process.stdout.write(
      `${reportFile.path} (${describeSize(reportFile.bytes)}): open it in a browser\n` +
        (replays.length > 0
          ? `${replays.length} replays of the runs that did not succeed in ${written.replayDir}\n`
          : 'no replays: every run succeeded\n'),
    );
  });
}

const EXPORT_FORMATS = ['csv', 'jsonl', 'parquet', ...OPEN_FORMATS] as const;

/** On a terminal, one line redrawn as pages arrive: the table, rows so far of how many, percent. */
function exportProgress(stream: NodeJS.WriteStream) {
  if (!stream.isTTY) return undefined;
  return (p: ExportProgress) => {
    const pct = p.total > 0 ? Math.floor((100 * p.rows) / p.total) : 100;
    stream.write(
      `\r\x1b[2Kexporting ${p.table}: ${p.rows.toLocaleString('en')} / ${p.total.toLocaleString('en')} (${pct}%)`,
    );
    if (p.rows >= p.total) stream.write('\n');
  };
}

/** What a file's rows are: a sample of an Inspect log, a trace, else a row. */
const rowWord = (format: ExportFormat, n: number) =>
  `${n} ${format === 'otlp' ? 'trace' : isOpenFormat(format) ? 'sample' : 'row'}${n === 1 ? '' : 's'}`;

type ExportOptions = ResultsSource & { format: ExportFormat; run?: string; json?: boolean };

/** A sweep, or one run with --run (the open formats only): never both, never neither. */
function checkExportArguments(sweepId: string | undefined, o: ExportOptions): void {
  if (o.run !== undefined && sweepId !== undefined)
    throw new InvalidInputError(
      '--run',
      o.run,
      `export a sweep (${commandPrefix()} export SWEEP) or one run (--run ID), not both`,
    );
  if (o.run === undefined && sweepId === undefined)
    throw new InvalidInputError(
      'sweep',
      '',
      `name a sweep (${commandPrefix()} export SWEEP), or one run with --run ID`,
    );
  if (o.run !== undefined && !isOpenFormat(o.format))
    throw new InvalidInputError(
      '--format',
      o.format,
      `one run exports as ${OPEN_FORMATS.join(', ')}; csv, jsonl and parquet export a whole sweep`,
    );
}

async function exportSweep(sweepId: string | undefined, o: ExportOptions, cmd: Command): Promise<void> {
  checkExportArguments(sweepId, o);
  const dir = outputDirectory(cmd);
  await withResultsDatabase(o, async (db) => {
    if (sweepId !== undefined) await requireSweep(db, sweepId);
    else if ((await exportedRun(db, o.run!)) === null) throw noExperiment(o.run!);
    const progress = exportProgress(process.stderr);
    const write = () =>
      sweepId !== undefined
        ? writeSweepExport(db, sweepId, o.format, dir.path, progress)
        : exportOpen(db, { run: o.run! }, o.format as (typeof OPEN_FORMATS)[number], dir.path, progress);
    const files = (await writingTo(dir, write)).map((f) => ({ ...writtenFile(f.file), rows: f.rows }));
    const what = sweepId !== undefined ? { sweep: sweepId } : { experiment_id: o.run };
    if (o.json) {
      printJson({ ...what, format: o.format, files });
      return;
    }
    for (const f of files) process.stdout.write(`${f.path}: ${rowWord(o.format, f.rows)}, ${describeSize(f.bytes)}\n`);
    if (o.format === 'inspect' || o.format === 'inspect-eval')
      process.stdout.write(`open them with: inspect view --log-dir ${dirname(files[0]?.path ?? dir.path)}\n`);
  });
}

/** "[0.1250, 0.5000] over 8 mazes", or "too few mazes (1)". */
function intervalOrTooFew(i: { low95: number | null; high95: number | null }, mazes: number): string {
  if (i.low95 === null || i.high95 === null) return `- (too few mazes: ${mazes})`;
  return `[${i.low95.toFixed(4)}, ${i.high95.toFixed(4)}] over ${mazes} maze${mazes === 1 ? '' : 's'}`;
}

type CompareOptions = ResultsSource & { agent?: string; factor?: string; all?: boolean; json?: boolean };

/** --all takes the sweep alone; without it, two agents (or values) are needed. */
function checkCompareArguments(a: string | undefined, b: string | undefined, o: CompareOptions): void {
  if (o.all === true) {
    if ((o.agent === undefined) !== (o.factor === undefined))
      throw new InvalidInputError(
        o.agent === undefined ? '--agent' : '--factor',
        o.agent ?? o.factor,
        '--all with a setting needs both --agent LABEL and --factor SETTING (every pair of its values)',
      );
    if (a !== undefined)
      throw new InvalidInputError(
        'a',
        a,
        `--all compares every pair of agents: give the sweep alone (${commandPrefix()} compare SWEEP --all), ` +
          'or two agents without --all',
      );
    return;
  }
  if (a === undefined || b === undefined)
    throw new InvalidInputError(
      a === undefined ? 'a' : 'b',
      '',
      `name two agents of the sweep (${commandPrefix()} compare SWEEP A B), or compare every pair with ` +
        `${commandPrefix()} compare SWEEP --all`,
    );
}

async function compare(sweep: string, a: string | undefined, b: string | undefined, o: CompareOptions) {
  checkCompareArguments(a, b, o);
  if (o.all === true) {
    await withResultsDatabase(o, async (db) => {
      await requireSweep(db, sweep);
      const values = o.agent !== undefined ? { agent: o.agent, factor: o.factor! } : undefined;
      showAllPairs(await compareAllAgents(db, sweep, 0.05, values), o.json === true);
    });
    return;
  }
  await compareTwo(sweep, a!, b!, o);
}

async function compareTwo(sweep: string, a: string, b: string, o: CompareOptions) {
  if ((o.agent === undefined) !== (o.factor === undefined))
    throw new InvalidInputError(
      o.agent === undefined ? '--agent' : '--factor',
      o.agent ?? o.factor ?? '',
      'compare two settings of one agent with both --agent LABEL and --factor SETTING, e.g. ' +
        'ariadne compare SWEEP --agent qwen2.5:7b --factor observation rays full_map',
    );
  await withResultsDatabase(o, async (db) => {
    await requireSweep(db, sweep);
    const c =
      o.agent !== undefined && o.factor !== undefined
        ? await compareSettings(db, sweep, o.agent, o.factor, a, b)
        : await compareAgents(db, sweep, a, b);
    if (o.json) {
      printJson(c);
      return;
    }
    const what = c.factor ? `${c.agent}: ${c.factor} ${c.a} vs ${c.b}` : `${c.a} vs ${c.b}`;
    const same = c.factor ? 'same maze, repeat and other settings' : 'same maze, settings, repeat';
    const lines = [`${what} in sweep ${c.sweep} (${same}; the maze is the unit: tests and intervals over mazes)`];
    for (const g of c.groups) {
      const e = g.efficiency;
      const d = g.successDiff;
      const settings = Object.entries(g.settings).map(
        ([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`,
      );
      lines.push(
        `${settings.length > 0 ? settings.join(' ') : 'all runs'}: ${g.pairs} pairs on ${g.mazes} mazes`,
        `  both solved ${g.bothSolved}, only ${c.a} ${g.onlyA}, only ${c.b} ${g.onlyB}, neither ${g.neither}`,
        `  sign-flip test over ${g.test.mazes} mazes (${g.test.differing} differ): p = ${formatNumber(g.test.p, 4)}` +
          `${c.groups.length > 1 ? `, Holm-adjusted p = ${formatNumber(g.test.holmP, 4)}` : ''}` +
          ` (the smallest p ${g.test.differing} differing mazes allow: ${formatNumber(g.test.minP, 4)}` +
          `${g.test.differing < MIN_TEST_MAZES ? `; fewer than ${MIN_TEST_MAZES} cannot reach 0.05` : ''})`,
        `  success ${c.a} - ${c.b}: ${formatNumber(d.diff, 4)}, 95% interval ${intervalOrTooFew(d, g.mazes)}`,
        `  SPL ${c.a} - ${c.b}: ${formatNumber(g.spl.meanDiff, 4)}, ` +
          `95% interval ${intervalOrTooFew(g.spl, g.spl.mazes)}`,
        `  efficiency (successes only) ${c.a} - ${c.b} over ${e.pairs} pairs both solved: mean ` +
          `${formatNumber(e.meanDiff, 4)}, 95% interval ${intervalOrTooFew(e, e.mazes)}`,
      );
    }
    lines.push(...c.notes.map((n) => `  ${n}`));
    // fitted as the tables are: a long line goes on, indented, on the next
    const width = terminalWidth();
    const wrapped = lines.flatMap((l) => wrapText(l, width, l.startsWith(' ') ? '    ' : '  '));
    process.stdout.write(`${wrapped.join('\n')}\n`);
  });
}

function registerSummary(program: Command): void {
  const summaryCommand = addResultsSourceOptions(
    program
      .command('summary')
      .description(
        'show the summary of a stored experiment, with how it moved: loops, wall bumps, revisits, coverage by ' +
          'step, exploration against the frontier baseline and where progress stopped',
      )
      .argument('<experiment-id>')
      .addOption(jsonOption('as JSON, with every stuck signal')),
  ).action(summary);
  withExample(summaryCommand, 'ariadne summary demo-1 --json');
}

function registerReplay(program: Command): void {
  const replayCommand = addResultsSourceOptions(
    program
      .command('replay')
      .description(
        'write a self-contained HTML replay of an experiment: the maze, path, vision, known tiles, phases, signals, ' +
          'tokens and words per step',
      )
      .argument('<experiment-id>')
      .option(
        '--out <file>',
        'where to write it, relative to the directory you run ariadne from ' +
          '(default: replay-<experiment-id>.html in the output directory)',
      )
      .addOption(outDirOption())
      .addOption(jsonOption('the file written, as JSON')),
  ).action(replay);
  withExample(replayCommand, 'ariadne replay demo-1 --out demo-1.html');
}

function registerReport(program: Command): void {
  const reportCommand = addResultsSourceOptions(
    program
      .command('report')
      .description(
        'write a self-contained HTML report of a sweep: statistics tables, how the runs moved (loops, wall bumps, ' +
          'revisits, ...), charts, and replays of the runs that did not succeed',
      )
      .argument('<sweep>')
      .option(
        '--out <file>',
        'where to write it, relative to the directory you run ariadne from (default: report-<sweep>.html in the ' +
          'output directory); replays go to <name>-replays/ beside it',
      )
      .addOption(outDirOption())
      .addOption(
        new Option('--max-replays <n>', 'replays to write for runs that did not succeed')
          .default(50)
          .argParser(intOption('--max-replays', 0, 10_000)),
      )
      .option('--no-behaviour', BEHAVIOUR_SKIP)
      .addOption(jsonOption('the files written, as JSON')),
  ).action(report);
  withExample(reportCommand, 'ariadne report baselines-example --max-replays 10');
}

function registerExport(program: Command): void {
  const exportCommand = addResultsSourceOptions(
    program
      .command('export')
      .description(
        "export a sweep's experiments and actions as CSV, JSON Lines or Parquet (for pandas, R, DuckDB): " +
          '<sweep>-experiments.<format> and <sweep>-actions.<format> in the output directory; or a sweep or one ' +
          'run (--run) as Inspect AI eval logs that `inspect view` opens (<name>-inspect/, one log per agent and ' +
          'settings) or as OpenTelemetry GenAI spans in OTLP JSON (<name>-traces.otlp.jsonl, a trace per run)',
      )
      .argument('[sweep]', 'the sweep (none with --run)')
      .option('--run <experiment-id>', 'export one run instead of a sweep (inspect, inspect-eval or otlp)')
      .addOption(
        new Option(
          '--format <format>',
          'csv, jsonl, parquet (typed columns, compressed: pandas, R arrow, DuckDB), inspect (Inspect AI .json ' +
            'logs), inspect-eval (Inspect AI .eval logs) or otlp (OTLP JSON lines of GenAI spans)',
        )
          .default('csv')
          .argParser(choiceOption('--format', EXPORT_FORMATS)),
      )
      .addOption(outDirOption())
      .addOption(jsonOption('the files written, as JSON')),
  ).action(exportSweep);
  withExample(exportCommand, 'ariadne export baselines-example --format jsonl --out-dir exports');
}

function registerCompare(program: Command): void {
  const compareCommand = addResultsSourceOptions(
    program
      .command('compare')
      .description(
        'paired comparison on the same mazes and repeats, split by every other setting the sweep varies: two ' +
          'agents (same settings), or with --agent and --factor two values of one setting for one agent; the exact ' +
          'sign-flip test of the per-maze differences (Holm-adjusted over the tables) and maze-level 95% ' +
          'intervals of the success, SPL and efficiency differences, each beside the number of mazes. With --all ' +
          '(no a, b): every pair of agents, Holm-adjusted over the pairs of each combination of the other ' +
          'settings, and the agents ranked in tie groups (rank = 1 + the agents significantly better)',
      )
      .argument('<sweep>')
      .argument('[a]', 'an agent label of the sweep (with --factor: a value of the setting); none with --all')
      .argument('[b]', 'another one')
      .option('--agent <label>', 'compare two values of a setting for this agent (with --factor)')
      .option('--factor <setting>', 'the setting whose values <a> and <b> are (e.g. observation)')
      .option(
        '--all',
        "every pair of the sweep's agents (with --agent and --factor: of a setting's values for that agent), ranked " +
          'in tie groups at 5% (Holm)',
      )
      .addOption(jsonOption('as JSON')),
  ).action(compare);
  withExample(compareCommand, 'ariadne compare baselines-example --all');
}

export function registerResultCommands(program: Command): void {
  registerSummary(program);
  registerReplay(program);
  registerReport(program);
  registerExport(program);
  registerCompare(program);
}
