// Where the results commands read: the local database (embedded, or DATABASE_URL), or with --aws a deployed
// stack's Aurora through the RDS Data API, found from the stack's outputs (DescribeStacks) and reached over HTTPS
// with the researcher's own AWS credentials, as the read-only role (its own secret): a researcher reads, never
// writes. Only `ariadne sql --write` names the master user's secret, which an admin's credentials may read. Both are
// the same Sql port, so every results command runs the same SQL on either.
import { Option, type Command } from 'commander';
import type { SqlDatabase } from '../../core/store/sql.ts';
import { withCliDatabase } from './database.ts';
import type { StackOutputs } from '../../lib/stack-outputs.ts';
import { openSqlDatabase, type DataApiTarget } from '../../core/store/open-sql-database.ts';
import { resolveStack } from './aws-stack.ts';

export interface ResultsSource {
  aws?: boolean;
  stack?: string;
  region?: string;
  /** As the master user (an admin's credentials), not the read-only role: `ariadne sql --write` only. */
  write?: boolean;
}

/** `fn` gets the stack's outputs too when the database is a deployed stack's. */
export async function withResultsDatabase<T>(
  source: ResultsSource,
  fn: (db: SqlDatabase, stack?: StackOutputs) => Promise<T>,
): Promise<T> {
  if (!source.aws) return withCliDatabase((db) => fn(db));
  const outputs = await resolveStack({ stack: source.stack, region: source.region });
  const db = await openSqlDatabase(stackDatabaseTarget(outputs, { write: source.write }));
  process.stderr.write(
    `database: ${outputs.stackName}'s Aurora (${outputs.region}) through the RDS Data API; ` +
      'a paused cluster takes about 15 s to resume\n',
  );
  try {
    return await fn(db, outputs);
  } finally {
    await db.close();
  }
}

/**
 * A deployed stack's Aurora, through the Data API, as its outputs name it (doctor's --aws reads it too): as the
 * read-only role, or with `write` as the master user.
 */
export function stackDatabaseTarget(outputs: StackOutputs, opts: { write?: boolean } = {}): DataApiTarget {
  const secret = opts.write ? 'databaseSecretArn' : 'databaseReaderSecretArn';
  return {
    dataApi: {
      resourceArn: outputs.databaseClusterArn,
      secretArn: outputs[secret],
      database: outputs.databaseName,
    },
    fields: {
      resourceArn: `${outputs.stackName}'s output DatabaseClusterArn`,
      secretArn: `${outputs.stackName}'s output ${opts.write ? 'DatabaseSecretArn' : 'DatabaseReaderSecretArn'}`,
      database: `${outputs.stackName}'s output DatabaseName`,
    },
  };
}

/** --aws, --stack and --region: read a deployed stack's results instead of the local database. */
export function addResultsSourceOptions(command: Command): Command {
  return command
    .option('--aws', "read the deployed stack's database (the RDS Data API, your AWS credentials) instead")
    .addOption(new Option('--stack <name>', 'with --aws: the deployed stack').default('Ariadne'))
    .option('--region <region>', 'with --aws: its Region (default: AWS_REGION, then your AWS profile)');
}
