// The results database: query it (ariadne sql), or serve it to other tools (ariadne db).
import type { Command } from 'commander';
import { InvalidInputError } from '../../../lambdas/engine/errors.ts';
import { cliDatabase, withCliDatabase } from '../database.ts';
import { withExample } from '../help.ts';
import { jsonOption } from '../options.ts';
import { formatTable } from '../table.ts';

async function sql(query: string, o: { json?: boolean }): Promise<void> {
  await withCliDatabase(async (db) => {
    let result;
    try {
      result = await db.pool.query<Record<string, unknown>>(query);
    } catch (err) {
      throw new InvalidInputError('query', query, `the query failed: ${(err as Error).message}`);
    }
    if (o.json) process.stdout.write(`${JSON.stringify(result.rows, null, 2)}\n`);
    else
      process.stdout.write(
        `${formatTable(
          result.rows,
          result.fields.map((f) => f.name),
        )}\n`,
      );
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
  const sqlCommand = program
    .command('sql')
    .description('run a SQL query against the results database and print the rows')
    .argument('<query>', 'e.g. "SELECT * FROM experiment_summary ORDER BY started_at DESC LIMIT 5"')
    .addOption(jsonOption('rows as JSON'))
    .action(sql);
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
