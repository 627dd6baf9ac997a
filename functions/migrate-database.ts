// CloudFormation custom resource (CDK's Provider framework, lib/database.ts): applies migrations/ at deploy, before
// any experiment can start, through the same transport as every function. `handler` (onEvent) only answers;
// `isComplete`, polled by the framework until it returns true, tries the database once per call, so a paused Aurora
// that resumes slowly is waited out up to the provider's totalTimeout. Then the researchers' read-only role gets its
// password from its own secret and SELECT on it all. Deleting the stack keeps the data.
import { migrate } from '../core/store/migrate.ts';
import { grantReader, type ReaderCredentials } from '../core/store/reader-role.ts';
import { DATA_API_UNAVAILABLE_NAMES } from '../core/store/errors.ts';
import { databaseTargetFromEnvironment, openSqlDatabase } from '../core/store/open-sql-database.ts';
import { envString } from '../core/config/environment.ts';
import { withLambdaTelemetry } from './lambda-telemetry.ts';
import {
  DatabaseUnavailableError,
  isTransientSqlState,
  type Sql,
  type SqlDatabase,
  type SqlResult,
} from '../core/store/sql.ts';

interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
}

/** The part of Lambda's context object read here: the time left before the function's timeout. */
interface RemainingTime {
  getRemainingTimeInMillis(): number;
}

const PHYSICAL_ID = 'ariadne-migrations';

/**
 * What a poll keeps back from its function's timeout when it waits for a statement past the Data API's 45 s: one more
 * wait (a call times out at 45 s) and the commit.
 */
const STATEMENT_WAIT_RESERVE_MS = 60_000;

export const handler = withLambdaTelemetry(
  async (telemetry, event: CustomResourceEvent): Promise<{ PhysicalResourceId: string }> => {
    telemetry.event('migrations requested', { requestType: event.RequestType });
    return Promise.resolve({ PhysicalResourceId: event.PhysicalResourceId ?? PHYSICAL_ID });
  },
);

export const isComplete = withLambdaTelemetry(
  async (
    telemetry,
    event: CustomResourceEvent,
    context?: RemainingTime,
  ): Promise<{ IsComplete: boolean; Data?: Record<string, string> }> => {
    const result = await pollMigrations(event, context);
    telemetry.event(result.IsComplete ? 'migrations applied' : 'database unavailable: polling again', {
      requestType: event.RequestType,
      applied: result.Data?.Applied,
    });
    return result;
  },
);

async function pollMigrations(
  event: CustomResourceEvent,
  context?: RemainingTime,
): Promise<{ IsComplete: boolean; Data?: Record<string, string> }> {
  if (event.RequestType === 'Delete') return { IsComplete: true };
  const db = await openMigrationsDatabase();
  const remaining = () => context?.getRemainingTimeInMillis() ?? Number.POSITIVE_INFINITY;
  try {
    await migrate(waitingOutLongStatements(db, remaining), { schema: envString('DATABASE_SCHEMA') });
    const reader = await readerCredentials();
    if (reader) await db.transaction((tx) => grantReader(tx, reader));
    const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version');
    return { IsComplete: true, Data: { Applied: rows.map((r) => r.name).join(',') } };
  } catch (err) {
    // Paused, resuming, briefly unavailable: the framework polls again (each migration is its own transaction and
    // an applied one is skipped, so the next poll goes on where this one stopped). Anything else fails the deploy now.
    if (!unavailable(err)) throw err;
    return { IsComplete: false };
  } finally {
    await db.close();
  }
}

/** The reader's secret (DATABASE_READER_SECRET_ARN, set by the stack), or null where there is none (a laptop). */
async function readerCredentials(): Promise<ReaderCredentials | null> {
  const arn = envString('DATABASE_READER_SECRET_ARN');
  if (!arn) return null;
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({});
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: arn }));
    const { username, password } = JSON.parse(SecretString ?? '{}') as Partial<ReaderCredentials>;
    if (typeof username !== 'string' || typeof password !== 'string')
      throw new Error(`the reader's secret ${arn} holds no username and password`);
    return { username, password };
  } finally {
    client.destroy();
  }
}

/**
 * The Data API without retries of its own (retryBudgetMs 0: the poll interval is the wait) and with
 * continueAfterTimeout on every statement (migrations are DDL); a DATABASE_URL (a laptop) with one connection.
 */
async function openMigrationsDatabase(env: NodeJS.ProcessEnv = process.env): Promise<SqlDatabase> {
  const target = databaseTargetFromEnvironment(env);
  return openSqlDatabase(
    'dataApi' in target
      ? { ...target, dataApi: { ...target.dataApi, retryBudgetMs: 0, continueAfterTimeout: true } }
      : { ...target, poolSize: 1, migrate: false },
  );
}

/** The error, or one it was caused by (migrate.ts wraps a statement's), passes on a retry. */
function unavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (e instanceof DatabaseUnavailableError || DATA_API_UNAVAILABLE_NAMES.has(e.name)) return true;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && isTransientSqlState(code)) return true;
  }
  return false;
}

const timedOut = (err: unknown) => (err as { name?: string } | null)?.name === 'StatementTimeoutException';

/**
 * Each transaction's statements, waiting out one that ran past the Data API's 45 s. With continueAfterTimeout "your
 * application still receives the timeout error. However, the operation continues running and isn't canceled"
 * (Aurora User Guide, data-api-timeouts.html): here it runs on inside its transaction, so a `SELECT 1` in the same
 * transaction returns once it is done (or fails, 25P02, if it failed), and the migration goes on to its commit.
 * The timed-out call's result is lost: a read is asked again (reads are safe to repeat), other statements (DDL, the
 * bookkeeping INSERT) return no rows, as they do anyway. AWS does not document a call into a transaction whose
 * statement runs on; if the Data API refuses it, that error fails the deploy with its message.
 */
function waitingOutLongStatements(db: SqlDatabase, remainingMs: () => number): SqlDatabase {
  const patient = (tx: Sql): Sql => {
    const wrapped: Sql = {
      async query<R extends object>(...args: Parameters<Sql['query']>): Promise<SqlResult<R>> {
        try {
          return await tx.query<R>(...args);
        } catch (err) {
          if (!timedOut(err)) throw err;
        }
        for (let waits = 1; ; waits++) {
          if (remainingMs() < STATEMENT_WAIT_RESERVE_MS)
            throw new Error(
              `a migration statement has run ${waits} x 45 s and would outlast this function's timeout: ` +
                `${args[0].slice(0, 200)}`,
            );
          try {
            await tx.query('SELECT 1');
            break;
          } catch (err) {
            if (!timedOut(err))
              throw new Error(
                `a migration statement that ran past the Data API's 45 s failed (its own error is in the cluster's ` +
                  `postgresql log): ${(err as Error).message}`,
                { cause: err },
              );
          }
        }
        return /^\s*(select|with|values|show)\b/i.test(args[0]) ? wrapped.query<R>(...args) : { rows: [], rowCount: 0 };
      },
    };
    return wrapped;
  };
  return {
    transport: db.transport,
    query: (...args) => db.query(...args),
    transaction: (fn) => db.transaction((tx) => fn(patient(tx))),
    close: () => db.close(),
  };
}
