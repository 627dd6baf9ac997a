// The results database: query it (ariadne sql), or serve it to other tools (ariadne db).
import type { Command } from 'commander';
import { InvalidInputError } from '../../../lambdas/engine/errors.ts';
import type { SqlResult } from '../../../lambdas/store/sql.ts';
import { splitStatements } from '../../../lambdas/store/sql-text.ts';
import { cliDatabase } from '../database.ts';
import { addResultsSourceOptions, withResultsDatabase, type ResultsSource } from '../results-database.ts';
import { withExample } from '../help.ts';
import { jsonOption } from '../options.ts';
import { formatTable } from '../table.ts';

/**
 * Runs the query through the SQL port, so it works over either transport. The Data API takes one statement per
 * call: several are run one by one in one transaction (as one connection would see them), and the last one's
 * rows are printed, as psql -c does.
 */
async function sql(query: string, o: ResultsSource & { json?: boolean }): Promise<void> {
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
    if (o.json) process.stdout.write(`${JSON.stringify(result.rows, null, 2)}\n`);
    else process.stdout.write(`${formatTable(result.rows, result.columns ?? Object.keys(result.rows[0] ?? {}))}\n`);
  });
}

async function serve(): Promise<void> {
  const db = await cliDatabase((line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`DATABASE_URL=${process.env.DATABASE_URL ?? db.url}\n`);
  process.stderr.write('serving until Ctrl-C\n');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await db.close();
}

export function registerDatabaseCommands(program: Command): void {
  const sqlCommand = addResultsSourceOptions(
    program
      .command('sql')
      .description('run a SQL query against the results database and print the rows')
      .argument('<query>', 'e.g. "SELECT * FROM experiment_summary ORDER BY started_at DESC LIMIT 5"')
      .addOption(jsonOption('rows as JSON')),
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
