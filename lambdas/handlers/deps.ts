// What handlers need, injected: the local runner and tests pass their own;
// in Lambda, `lambdaEntry` builds them once per cold start from the environment.
import type { AgentFactory } from '../engine/agent.ts';
import { PgStore } from '../store/pg-store.ts';
import { openDatabase } from '../store/database.ts';
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

export type Handler = (event: unknown) => Promise<unknown>;
export type HandlerFactory = (deps: HandlerDeps) => Handler;

let cold: Promise<HandlerDeps> | null = null;

/** DATABASE_URL, or (as the stack sets it up) the Secrets Manager secret and the RDS Proxy endpoint. */
export async function databaseUrlFromEnvironment(env = process.env): Promise<string> {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  if (env.DATABASE_SECRET_ARN && env.DATABASE_HOST) {
    const { databaseUrlFromSecret } = await import('../store/database-secret.ts');
    return databaseUrlFromSecret({
      secretArn: env.DATABASE_SECRET_ARN,
      host: env.DATABASE_HOST,
      database: env.DATABASE_NAME ?? 'ariadne',
    });
  }
  throw new DatabaseConfigError(
    'DATABASE_URL',
    'set DATABASE_URL, or DATABASE_SECRET_ARN and DATABASE_HOST, for this function',
  );
}

async function depsFromEnvironment(): Promise<HandlerDeps> {
  const url = await databaseUrlFromEnvironment();
  const db = await openDatabase({ url, poolSize: 2, migrate: false, schema: process.env.DATABASE_SCHEMA });
  const { agents } = await import('../providers/agents.ts');
  const { ssmSource } = await import('../config/ssm-source.ts');
  const parameters = new ParameterCache(
    ssmSource(),
    process.env.PARAMETER_PREFIX ?? '/ariadne',
    Number(process.env.PARAMETER_TTL_MS ?? 60_000),
  );
  const { stepFunctionsTaskTokens } = await import('./step-functions-task-tokens.ts');
  return {
    store: new PgStore(db.pool),
    agents,
    now: () => new Date(),
    parameters,
    taskTokens: stepFunctionsTaskTokens(),
  };
}

/** Wraps a handler factory as a Lambda entry point; deps are created once per container. */
export function lambdaEntry(factory: HandlerFactory): Handler {
  return async (event) => {
    cold ??= depsFromEnvironment().catch((err) => {
      cold = null;
      throw err;
    });
    return factory(await cold)(event);
  };
}
