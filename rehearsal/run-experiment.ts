// One experiment through the template's experiment machine, as a scenario runs it, and its row afterwards.
import { randomBytes } from 'node:crypto';
import { machineOf, payloadCheck, type World } from './world.ts';
import { SFNClient, StartExecutionCommand, StartSyncExecutionCommand } from '@aws-sdk/client-sfn';
import { runLocalExecution, type LocalRunOptions, type LocalRunResult } from '../state-machine/local-runner.ts';
import { asTaskResult, type ChunkRunner, type SyncExecutionResult } from '../state-machine/local-chunks.ts';
import type { TaskState } from '../core/machine/states.ts';
import type { Handler } from '../functions/deps.ts';
import { fact } from '../aws-facts/facts.ts';

/** A scenario: what it proved, in a line; it throws when the database says otherwise. */
export type Scenario = (world: World) => Promise<string>;

/** Runs one experiment through the template's machine; returns its row and its executions. */
export async function experiment(
  world: World,
  label: string,
  request: Record<string, unknown>,
  /** Shortened Retry waits by state name (the definition's own are seconds to minutes). */
  retryIntervals?: Record<string, number>,
  /** Around each Task's handler (e.g. to act between turns). */
  wrap?: (state: TaskState, handler: Handler) => Handler,
  /** Shortened waits of Wait states by name (an outage's OutageWait waits 15 s to 5 min). */
  waitIntervals?: Record<string, number>,
): Promise<ExperimentRow> {
  const name = `rehearsal-${label}-${randomBytes(3).toString('hex')}`;
  const run = await runExperimentMachine(world, { ...request, experimentId: name }, name, {
    retryIntervals,
    wrap,
    waitIntervals,
  }).catch((err: Error) => ({ executions: [], error: err }));
  const { rows } = await world.db.pool.query<Omit<ExperimentRow, 'id' | 'executions' | 'error'>>(
    'SELECT status, goal_found, actions_taken, stop_reason, failure_reason FROM experiments WHERE id = $1',
    [name],
  );
  if (!rows[0]) throw new Error(`experiment ${name} is not in the database`);
  return { id: name, ...rows[0], executions: run.executions, error: 'error' in run ? run.error : undefined };
}

export interface ExperimentRow {
  id: string;
  status: string;
  goal_found: boolean;
  actions_taken: number;
  stop_reason: string | null;
  failure_reason: string | null;
  executions: string[];
  /** How the execution failed, if it did (a failed experiment is still finalized in the database). */
  error?: Error;
}

const MAX_NAME_CHARS = fact('sfn.max-name-chars').value;
/** How the AWS SDK integration names an API's errors for the Task (RunChunk's). */
const SDK_ERRORS = fact('sfn.aws-sdk-error-names').value;
const MAX_HISTORY_EVENTS = fact('sfn.max-history-events').value;

/** Counts a name StartExecution would refuse (InvalidName: 1 to 80 of [A-Za-z0-9_-]), and fails the start so. */
function nameCheck(world: World, where: string, name: string): void {
  if (/^[A-Za-z0-9_-]+$/.test(name) && name.length <= MAX_NAME_CHARS) return;
  world.violations.push({
    quota: `execution name (${MAX_NAME_CHARS} characters)`,
    where: `${where} "${name}"`,
    measured: name.length,
    limit: MAX_NAME_CHARS,
    unit: 'characters',
  });
  throw Object.assign(new Error(`Invalid Name: '${name}'`), { name: 'StepFunctions.InvalidNameException' });
}

/**
 * One execution of the template's experiment machine, followed through its continue-as-new hops, with every start
 * checked as AWS would: the name and input quotas, and each hop's states:StartExecution sent to the Step Functions
 * server signed as the machine's own role (the service calls it with the role's credentials); afterwards each
 * execution's history against the 25,000-event quota.
 */
export async function runExperimentMachine(
  world: World,
  input: Record<string, unknown>,
  name: string,
  opts: Pick<LocalRunOptions, 'retryIntervals' | 'waitIntervals' | 'wrap' | 'onTaskResult' | 'duplicateChunks'> = {},
): Promise<LocalRunResult> {
  const { logicalId, definition, arn, handlers, chunks } = machineOf(world);
  nameCheck(world, 'execution name', name);
  payloadCheck(world, 'execution input', input);
  const sfn = new SFNClient({
    endpoint: world.endpoints.AWS_ENDPOINT_URL_SFN,
    region: world.model.values.env.region,
    credentials: { accessKeyId: world.model.principal(logicalId).accessKeyId, secretAccessKey: 'rehearsal-secret' },
    maxAttempts: 1,
    // StartSyncExecution's endpoint is sync-states.<region>: the server here answers on one address
    disableHostPrefix: true,
  });
  try {
    const run = await runLocalExecution(input, {
      deps: { now: () => new Date() },
      taskHandlers: handlers,
      definition,
      stateMachineArn: arn,
      executionName: name,
      ...(chunks && {
        chunkDefinition: chunks.definition,
        chunkTaskHandlers: chunks.handlers,
        onStartSyncExecution: (p, run) => startChunk(world, sfn, p, run),
      }),
      ...opts,
      onStartExecution: async (p) => {
        nameCheck(world, 'continue-as-new execution name', p.Name);
        payloadCheck(world, 'continue-as-new execution input', p.Input);
        await sfn.send(
          new StartExecutionCommand({
            stateMachineArn: p.StateMachineArn,
            name: p.Name,
            input: JSON.stringify(p.Input),
          }),
        );
      },
    });
    run.historyEvents.forEach((events, i) => {
      if (events > MAX_HISTORY_EVENTS)
        world.violations.push({
          quota: `execution history (${MAX_HISTORY_EVENTS.toLocaleString('en-US')} events)`,
          where: run.executions[i],
          measured: events,
          limit: MAX_HISTORY_EVENTS,
          unit: 'events',
        });
    });
    return run;
  } finally {
    sfn.destroy();
  }
}

/**
 * RunChunk as Step Functions runs aws-sdk:sfn:startSyncExecution: the request sent to the Step Functions server signed
 * as the experiment machine's role (states:StartSyncExecution on the turn machine), its input within the payload
 * quota; the server runs the chunk (registered under the request's name) and answers as the API does. An error the
 * API answers is the Task's, named as the integration names it: "Sfn." and the API's error (aws-facts:
 * sfn.aws-sdk-error-names).
 */
async function startChunk(
  world: World,
  sfn: SFNClient,
  params: { StateMachineArn: string; Input: string },
  run: ChunkRunner,
): Promise<SyncExecutionResult> {
  const { chunks } = machineOf(world);
  payloadCheck(world, 'chunk input', JSON.parse(params.Input));
  const name = `chunk-${randomBytes(8).toString('hex')}`;
  chunks!.runs.set(name, run);
  try {
    const answer = await sfn.send(
      new StartSyncExecutionCommand({ stateMachineArn: params.StateMachineArn, name, input: params.Input }),
    );
    return asTaskResult(answer as unknown as Record<string, unknown>);
  } catch (err) {
    throw Object.assign(new Error((err as Error).message), {
      name: `${SDK_ERRORS.stepFunctionsPrefix}.${(err as Error).name}`,
    });
  } finally {
    chunks!.runs.delete(name);
  }
}

/** Fails unless the experiment reached the goal. */
export function toGoal(row: { id: string; status: string; goal_found: boolean }): void {
  if (row.status !== 'completed' || !row.goal_found)
    throw new Error(`experiment ${row.id} ended ${row.status}, goal found: ${row.goal_found}`);
}
