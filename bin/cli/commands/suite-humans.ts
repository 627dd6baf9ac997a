// A suite's human reference on the command line: the people's games on its mazes as a table (from the results
// database, or shipped in the suite file), and `ariadne suite record-humans`, which writes the database's into the
// suite file so that the suite ships it beside the baselines' reference.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import type { HumanReferenceRow, RegisteredSuite, ShippedHumanReference } from '../../../core/maze/suites.ts';
import { humanReference, type HumanReference } from '../../../reports/human-reference.ts';
import { formatInterval, formatNumber, formatRate } from '../../../reports/stat-format.ts';
import { withExample } from '../help.ts';
import { commandPrefix, packageVersion } from '../invocation.ts';
import { jsonOption } from '../options.ts';
import { userDirectory } from '../output-dir.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import { writeSuiteFile } from '../suite-file.ts';
import { hiddenNote, renderTable, wrapText, type Column, type TableLayout } from '../table.ts';
import * as suites from '../../../core/maze/suites.ts';

const HUMAN_COLUMNS: Column<HumanReferenceRow>[] = (
  [
    { header: 'player', cell: (r) => r.player ?? 'all players' },
    { header: 'observation', cell: (r) => r.observation },
    { header: 'generator', cell: (r) => r.generator },
    { header: 'size', cell: (r) => r.size },
    { header: 'n', cell: (r) => r.n },
    { header: 'mazes', cell: (r) => r.mazes, drop: 4 },
    { header: 'successes', cell: (r) => r.successes, drop: 3 },
    { header: 'success', cell: (r) => formatRate(r.success_rate) },
    { header: '95%', cell: (r) => `${formatInterval(r.low95, r.high95)}${r.interval === 'maze' ? ' m' : ''}` },
    { header: 'efficiency', cell: (r) => formatNumber(r.mean_efficiency, 3), drop: 1 },
    { header: 'actions', cell: (r) => formatNumber(r.mean_actions, 1), drop: 2 },
  ] satisfies Column<HumanReferenceRow>[]
).map((c, i): Column<HumanReferenceRow> => (i < 4 ? c : { ...c, align: 'right' }));

/** Where a human reference was read: the results database, or the suite file that ships one. */
export type HumanSource = { database: true } | { shipped: ShippedHumanReference };

const sourceText = (ref: string, from: HumanSource) =>
  'database' in from
    ? `agent human's games on ${ref} in this database, under its config`
    : `shipped with the suite: recorded ${from.shipped.recorded_at.slice(0, 10)} by ariadne ` +
      `${from.shipped.ariadne_version}`;

/** What counts and what each interval is, said under every human reference table. */
function countingNote(ref: string, left: HumanReference['left_out']): string {
  const p = commandPrefix();
  return (
    'a maze counts once per player: the first game on it that ended by the rules of the game (a game on a maze ' +
    `played before is practice: ${left.replayed} left out; ended by an error or the wall clock: ` +
    `${left.not_by_the_rules}; on a maze that is not the suite's: ${left.not_the_suites_maze}). 95%: Wilson's ` +
    "interval where each maze was played once; marked m, the maze-level one (the maze is the unit: several players' " +
    `games on one maze are not independent; none below 2 mazes). Play one with: ${p} play --suite ${ref} ` +
    `--maze-index <n> --player <id> (or the play page of ${p} view --play).`
  );
}

/** A human reference as lines under the suite's own, saying where it was read. */
export function humanLines(
  ref: string,
  h: Pick<HumanReference, 'rows' | 'left_out'>,
  from: HumanSource,
  layout: TableLayout,
) {
  const note = countingNote(ref, h.left_out);
  if (h.rows.length === 0)
    return [
      '',
      ...wrapText(`human reference: no game of agent human on ${ref} in this database; ${note}`, layout.width),
    ];
  const table = renderTable(h.rows, HUMAN_COLUMNS, layout);
  return [
    '',
    ...wrapText(`human reference (${sourceText(ref, from)}):`, layout.width),
    ...table.lines,
    ...hiddenNote(table.hidden),
    ...wrapText(note, layout.width),
  ];
}

interface RecordOptions extends ResultsSource {
  file?: string;
  json?: boolean;
}

/** Writes the database's human reference of a suite into its file (or a copy named by --file). */
async function recordCommand(found: RegisteredSuite, o: RecordOptions): Promise<void> {
  const path = o.file ? resolve(userDirectory(), o.file) : resolve(import.meta.dirname, '../../..', found.file);
  const h = await withResultsDatabase(o, (db) => humanReference(db, found.ref, found.suite));
  if (h.rows.length === 0)
    throw new InvalidInputError(
      'suite',
      found.ref,
      `no game of agent human on ${found.ref} in this database: nothing to record; play its mazes first ` +
        `(${commandPrefix()} play --suite ${found.ref} --maze-index <n> --player <id>)`,
    );
  const shipped: ShippedHumanReference = {
    rows: h.rows,
    left_out: h.left_out,
    recorded_at: new Date().toISOString(),
    ariadne_version: packageVersion(),
    command: `ariadne suite record-humans ${found.ref}`,
  };
  await writeSuiteFile(path, suites.parseSuite({ ...found.suite, human_reference: shipped }, path));
  const players = new Set(h.rows.map((r) => r.player).filter((p) => p !== null)).size;
  // each format's overall row for every player together (one player alone has only his own)
  const overall = h.rows.filter((r) => r.generator === 'all' && (players === 1 || r.player === null));
  const games = overall.reduce((n, r) => n + r.n, 0);
  if (o.json) process.stdout.write(`${JSON.stringify({ suite: found.ref, file: path, human_reference: shipped })}\n`);
  else
    process.stdout.write(
      `${path}: the human reference of ${found.ref} (${players} player(s), ${games} game(s) ` +
        `counted) written beside its baselines'; ${commandPrefix()} suite show ${found.ref} shows it\n`,
    );
}

/** `ariadne suite record-humans`. */
export function registerRecordHumans(suite: Command, suiteOf: (arg: string) => RegisteredSuite): void {
  const command = suite
    .command('record-humans')
    .description(
      "write the suite's human reference (agent human's games on its mazes in the results database, as suite show " +
        "--humans counts them) into the suite file, so that the suite ships it beside the baselines' reference",
    )
    .argument('<suite>', 'a suite as <name>/v<version>, or a suite file (.json)')
    .option('--file <path>', "write the suite with it to this file instead of the suite's own")
    .addOption(jsonOption('what was written, as JSON'));
  addResultsSourceOptions(command).action((arg: string, o: RecordOptions) => recordCommand(suiteOf(arg), o));
  withExample(command, 'ariadne suite record-humans ariadne-mazes/v1 --file my-suite-copy.json');
}
