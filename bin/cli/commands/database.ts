// The results database: query it (ariadne sql), or serve it to other tools (ariadne db).
import { serveUntilStopped } from '../interrupt.ts';
import type { Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import type { SqlDatabase, SqlResult } from '../../../core/store/sql.ts';
import { sqlStateOf } from '../../../core/store/sql-state.ts';
import { splitStatements } from '../../../core/store/sql-text.ts';
import { cliDatabase } from '../database.ts';
import { envString } from '../../../core/config/environment.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import { withExample } from '../help.ts';
import { hiddenNote, renderTable, type Column } from '../table.ts';
import { addTableOutputOptions, outputFormat, printTableOutput, type TableOutputOptions } from '../table-output.ts';

/** Postgres's SQLSTATE for a write in a read-only transaction (read_only_sql_transaction). */
const READ_ONLY_VIOLATION = '25006';

/**
 * The statements in one transaction (as one connection would see them; the Data API takes one statement a call),
 * read-only unless `write`: results are read, and a stray UPDATE must not change what a paper reports. A single
 * statement with --write runs alone, so one that cannot run in a transaction (VACUUM) still can.
 */
async function runStatements(
  db: SqlDatabase,
  query: string,
  write: boolean,
): Promise<SqlResult<Record<string, unknown>>> {
  const statements = splitStatements(query);
  if (write && statements.length <= 1) return db.query(query);
  return db.transaction(async (tx) => {
    if (!write) await tx.query('SET TRANSACTION READ ONLY');
    let last: SqlResult<Record<string, unknown>> = { rows: [], rowCount: 0 };
    for (const statement of statements) last = await tx.query(statement);
    return last;
  });
}

/**
 * Runs the query through the SQL port, so it works over either transport; the last statement's rows are printed,
 * as psql -c does.
 */
async function sql(query: string, o: ResultsSource & TableOutputOptions & { write?: boolean }): Promise<void> {
  outputFormat(o); // a contradiction is refused before the query runs
  await withResultsDatabase(o, async (db) => {
    let result: SqlResult<Record<string, unknown>>;
    try {
      result = await runStatements(db, query, o.write === true);
    } catch (err) {
      if (sqlStateOf(err)?.code === READ_ONLY_VIOLATION)
        throw new InvalidInputError(
          'query',
          query,
          `ariadne sql reads: ${(err as Error).message}; to change the database, add --write ` +
            "(on AWS, with the administrator's credentials)",
        );
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
  await serveUntilStopped(() => db.close());
}

export function registerDatabaseCommands(program: Command): void {
  const sqlCommand = addResultsSourceOptions(
    addTableOutputOptions(
      program
        .command('sql')
        .description(
          'run a SQL query against the results database and print the rows; read-only (in a read-only ' +
            'transaction) unless --write',
        )
        .argument('<query>', 'e.g. "SELECT * FROM experiment_summary ORDER BY started_at DESC LIMIT 5"')
        .option('--write', "allow statements that change the database (on AWS: the administrator's credentials)"),
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
