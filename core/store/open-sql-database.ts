// The one way the code opens a database: a target says which (a Postgres URL over pg, or an Aurora cluster through
// the RDS Data API) and openSqlDatabase opens it. pg and the AWS SDK are imported only when a target of theirs is
// opened, so `ariadne --version` loads neither and a Data API function never loads pg (nor the reverse).
import type { Database, OpenOptions } from './database.ts';
import type { SqlDatabase } from './sql.ts';
import { DatabaseConfigError } from './errors.ts';
import { envString } from '../config/environment.ts';

/** A Postgres server over pg. `field` names where the URL came from, for messages (default DATABASE_URL). */
export type PgTarget = OpenOptions;

export interface DataApiTarget {
  dataApi: {
    resourceArn: string;
    secretArn: string;
    database: string;
    /** How long transient failures are retried (data-api-sql.ts's default: every database Lambda's budget). */
    retryBudgetMs?: number;
    /** Every statement runs on past the Data API's 45 s (the migrations' DDL). */
    continueAfterTimeout?: boolean;
  };
  /** Where each value came from, for messages: environment variables unless said (a stack's outputs). */
  fields?: { resourceArn: string; secretArn: string; database: string };
}

export type DatabaseTarget = PgTarget | DataApiTarget;

const ENVIRONMENT_FIELDS = {
  resourceArn: 'DATABASE_CLUSTER_ARN',
  secretArn: 'DATABASE_SECRET_ARN',
  database: 'DATABASE_NAME',
} as const;

/** Opens the target: a pg target gives the pool too (local tools read it), a Data API target the port alone. */
export async function openSqlDatabase(target: PgTarget): Promise<Database>;
export async function openSqlDatabase(target: DatabaseTarget): Promise<SqlDatabase>;
export async function openSqlDatabase(target: DatabaseTarget): Promise<SqlDatabase> {
  if (!('dataApi' in target)) {
    const { openDatabase } = await import('./database.ts'); // pg, only for a pg target
    return openDatabase(target);
  }
  checkDataApiTarget(target);
  const { DataApiDatabase } = await import('./data-api-sql.ts'); // the AWS SDK, only for a Data API target
  return new DataApiDatabase(target.dataApi);
}

/** A Data API target names a cluster ARN, a secret ARN and a database; the error names the one to fix. */
function checkDataApiTarget({ dataApi, fields = ENVIRONMENT_FIELDS }: DataApiTarget): void {
  for (const key of ['resourceArn', 'secretArn'] as const) {
    const value = dataApi[key];
    if (!value.startsWith('arn:'))
      throw new DatabaseConfigError(
        fields[key],
        `${fields[key]} is ${value ? `"${value}"` : 'empty'}; it must be an ARN (arn:aws:...): ` +
          `set it to the stack's ${key === 'resourceArn' ? 'DatabaseClusterArn' : 'DatabaseSecretArn'} output`,
      );
  }
  if (!dataApi.database.trim())
    throw new DatabaseConfigError(
      fields.database,
      `${fields.database} is empty; set it to the database in the cluster (the stack's DatabaseName output, ariadne)`,
    );
}

/** DATABASE_URL and DATABASE_SCHEMA: the server the environment names, or undefined when DATABASE_URL is unset. */
export function pgTargetFromEnvironment(env: NodeJS.ProcessEnv = process.env): PgTarget | undefined {
  const url = envString('DATABASE_URL', env);
  return url === undefined ? undefined : { url, field: 'DATABASE_URL', schema: envString('DATABASE_SCHEMA', env) };
}

/**
 * What a Lambda function opens: DATABASE_URL over pg (a laptop, any server), else, as the stack sets it up, the RDS
 * Data API to the Aurora cluster (DATABASE_CLUSTER_ARN, DATABASE_SECRET_ARN, DATABASE_NAME): no VPC, no connection,
 * and no password in the function (the Data API reads the secret on each call, so a rotated one is never stale).
 */
export function databaseTargetFromEnvironment(env: NodeJS.ProcessEnv = process.env): DatabaseTarget {
  const pg = pgTargetFromEnvironment(env);
  if (pg) return pg;
  const resourceArn = envString('DATABASE_CLUSTER_ARN', env);
  const secretArn = envString('DATABASE_SECRET_ARN', env);
  if (resourceArn === undefined && secretArn === undefined)
    throw new DatabaseConfigError(
      'DATABASE_URL',
      'set DATABASE_URL, or DATABASE_CLUSTER_ARN and DATABASE_SECRET_ARN (the RDS Data API), for this function',
    );
  const missing = resourceArn === undefined ? 'DATABASE_CLUSTER_ARN' : 'DATABASE_SECRET_ARN';
  if (resourceArn === undefined || secretArn === undefined)
    throw new DatabaseConfigError(
      missing,
      `${missing} is unset but ${missing === 'DATABASE_CLUSTER_ARN' ? 'DATABASE_SECRET_ARN' : 'DATABASE_CLUSTER_ARN'}` +
        ` is set: the RDS Data API needs both (the stack sets them together), or set DATABASE_URL instead`,
    );
  return { dataApi: { resourceArn, secretArn, database: envString('DATABASE_NAME', env) ?? 'ariadne' } };
}
