// ariadne list: the stored experiments (or sweeps), newest first, so an id is never more than one command away.
import { Option, type Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import type { ExperimentStatus } from '../../../core/engine/store.ts';
import { newestExperiments, type NewestExperimentRow } from '../../../results/newest-experiments.ts';
import { stopReasonsText } from '../../../results/stop-reasons.ts';
import { newestSweeps, type SweepListRow as SweepRow } from '../../../results/sweep-list.ts';
import { settingsOfRuns, settingsText, type RunSettings } from '../../../results/run-settings.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import { withExample } from '../help.ts';
import { commandPrefix } from '../invocation.ts';
import { interruptedNote } from '../interrupt.ts';
import { choiceOption, intOption } from '../options.ts';
import { hiddenNote, renderTable, type Column, type TableLayout } from '../table.ts';
import { addTableOutputOptions, outputFormat, printTableOutput, type TableOutputOptions } from '../table-output.ts';

const STATUSES = ['completed', 'timeout', 'failed', 'stuck', 'running'] as const satisfies readonly ExperimentStatus[];

interface ListOptions extends ResultsSource, TableOutputOptions {
  sweep?: string;
  status?: ExperimentStatus;
  agent?: string;
  limit: number;
  sweeps?: boolean;
}

/** A listed experiment with its settings (results/run-settings.ts): full in csv and json, cut short in the table. */
type ExperimentRow = NewestExperimentRow & { settings: RunSettings; settings_text: string };

/** Local time to the minute: when the researcher started it, as their clock read. */
function when(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` + `${pad(d.getHours())}:${pad(d.getMinutes())}`
  );
}

// Which columns go first when a table is too wide: a higher `drop` goes first; ids and dates are never cut.
const EXPERIMENT_COLUMNS: Column<ExperimentRow>[] = [
  { header: 'id', cell: (r) => r.experiment_id },
  // SIM first, so a cut cell keeps it: the model named did not answer (see simulatedNote)
  {
    header: 'agent/model',
    cell: (r) => `${r.simulated ? 'SIM ' : ''}${r.agent}${r.model ? ` ${r.model}` : r.player ? ` ${r.player}` : ''}`,
    cut: true,
  },
  {
    header: 'maze',
    cell: (r) => `${r.maze_generator} ${r.maze_width}x${r.maze_height} s${r.maze_seed ?? '-'}`,
    cut: true,
    drop: 3,
  },
  // never dropped: an interrupted or failed run must show at any width (json keeps status and interrupted apart)
  { header: 'status', cell: (r) => (r.interrupted ? 'INTERRUPTED' : r.status) },
  { header: 'actions', cell: (r) => r.actions, align: 'right', drop: 4 },
  {
    header: 'efficiency',
    cell: (r) => (r.efficiency === null ? '-' : r.efficiency.toFixed(3)),
    align: 'right',
    drop: 5,
  },
  // the last to go: it orders the list, but the status and settings tell its runs apart
  { header: 'started', cell: (r) => when(r.started_at), drop: 2 },
];

const simulatedNote = () =>
  `SIM: a bundled simulator (${commandPrefix()} sim) answered its model calls, not the model named`;

/** The most of a run's settings the table shows (the rest cut by an ellipsis; --wide, csv and json show them whole). */
const SETTINGS_WIDTH = 24;
/** The least of it a narrow table keeps (`vision_range=3`, `temperature=0.7`): less than one setting says nothing. */
const SETTINGS_MIN_WIDTH = 16;

/** The settings column, never dropped: what tells a sweep's runs apart. */
function settingsColumn(wide: boolean): Column<ExperimentRow> {
  const compact = (text: string) =>
    wide || text.length <= SETTINGS_WIDTH ? text : `${text.slice(0, SETTINGS_WIDTH - 1)}…`;
  // the renderer may narrow it further to fit the terminal, but not below a setting's name and value
  return { header: 'settings', cell: (r) => compact(r.settings_text || '-'), cut: true, min: SETTINGS_MIN_WIDTH };
}

/** The experiments' columns: the settings after the maze, when some run has any. */
function experimentColumns(rows: ExperimentRow[], wide: boolean): Column<ExperimentRow>[] {
  if (!rows.some((r) => r.settings_text)) return EXPERIMENT_COLUMNS;
  const at = EXPERIMENT_COLUMNS.findIndex((c) => c.header === 'maze') + 1;
  return [...EXPERIMENT_COLUMNS.slice(0, at), settingsColumn(wide), ...EXPERIMENT_COLUMNS.slice(at)];
}

const SWEEP_COLUMNS: Column<SweepRow>[] = [
  { header: 'sweep', cell: (r) => r.sweep },
  ...(['runs', 'done', 'succeeded', 'errors'] as const).map((k, i): Column<SweepRow> => ({
    header: k,
    cell: (r) => r[k],
    align: 'right',
    drop: 5 - i,
  })),
  { header: 'started', cell: (r) => when(r.started) },
  // how the runs ended, errors among them, so a wall clock or a limit is never read as a failure
  { header: 'ended', cell: (r) => stopReasonsText(r.stop_reasons) || '-', drop: 1 },
];

/** A listing's table, the columns it left out, and `note` (there are more rows). */
function tableLines<R>(rows: R[], columns: Column<R>[], layout: TableLayout, note: string): string[] {
  const { lines, hidden } = renderTable(rows, columns, layout);
  return [...lines, ...hiddenNote(hidden), ...(note ? [note.trimEnd()] : [])];
}

/** The filters given, for the line that says nothing matched them. */
function filtersOf(o: ListOptions): string {
  const given = [
    o.sweep !== undefined ? `--sweep ${o.sweep}` : '',
    o.status !== undefined ? `--status ${o.status}` : '',
    o.agent !== undefined ? `--agent ${o.agent}` : '',
  ].filter(Boolean);
  return given.length > 0 ? ` match ${given.join(' ')}` : '';
}

/** The first `limit` of rows fetched with one extra, and a note when that extra says there are more. */
function newest<T>(fetched: T[], limit: number): { rows: T[]; note: string } {
  const more = fetched.length > limit;
  return { rows: fetched.slice(0, limit), note: more ? `(showing the newest ${limit}; --limit <n> shows more)\n` : '' };
}

async function listSweeps(o: ListOptions): Promise<void> {
  for (const [option, value] of [
    ['--status', o.status],
    ['--agent', o.agent],
  ] as const)
    if (value !== undefined)
      throw new InvalidInputError(option, value, `${option} filters experiments; it does not go with --sweeps`);
  await withResultsDatabase(o, async (db) => {
    const fetched = await newestSweeps(db, o.sweep, o.limit + 1);
    const { rows, note } = newest(fetched, o.limit);
    if (rows.length === 0 && outputFormat(o) === 'table') {
      const p = commandPrefix();
      const none =
        o.sweep === undefined ? 'yet;' : `match --sweep ${o.sweep}; see them all with: ${p} list --sweeps, or`;
      process.stdout.write(`no sweeps ${none} run one with: ${p} sweep examples/sweeps/example.yaml\n`);
      return;
    }
    printTableOutput(o, {
      table: (layout) => tableLines(rows, SWEEP_COLUMNS, layout, note),
      csv: () => rows.map((r) => ({ ...r, stop_reasons: stopReasonsText(r.stop_reasons) })),
      json: () => rows,
    });
  });
}

async function list(o: ListOptions): Promise<void> {
  if (o.sweeps) return listSweeps(o);
  await withResultsDatabase(o, async (db) => {
    const found = await newestExperiments(db, { sweep: o.sweep, status: o.status, agent: o.agent }, o.limit + 1);
    const { rows: shown, note } = newest(found, o.limit);
    // the runs of one sweep show the settings it varies; any other list, the settings that differ from the defaults
    const settings = await settingsOfRuns(
      db,
      shown.map((r) => r.experiment_id),
      o.sweep,
    );
    const rows = shown.map((r): ExperimentRow => {
      const own = settings.get(r.experiment_id) ?? {};
      return { ...r, settings: own, settings_text: settingsText(own) };
    });
    if (rows.length === 0 && outputFormat(o) === 'table') {
      const filtered = filtersOf(o);
      const p = commandPrefix();
      process.stdout.write(
        `no experiments${filtered || ' yet'}; ${filtered ? `see them all with: ${p} list, or ` : ''}` +
          `run one with: ${p} run --agent frontier --maze medium --size 15\n`,
      );
      return;
    }
    printTableOutput(o, {
      table: (layout) => [
        ...tableLines(rows, experimentColumns(rows, layout.wide === true), layout, note),
        // said in full under the table, as `status` says why a run is stale
        ...rows.filter((r) => r.interrupted).map((r) => `INTERRUPTED ${r.experiment_id}: ${interruptedNote(r)}`),
        ...(rows.some((r) => r.simulated) ? [simulatedNote()] : []),
      ],
      csv: () => rows.map(({ settings: _object, ...r }) => ({ ...r })),
      json: () => rows,
    });
  });
}

export function registerListCommand(program: Command): void {
  const listCommand = addResultsSourceOptions(
    addTableOutputOptions(
      program
        .command('list')
        .description('list the stored experiments, newest first (or the sweeps, with --sweeps)')
        .option('--sweep <name>', 'only the runs of this sweep (with --sweeps: only this sweep)')
        .addOption(
          new Option('--status <status>', `only experiments with this status: ${STATUSES.join(', ')}`).argParser(
            choiceOption('--status', STATUSES),
          ),
        )
        .option(
          '--agent <label>',
          'only this agent: a baseline (random, frontier), a provider, a model, a sweep label, human (the games ' +
            'people played) or a player',
        )
        .addOption(
          new Option('--limit <n>', 'show at most this many, newest first')
            .default(20)
            .argParser(intOption('--limit', 1, 100_000)),
        )
        .option(
          '--sweeps',
          'list the sweeps instead: name, runs, done, succeeded, errors, started, how the runs ended (stop reasons)',
        ),
      'the rows as JSON',
    ),
  ).action((o: ListOptions) => list(o));
  withExample(listCommand, 'ariadne list --status completed --agent frontier --limit 5');
}
