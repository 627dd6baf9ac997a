// Nested orchestration on this machine: RunChunk's chunk of turns run on the local engine from the Express turn
// machine's definition, with the same Task handlers, and answered as the Step Functions AWS SDK integration answers
// aws-sdk:sfn:startSyncExecution: the API's response in PascalCase (aws-facts: sfn.aws-sdk-error-names), Output a JSON
// string, SUCCEEDED, FAILED or TIMED_OUT at Express's 5 minutes (a timed-out chunk's Task in flight runs on).
import { randomUUID } from 'node:crypto';
import type { StateMachine } from 'aws-local-stepfunctions';
import { fact } from '../aws-facts/facts.ts';

const EXPRESS_MAX_MS = fact('sfn.express-max-execution-seconds').value * 1000;
const BILLING = fact('sfn.express-billing-increments').value;

/** One chunk as it ran: for the cost bench (Express bills requests and duration) and the tests. */
export interface ChunkReport {
  status: 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT';
  ms: number;
  /** States entered in the chunk (Express does not bill them one by one) and the turns among them. */
  transitions: number;
  turns: number;
  /** A second delivery of the chunk (LocalRunOptions.duplicateChunks), whose answer nobody waits for. */
  duplicate: boolean;
}

/** What RunChunk's Task gets from startSyncExecution: the API's response, its field names in PascalCase. */
export type SyncExecutionResult = Record<string, unknown> & { Status: string; Output?: string };

/** How a chunk's run ends: its last state, or a failure with the error's name and cause. */
export type ChunkRunner = (input: unknown) => Promise<unknown>;

/** Runs `run` as StartSyncExecution runs an Express execution: the reply when it ends or at the Express limit. */
export async function syncExecution(
  params: { StateMachineArn: string; Input: string },
  run: ChunkRunner,
  expressMaxMs = EXPRESS_MAX_MS,
): Promise<SyncExecutionResult> {
  const name = randomUUID();
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<SyncExecutionResult>((resolve) => {
    timer = setTimeout(() => resolve({ Status: 'TIMED_OUT', Error: 'States.Timeout' }), expressMaxMs);
  });
  const ran = run(JSON.parse(params.Input)).then(
    (output): SyncExecutionResult => ({ Status: 'SUCCEEDED', Output: JSON.stringify(output) }),
    (err: Error): SyncExecutionResult => ({ Status: 'FAILED', Error: err.name, Cause: err.message }),
  );
  const end = await Promise.race([ran, timedOut]).finally(() => clearTimeout(timer));
  const ms = Date.now() - started;
  return {
    ExecutionArn: `${params.StateMachineArn.replace(':stateMachine:', ':express:')}:${name}:${randomUUID()}`,
    StateMachineArn: params.StateMachineArn,
    Name: name,
    StartDate: new Date(started).toISOString(),
    StopDate: new Date(started + ms).toISOString(),
    Input: params.Input,
    InputDetails: { Included: true },
    BillingDetails: {
      BilledMemoryUsedInMB: BILLING.memoryMb,
      BilledDurationInMilliseconds: Math.max(
        BILLING.durationMs,
        Math.ceil(ms / BILLING.durationMs) * BILLING.durationMs,
      ),
    },
    ...end,
    ...(end.Output === undefined ? {} : { OutputDetails: { Included: true } }),
  };
}

/** The PascalCase form of an SDK client's StartSyncExecution response, as the integration gives it to the Task. */
export function asTaskResult(response: Record<string, unknown>): SyncExecutionResult {
  const pascal = (value: unknown): unknown => {
    if (value instanceof Date) return value.toISOString();
    if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== '$metadata')
        .map(([k, v]) => [k[0].toUpperCase() + k.slice(1), pascal(v)]),
    );
  };
  return pascal(response) as SyncExecutionResult;
}

/** Runs one chunk on the local engine: its output, or its failure thrown; counted into `report`. */
export async function runChunkOnEngine(
  machine: StateMachine,
  input: unknown,
  opts: {
    handlers: Record<string, (input: unknown) => Promise<never>>;
    machineArn: string;
    retryIntervals?: Record<string, number>;
    waitIntervals?: Record<string, number>;
    onEvent?: (event: { type: string; state?: { name: string; type: string } }) => void;
    /** Given the run's abort, e.g. to stop it with the whole run or at the Express limit. */
    started?: (abort: () => void) => void;
    report: Pick<ChunkReport, 'transitions' | 'turns'>;
  },
): Promise<unknown> {
  const name = randomUUID();
  const execution = machine.run(input as never, {
    overrides: {
      taskResourceLocalHandlers: opts.handlers,
      ...(opts.retryIntervals ? { retryIntervalOverrides: opts.retryIntervals } : {}),
      ...(opts.waitIntervals ? { waitTimeOverrides: opts.waitIntervals } : {}),
    },
    context: {
      Execution: { Id: `${opts.machineArn.replace(':stateMachine:', ':express:')}:${name}`, Name: name },
      StateMachine: { Id: opts.machineArn, Name: opts.machineArn.split(':').at(-1)! },
    },
  });
  opts.started?.(execution.abort);
  const drained = (async () => {
    for await (const event of execution.eventLogs) {
      if (event.type === 'StateEntered') {
        opts.report.transitions++;
        if (event.state.name.startsWith('Invoke')) opts.report.turns++;
      }
      opts.onEvent?.(event);
    }
  })();
  try {
    return await execution.result;
  } finally {
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 100))]);
  }
}
