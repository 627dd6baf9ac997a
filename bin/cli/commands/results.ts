// The commands that read stored results: summary, replay, report, export, compare.
import { writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { withCliDatabase } from '../database.ts';
import { NotFoundError } from '../exit-codes.ts';
import { withExample } from '../help.ts';
import { commandPrefix } from '../invocation.ts';
import { choiceOption, intOption, jsonOption } from '../options.ts';
import { showSummary } from '../summary.ts';

const noExperiment = (id: string) =>
  new NotFoundError('experiment-id', id, `no experiment with id "${id}"; list them with: ${commandPrefix()} list`);

async function summary(id: string, o: { json?: boolean }): Promise<void> {
  await withCliDatabase(async (db) => {
    const { summaryOf } = await import('../../../state-machine/local-experiment.ts');
    const found = await summaryOf(db, id);
    if (!found) throw noExperiment(id);
    await showSummary(db, found, o.json === true);
  });
}

async function replay(id: string, o: { out?: string }): Promise<void> {
  await withCliDatabase(async (db) => {
    const { loadReplay } = await import('../../../reports/replay-data.ts');
    const { replayHtml } = await import('../../../reports/replay-page.ts');
    let data;
    try {
      data = await loadReplay(db, id);
    } catch (err) {
      if ((err as Error).name === 'ExperimentNotFoundError') throw noExperiment(id);
      throw err;
    }
    const out = o.out ?? `replay-${id}.html`;
    const html = replayHtml(data);
    writeFileSync(out, html);
    process.stdout.write(`${out} (${(html.length / 1024).toFixed(0)} KB, ${data.steps} steps): open it in a browser\n`);
  });
}

async function report(sweepId: string, o: { out?: string; maxReplays: number }): Promise<void> {
  await withCliDatabase(async (db) => {
    const { writeReport } = await import('../../../reports/write-report.ts');
    const written = await writeReport(db, sweepId, o.out ?? `report-${sweepId}.html`, o.maxReplays);
    process.stdout.write(
      `${written.report} (${written.kb} KB) and ${written.replays} replays in ${written.replayDir}: ` +
        'open the report in a browser\n',
    );
  });
}

const EXPORT_FORMATS = ['csv', 'jsonl'] as const;

async function exportSweep(sweepId: string, o: { format: (typeof EXPORT_FORMATS)[number]; out: string }) {
  await withCliDatabase(async (db) => {
    const exists = await db.pool.query('SELECT 1 FROM sweeps WHERE id = $1', [sweepId]);
    if (exists.rowCount === 0)
      throw new NotFoundError(
        'sweep',
        sweepId,
        `no sweep named "${sweepId}"; list them with: ${commandPrefix()} list --sweeps`,
      );
    const { exportSweep } = await import('../../../reports/export.ts');
    for (const f of await exportSweep(db, sweepId, o.format, o.out))
      process.stdout.write(`${f.file}: ${f.rows} rows\n`);
  });
}

async function compare(sweep: string, a: string, b: string, o: { resamples: number; json?: boolean }) {
  await withCliDatabase(async (db) => {
    const { compareAgents } = await import('../../../reports/compare.ts');
    const c = await compareAgents(db, sweep, a, b, o.resamples);
    if (o.json) {
      process.stdout.write(`${JSON.stringify(c, null, 2)}\n`);
      return;
    }
    const f = (x: number | null, d = 4) => (x === null ? '-' : x.toFixed(d));
    const e = c.efficiency;
    process.stdout.write(
      [
        `${c.a} vs ${c.b} in sweep ${c.sweep}: ${c.pairs} paired runs (same maze, settings, repeat)`,
        `  both solved ${c.bothSolved}, only ${c.a} ${c.onlyA}, only ${c.b} ${c.onlyB}, neither ${c.neither}`,
        `  McNemar exact p = ${f(c.mcnemarP, 6)}`,
        `  efficiency ${c.a} - ${c.b} over ${e.pairs} pairs both solved: mean ${f(e.meanDiff)}, ` +
          `95% bootstrap interval [${f(e.low95)}, ${f(e.high95)}] (${e.resamples} resamples, seed 1)`,
      ].join('\n') + '\n',
    );
  });
}

export function registerResultCommands(program: Command): void {
  const summaryCommand = program
    .command('summary')
    .description('show the summary of a stored experiment')
    .argument('<experiment-id>')
    .addOption(jsonOption('as JSON'))
    .action(summary);
  withExample(summaryCommand, 'ariadne summary demo-1 --json');

  const replayCommand = program
    .command('replay')
    .description(
      'write a self-contained HTML replay of an experiment: the maze, path, vision, known tiles, phases, signals, ' +
        'tokens and words per step',
    )
    .argument('<experiment-id>')
    .option('--out <file>', 'where to write it (default: replay-<experiment-id>.html)')
    .action(replay);
  withExample(replayCommand, 'ariadne replay demo-1 --out demo-1.html');

  const reportCommand = program
    .command('report')
    .description(
      'write a self-contained HTML report of a sweep: statistics tables, charts, and replays of the runs that did ' +
        'not succeed',
    )
    .argument('<sweep>')
    .option('--out <file>', 'where to write it (default: report-<sweep>.html; replays go to <name>-replays/ beside it)')
    .addOption(
      new Option('--max-replays <n>', 'replays to write for runs that did not succeed')
        .default(50)
        .argParser(intOption('--max-replays', 0, 10_000)),
    )
    .action(report);
  withExample(reportCommand, 'ariadne report baselines-example --max-replays 10');

  const exportCommand = program
    .command('export')
    .description("export a sweep's experiments and actions as CSV or JSON Lines (for pandas, R)")
    .argument('<sweep>')
    .addOption(
      new Option('--format <format>', 'csv or jsonl')
        .default('csv')
        .argParser(choiceOption('--format', EXPORT_FORMATS)),
    )
    .option('--out <dir>', 'directory for <sweep>-experiments.<format> and <sweep>-actions.<format>', '.')
    .action(exportSweep);
  withExample(exportCommand, 'ariadne export baselines-example --format jsonl --out exports');

  const compareCommand = program
    .command('compare')
    .description(
      'compare two agents of a sweep on the same mazes: McNemar exact test on success, paired bootstrap of the ' +
        'efficiency difference',
    )
    .argument('<sweep>')
    .argument('<a>', 'an agent label of the sweep')
    .argument('<b>', 'another one')
    .addOption(
      new Option('--resamples <n>', 'bootstrap resamples')
        .default(10_000)
        .argParser(intOption('--resamples', 100, 1_000_000)),
    )
    .addOption(jsonOption('as JSON'))
    .action(compare);
  withExample(compareCommand, 'ariadne compare baselines-example random frontier');
}
