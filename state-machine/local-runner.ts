// Runs the synthesized experiment state machine on this machine with
// aws-local-stepfunctions, each Task bound to its handler in-process.
import './promise-polyfill.ts';
import { randomUUID } from 'node:crypto';
import { StateMachine } from 'aws-local-stepfunctions';
import { experimentDefinition } from './definition.ts';
import { TASKS, HANDLERS_DIR } from './tasks.ts';
import type { TaskState } from './states.ts';
import type { HandlerDeps, HandlerFactory, Handler } from '../lambdas/handlers/deps.ts';

export const LOCAL_STATE_MACHINE_ARN = 'arn:aws:states:local:000000000000:stateMachine:AriadneExperiments';

export interface LocalRunOptions {
  deps: HandlerDeps;
  executionName?: string;
  /** Called with each Task's output, e.g. to show progress after every turn. */
  onTaskResult?: (state: TaskState, output: unknown) => void;
  /** Wraps handlers, e.g. to inject faults in tests. */
  wrap?: (state: TaskState, handler: Handler) => Handler;
  /** Milliseconds to wait before each Retry of a state, instead of the definition's intervals (tests). */
  retryIntervals?: Record<string, number>;
}

let machine: StateMachine | null = null;

/** One validated machine per process: constructing it compiles the ASL validator's schemas. */
function localMachine(): StateMachine {
  machine ??= new StateMachine(experimentDefinition() as never, { validationOptions: { checkArn: false } });
  return machine;
}

export interface LocalRunResult {
  executionArn: string;
  output: unknown;
  /** Events the execution produced (the local engine's count; AWS history counts differ slightly). */
  events: number;
}

async function localHandlers(opts: LocalRunOptions): Promise<Record<string, (input: unknown) => Promise<never>>> {
  const out: Record<string, (input: unknown) => Promise<never>> = {};
  for (const [state, binding] of Object.entries(TASKS) as Array<[TaskState, (typeof TASKS)[TaskState]]>) {
    const mod = await import(new URL(binding.file, HANDLERS_DIR).href) as Record<string, HandlerFactory>;
    const factory = mod[binding.factoryExport];
    if (typeof factory !== 'function') throw new Error(`${binding.file} does not export ${binding.factoryExport}`);
    const base = factory(opts.deps);
    const handler = opts.wrap ? opts.wrap(state, base) : base;
    out[state] = async (input) => {
      // A Lambda only ever sees JSON: round-trip so local runs cannot pass Dates or class instances along.
      const output = JSON.parse(JSON.stringify(await handler(JSON.parse(JSON.stringify(input)))));
      opts.onTaskResult?.(state, output);
      return output as never;
    };
  }
  return out;
}

/** Executes one experiment through the state machine; resolves with the execution's output or throws its failure. */
export async function runLocalExecution(input: unknown, opts: LocalRunOptions): Promise<LocalRunResult> {
  const name = opts.executionName ?? randomUUID();
  const executionArn = `${LOCAL_STATE_MACHINE_ARN.replace(':stateMachine:', ':execution:')}:${name}`;
  const machine = localMachine();
  const execution = machine.run(input as never, {
    overrides: { taskResourceLocalHandlers: await localHandlers(opts), ...(opts.retryIntervals ? { retryIntervalOverrides: opts.retryIntervals } : {}) },
    context: {
      Execution: { Id: executionArn, Name: name, StartTime: new Date().toISOString(), Input: input as never },
      StateMachine: { Id: LOCAL_STATE_MACHINE_ARN, Name: 'AriadneExperiments' },
    },
  });
  // The engine queues every event until read: drain them, or a long run holds them all in memory.
  let events = 0;
  const drained = (async () => { for await (const _event of execution.eventLogs) events++; })();
  try {
    const output = await execution.result;
    return { executionArn, output, events };
  } finally {
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 100))]);
  }
}
