// The results database: query it (ariadne sql), or serve it to other tools (ariadne db).
import type { Command } from 'commander';
import { InvalidInputError } from '../../../lambdas/engine/errors.ts';
import type { SqlResult } from '../../../lambdas/store/sql.ts';
import { splitStatements } from '../../../lambdas/store/sql-text.ts';
import { cliDatabase } from '../database.ts';
import { envString } from '../../../lambdas/config/environment.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import { withExample } from '../help.ts';
import { hiddenNote, renderTable, type Column } from '../table.ts';
import { addTableOutputOptions, outputFormat, printTableOutput, type TableOutputOptions } from '../table-output.ts';

/**
 * Runs the query through the SQL port, so it works over either transport. The Data API takes one statement per
 * call: several are run one by one in one transaction (as one connection would see them), and the last one's
 * rows are printed, as psql -c does.
 */
async function sql(query: string, o: ResultsSource & TableOutputOptions): Promise<void> {
  outputFormat(o); // a contradiction is refused before the query runs
  await withResultsDatabase(o, async (db) => {
    let result: SqlResult<Record<string, unknown>>;
    try {
      const statements = splitStatements(query);
      result =
        statements.length <= 1
          ? await db.query(query)
          : await db.transaction(async (tx) => {
              let last: SqlResult<Record<string, unknown>> = { rows: [], rowCount: 0 };
              for (const statement of statements) last = await tx.query(statement);
              return last;
            });
    } catch (err) {
      throw new InvalidInputError('query', query, `the query failed: ${(err as Error).message}`);
    }
    const rows = result.rows;
    const names = result.columns ?? Object.keys(rows[0] ?? {});
    // any column but an id or a date may be cut; too wide even so, the rightmost go first (--wide shows them all)
    const whole = (name: string) => /(^|_)id$/.test(name) || rows.some((r) => r[name] instanceof Date);
    const columns = names.map((name, i): Column<Record<string, unknown>> => ({
      header: name,
      cell: (r) => r[name],
      cut: !whole(name),
      drop: i,
    }));
    printTableOutput(o, {
      table: (layout) => {
        const { lines, hidden } = renderTable(rows, columns, layout);
        return [...lines, ...hiddenNote(hidden)];
      },
      csv: () => rows,
      csvColumns: names,
      json: () => rows,
    });
  });
}

async function serve(): Promise<void> {
  const db = await cliDatabase((line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`DATABASE_URL=${envString('DATABASE_URL') ?? db.url}\n`);
  process.stderr.write('serving until Ctrl-C\n');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await db.close();
}

export function registerDatabaseCommands(program: Command): void {
  const sqlCommand = addResultsSourceOptions(
    addTableOutputOptions(
      program
        .command('sql')
        .description('run a SQL query against the results database and print the rows')
        .argument('<query>', 'e.g. "SELECT * FROM experiment_summary ORDER BY started_at DESC LIMIT 5"'),
      'rows as JSON',
    ),
  ).action(sql);
  withExample(sqlCommand, 'ariadne sql "SELECT experiment_id, status, actions FROM experiment_summary LIMIT 5"');

  const dbCommand = program
    .command('db')
    .description(
      'start the embedded results database and keep it running, printing its URL ' +
        '(for psql, notebooks, BI tools); Ctrl-C stops it',
    )
    .action(serve);
  withExample(dbCommand, 'ariadne db');
}
