// The output options of every command that prints a table, as gh and kubectl have them: --format table|csv|json,
// --wide (every column, none cut) and --json (kept: the same as --format json); the commands whose table goes into
// papers (stats) also --format markdown|latex.
import { Option, type Command } from 'commander';
import { InvalidInputError } from '../../core/errors.ts';
import { csvText } from '../../reports/csv.ts';
import { latexTable, markdownTable, PAPER_FORMATS, type PaperTable } from '../../reports/paper-table.ts';
import { choiceOption, jsonOption } from './options.ts';
import { terminalWidth, type TableLayout } from './table.ts';

const FORMATS = ['table', 'csv', 'json'] as const;
export type OutputFormat = (typeof FORMATS)[number] | (typeof PAPER_FORMATS)[number];

export interface TableOutputOptions {
  format?: OutputFormat;
  wide?: boolean;
  json?: boolean;
}

/** --format, --wide and --json; `json`: what --json prints; `paper`: the command also writes Markdown and LaTeX. */
export function addTableOutputOptions(command: Command, json: string, paper = false): Command {
  const formats = paper ? [...FORMATS, ...PAPER_FORMATS] : FORMATS;
  return command
    .addOption(
      new Option(
        '--format <format>',
        'table (the default: it fits the terminal, at most 100 columns), csv (every column, RFC 4180)' +
          (paper
            ? ', json, or a table to paste into a paper with its caption and notes: markdown or latex (booktabs)'
            : ' or json'),
      ).argParser(choiceOption('--format', formats)),
    )
    .option('--wide', 'the table with every column, none cut short')
    .addOption(jsonOption(`${json} (the same as --format json)`));
}

/** The format asked for: --json is --format json, so it contradicts any other format. */
export function outputFormat(o: TableOutputOptions): OutputFormat {
  if (o.json && o.format !== undefined && o.format !== 'json')
    throw new InvalidInputError(
      '--format',
      o.format,
      `--json and --format ${o.format} contradict each other: --json is --format json; give one of them`,
    );
  return o.json ? 'json' : (o.format ?? 'table');
}

/** How a table is laid out: the terminal's width (at most 100 columns), or every column with --wide. */
export function tableLayout(o: TableOutputOptions): TableLayout {
  return { width: terminalWidth(), wide: o.wide === true };
}

/** What a command prints in each format; each is built only when asked for. */
export interface TableOutput {
  /** The table's lines, with any lines around it. */
  table: (layout: TableLayout) => string[];
  /** Every column, full values, numbers as numbers: one flat record per row. */
  csv: () => Record<string, unknown>[];
  /** The csv's columns when they are known beforehand (so no rows still print a header); else the first's keys. */
  csvColumns?: string[];
  /** The JSON document (what --json printed before --format). */
  json: () => unknown;
  /** The table for a paper (--format markdown|latex), and the LaTeX label it gets. */
  paper?: () => { table: PaperTable; label: string };
}

export function printTableOutput(o: TableOutputOptions, output: TableOutput): void {
  const format = outputFormat(o);
  const paper = () => {
    if (!output.paper) throw new InvalidInputError('--format', format, 'use table, csv or json with this command');
    const { table, label } = output.paper();
    return format === 'markdown' ? markdownTable(table) : latexTable(table, label);
  };
  const text =
    format === 'json'
      ? `${JSON.stringify(output.json(), null, 2)}\n`
      : format === 'csv'
        ? csvText(output.csv(), output.csvColumns)
        : format === 'markdown' || format === 'latex'
          ? paper()
          : `${output.table(tableLayout(o)).join('\n')}\n`;
  process.stdout.write(text);
}
