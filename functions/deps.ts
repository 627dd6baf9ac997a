// What handlers need, injected: the local runner and tests pass their own;
// in Lambda, `lambdaEntry` builds them once per cold start from the environment.
import type { SharedBudget } from '../core/engine/token-cost.ts';
import type { AgentFactory } from '../core/engine/agent.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { databaseTargetFromEnvironment, openSqlDatabase } from '../core/store/open-sql-database.ts';
import { ParameterCache } from '../core/config/parameters.ts';
import { envInteger, envString } from '../core/config/environment.ts';
import type { TaskTokenNotifier } from '../core/engine/task-tokens.ts';
import type { Telemetry } from '../core/telemetry/telemetry.ts';
import { withLambdaTelemetry } from './lambda-telemetry.ts';

export interface HandlerDeps {
  store: PgStore;
  agents: AgentFactory;
  now: () => Date;
  /** Parameter Store (or the local file); absent means code defaults only. */
  parameters?: ParameterCache;
  /** SendTaskSuccess for sweeps' task tokens; absent locally, where no sweep machine waits. */
  taskTokens?: TaskTokenNotifier;
  /** A sweep's budget its runs in flight share (state-machine/local-sweep.ts); absent on AWS. */
  sharedBudget?: SharedBudget;
  /** Log lines and metrics (core/telemetry); absent: nothing is said (tests). */
  telemetry?: Telemetry;
}

/** The part of Lambda's context object a handler reads: the time its invocation has left before its timeout. */
export interface InvocationContext {
  getRemainingTimeInMillis(): number;
}

/** `context`: Lambda's, in Lambda; absent in-process (the local runner, tests), where handlers use defaults. */
export type Handler = (event: unknown, context?: InvocationContext) => Promise<unknown>;
export type HandlerFactory = (deps: HandlerDeps) => Handler;

let cold: Promise<HandlerDeps> | null = null;

async function depsFromEnvironment(): Promise<HandlerDeps> {
  // the database the environment names (open-sql-database.ts says how), with a small pool: one invocation at a time
  const target = databaseTargetFromEnvironment();
  const db = await openSqlDatabase('dataApi' in target ? target : { ...target, poolSize: 2, migrate: false });
  const { agentsWith } = await import('../core/providers/agents.ts');
  const { sharedAgentDeps } = await import('../core/store/shared-agent-deps.ts');
  const { ssmSource } = await import('../core/config/ssm-source.ts');
  const parameters = new ParameterCache(
    ssmSource(),
    envString('PARAMETER_PREFIX') ?? '/ariadne',
    envInteger('PARAMETER_TTL_MS') ?? 60_000,
  );
  const { stepFunctionsTaskTokens } = await import('./step-functions-task-tokens.ts');
  return {
    store: new PgStore(db),
    agents: agentsWith(sharedAgentDeps(db)),
    now: () => new Date(),
    parameters,
    taskTokens: stepFunctionsTaskTokens(),
  };
}

/** Wraps a handler factory as a Lambda entry point; deps are created once per container. */
export function lambdaEntry(factory: HandlerFactory): Handler {
  return withLambdaTelemetry<unknown, InvocationContext, unknown>(async (t, event, context) => {
    cold ??= depsFromEnvironment().catch((err) => {
      cold = null;
      throw err;
    });
    return factory({ ...(await cold), telemetry: t })(event, context);
  });
}
