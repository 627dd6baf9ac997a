// What handlers need, injected: the local runner and tests pass their own;
// in Lambda, `lambdaEntry` builds them once per cold start from the environment.
import type { AgentFactory } from '../engine/agent.ts';
import { PgStore } from '../store/pg-store.ts';
import { openDatabase } from '../store/database.ts';
import type { SqlDatabase } from '../store/sql.ts';
import { DatabaseConfigError } from '../store/errors.ts';
import { ParameterCache } from '../config/parameters.ts';
import type { TaskTokenNotifier } from '../engine/task-tokens.ts';

export interface HandlerDeps {
  store: PgStore;
  agents: AgentFactory;
  now: () => Date;
  /** Parameter Store (or the local file); absent means code defaults only. */
  parameters?: ParameterCache;
  /** SendTaskSuccess for sweeps' task tokens; absent locally, where no sweep machine waits. */
  taskTokens?: TaskTokenNotifier;
}

/** The part of Lambda's context object a handler reads: the time its invocation has left before its timeout. */
export interface InvocationContext {
  getRemainingTimeInMillis(): number;
}

/** `context`: Lambda's, in Lambda; absent in-process (the local runner, tests), where handlers use defaults. */
export type Handler = (event: unknown, context?: InvocationContext) => Promise<unknown>;
export type HandlerFactory = (deps: HandlerDeps) => Handler;

let cold: Promise<HandlerDeps> | null = null;

/**
 * The database a function talks to: DATABASE_URL over pg (a laptop, any server), or, as the stack sets it up,
 * the RDS Data API to the Aurora cluster (DATABASE_CLUSTER_ARN, DATABASE_SECRET_ARN, DATABASE_NAME): no VPC,
 * no connection, and no password in the function (the Data API reads the secret on each call, so a rotated
 * password is never stale here).
 */
export async function databaseFromEnvironment(
  env = process.env,
  opts: { poolSize?: number; migrate?: boolean } = {},
): Promise<SqlDatabase> {
  if (env.DATABASE_URL)
    return openDatabase({
      url: env.DATABASE_URL,
      poolSize: opts.poolSize ?? 2,
      migrate: opts.migrate ?? false,
      schema: env.DATABASE_SCHEMA,
    });
  if (env.DATABASE_CLUSTER_ARN && env.DATABASE_SECRET_ARN) {
    const { DataApiDatabase } = await import('../store/data-api-sql.ts');
    return new DataApiDatabase({
      resourceArn: env.DATABASE_CLUSTER_ARN,
      secretArn: env.DATABASE_SECRET_ARN,
      database: env.DATABASE_NAME ?? 'ariadne',
    });
  }
  throw new DatabaseConfigError(
    'DATABASE_URL',
    'set DATABASE_URL, or DATABASE_CLUSTER_ARN and DATABASE_SECRET_ARN (the RDS Data API), for this function',
  );
}

async function depsFromEnvironment(): Promise<HandlerDeps> {
  const db = await databaseFromEnvironment();
  const { agentsWith } = await import('../providers/agents.ts');
  const { sqlRateLimits } = await import('../store/rate-limit-sql.ts');
  const { ssmSource } = await import('../config/ssm-source.ts');
  const parameters = new ParameterCache(
    ssmSource(),
    process.env.PARAMETER_PREFIX ?? '/ariadne',
    Number(process.env.PARAMETER_TTL_MS ?? 60_000),
  );
  const { stepFunctionsTaskTokens } = await import('./step-functions-task-tokens.ts');
  return {
    store: new PgStore(db),
    agents: agentsWith({ rateLimits: sqlRateLimits(db) }),
    now: () => new Date(),
    parameters,
    taskTokens: stepFunctionsTaskTokens(),
  };
}

/** Wraps a handler factory as a Lambda entry point; deps are created once per container. */
export function lambdaEntry(factory: HandlerFactory): Handler {
  return async (event, context) => {
    cold ??= depsFromEnvironment().catch((err) => {
      cold = null;
      throw err;
    });
    return factory(await cold)(event, context);
  };
}
