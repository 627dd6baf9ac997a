// Runs the synthesized experiment state machine on this machine with
// aws-local-stepfunctions, each Task bound to its handler in-process.
import './promise-polyfill.ts';
import './jsonpath-scalars.ts';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StateMachine } from 'aws-local-stepfunctions';
import { chunkDefinition, experimentDefinition } from './definition.ts';
import {
  runChunkOnEngine,
  syncExecution,
  type ChunkReport,
  type ChunkRunner,
  type SyncExecutionResult,
} from './local-chunks.ts';
import { TASKS } from '../core/machine/tasks.ts';
import { HANDLER_MODULES } from './handler-modules.ts';
import { historyEventsOf } from '../core/machine/history-events.ts';
import { fact } from '../aws-facts/facts.ts';
import {
  EXECUTION_ALREADY_EXISTS,
  INPUT_ERRORS,
  STATES,
  type Orchestration,
  type TaskState,
} from '../core/machine/states.ts';
import { InvalidInputError } from '../core/errors.ts';
import type { HandlerDeps, HandlerFactory, Handler } from '../functions/deps.ts';

const LOCAL_STATE_MACHINE_ARN = 'arn:aws:states:local:000000000000:stateMachine:AriadneExperiments';

export interface LocalRunOptions {
  /** The handlers' dependencies, for every Task state not in `taskHandlers`; `now` is the handlers' clock. */
  deps: Pick<HandlerDeps, 'now'> & Partial<HandlerDeps>;
  /**
   * Handlers bound to Task states instead of the in-process ones, e.g. the deploy rehearsal's Lambda processes
   * (the definition's Resource is not called: the state name binds, as in the local runner).
   */
  taskHandlers?: Partial<Record<TaskState, Handler>>;
  /** Another definition of this machine (e.g. from a cloud assembly) and its ARN; default the synthesized one. */
  definition?: object;
  stateMachineArn?: string;
  executionName?: string;
  /** Called with each Task's output, e.g. to show progress after every turn. */
  onTaskResult?: (state: TaskState, output: unknown) => void;
  /** Wraps handlers, e.g. to inject faults in tests. */
  wrap?: (state: TaskState, handler: Handler) => Handler;
  /**
   * Every event of the local engine (StateEntered, StateExited, ...), e.g. to count state transitions; a chunk's
   * (an Express execution's, billed by duration rather than by transition) come with `machine: 'chunk'`.
   */
  onEvent?: (event: { type: string; state?: { name: string; type: string }; machine?: 'chunk' }) => void;
  /**
   * Called before the machine starts an execution of itself (continue-as-new, states:startExecution) with the
   * parameters the service gets; a rejection is that call's failure (e.g. the deploy rehearsal's IAM check).
   */
  onStartExecution?: (params: { StateMachineArn: string; Name: string; Input: unknown }) => Promise<void>;
  /** Which synthesized definition runs when `definition` is not given (default: the stack's default). */
  orchestration?: Orchestration;
  /** The Express turn machine's definition, when `definition` is another than the synthesized one and nests it. */
  chunkDefinition?: object;
  /** Handlers bound to the turn machine's Tasks instead of `taskHandlers` (e.g. invoked with that machine's role). */
  chunkTaskHandlers?: Partial<Record<TaskState, Handler>>;
  /**
   * Called for each RunChunk (aws-sdk:sfn:startSyncExecution) with its parameters and the chunk's run; answers the
   * Task's result. Default: the chunk runs here (e.g. the deploy rehearsal sends it through its Step Functions server).
   */
  onStartSyncExecution?: (
    params: { StateMachineArn: string; Input: string },
    run: ChunkRunner,
  ) => Promise<SyncExecutionResult>;
  /**
   * A fault: chunk n (from 0) is delivered twice, as a retried start would: a second execution of it runs at the same
   * time, and the Task gets one answer. The run ends only once every delivery has.
   */
  duplicateChunks?: (n: number) => boolean;
  /** Express's limit on a chunk, in milliseconds, instead of AWS's 5 minutes (tests: a chunk that times out). */
  expressMaxMs?: number;
  /** Milliseconds to wait before each Retry of a state, instead of the definition's intervals (tests). */
  retryIntervals?: Record<string, number>;
  /** Milliseconds a Wait state waits, by state, instead of what the definition says (tests: OutageWait). */
  waitIntervals?: Record<string, number>;
  /**
   * Execution names already used, as the service keeps them for 90 days (shared between runs to emulate that, e.g.
   * a continuation that already started); the names this run starts are added.
   */
  executionNames?: Set<string>;
  /**
   * Stops the run at its next turn boundary once aborted: no agent turn (nor the experiment itself) starts after it;
   * the Task in flight finishes and commits, CheckProgress and a Finalize still run. The run then rejects with
   * ExecutionStoppedError (an experiment that finalized meanwhile ends as usual).
   */
  signal?: AbortSignal;
}

/** The run was stopped through LocalRunOptions.signal before its next turn; everything committed is kept. */
export class ExecutionStoppedError extends Error {
  override readonly name = 'ExecutionStoppedError';
  constructor() {
    super('the execution was stopped before its next turn');
  }
}

/** The Tasks that start work a stop must not start: the experiment, and each agent turn. */
const STOP_BEFORE: ReadonlySet<TaskState> = new Set([
  STATES.StartExperiment,
  STATES.InvokeBaselineAgent,
  STATES.InvokeOllamaAgent,
  STATES.InvokeOpenAIAgent,
  STATES.InvokeBedrockAgent,
]);

const machines = new WeakMap<object, StateMachine>();

const VALIDATION = { checkArn: false } as const;

/**
 * One validated machine per definition. Validating compiles the ASL validator's schemas: 0.26 s (0.4 s of CPU) of
 * every process that runs an experiment, for the same synthesized definition each time. So a definition is
 * validated once per content: a marker in the OS temp dir, named by a hash of the definition and the options, says
 * it passed, and the next process builds the machine without validating (noValidate). A definition never validated
 * (a new one, or the marker gone) is validated as before, and a failing one leaves no marker.
 */
async function localMachine(def: object): Promise<StateMachine> {
  let m = machines.get(def);
  if (!m) {
    // the engine and what it brings (the Lambda client, JSONata, the ASL validator) load with the first run
    const { StateMachine } = await import('aws-local-stepfunctions');
    const hash = createHash('sha256')
      .update(JSON.stringify([VALIDATION, def]))
      .digest('hex')
      .slice(0, 32);
    const marker = join(tmpdir(), `ariadne-asl-valid-${hash}`);
    const validated = existsSync(marker);
    m = new StateMachine(def as never, { validationOptions: validated ? { noValidate: true } : VALIDATION });
    if (!validated) writeFileSync(marker, '');
    machines.set(def, m);
  }
  return m;
}

export interface LocalRunResult {
  /** The last execution; with continue-as-new, `executions` lists them all in order. */
  executionArn: string;
  executions: string[];
  output: unknown;
  /** Events the execution produced (the local engine's count; AWS history counts differ slightly). */
  events: number;
  /** The history events AWS would write, per execution (history-events.ts), in the order of `executions`. */
  historyEvents: number[];
  /** Each chunk of turns (nested orchestration), in the order they ended. */
  chunks: ChunkReport[];
}

/**
 * The local engine stamps $$.Execution.StartTime from the wall clock, whatever context it is given; the handlers
 * may run on another clock (deps.now, e.g. a test's). A payload's `execution` (StartExperiment's, CheckProgress's) or
 * `chunk` clock gets the execution's or the chunk's start on theirs.
 */
function onHandlersClock(input: unknown, key: 'execution' | 'chunk', startTime: string): unknown {
  const clock = (input as Record<string, unknown> | null)?.[key];
  if (!clock || typeof clock !== 'object' || !('startTime' in clock)) return input;
  return { ...(input as object), [key]: { ...clock, startTime } };
}

/** The states whose payload carries the execution's clock. */
const CLOCKED: ReadonlySet<string> = new Set([STATES.StartExperiment, STATES.CheckProgress]);

type TaskHandlers = Record<string, (input: unknown) => Promise<never>>;

/** Each Task state's handler (`only` those given: the turn machine's), stopping as LocalRunOptions.signal says. */
async function localHandlers(
  opts: LocalRunOptions,
  startTime: () => string,
  stop: () => void,
  only?: ReadonlySet<string>,
): Promise<TaskHandlers> {
  const out: TaskHandlers = {};
  let stopped = false;
  for (const [state, binding] of Object.entries(TASKS) as Array<[TaskState, (typeof TASKS)[TaskState]]>) {
    if (only && !only.has(state)) continue;
    let base = opts.taskHandlers?.[state];
    if (!base) {
      const load = HANDLER_MODULES[binding.file];
      if (!load) throw new Error(`${binding.file} has no loader in state-machine/handler-modules.ts`);
      const factory = (await load())[binding.factoryExport] as HandlerFactory | undefined;
      if (typeof factory !== 'function') throw new Error(`${binding.file} does not export ${binding.factoryExport}`);
      if (!opts.deps.store || !opts.deps.agents)
        throw new Error(`${state} has neither a task handler nor the store and agents its handler needs`);
      base = factory(opts.deps as HandlerDeps);
    }
    const handler = opts.wrap ? opts.wrap(state, base) : base;
    out[state] = async (input) => {
      if (stopped || (opts.signal?.aborted && STOP_BEFORE.has(state))) {
        // The result rejects at once (aborted); the engine still runs on in the background, and must reach its
        // end to clear its TimeoutSeconds timer: every Task fails from now on, running nothing (no Finalize).
        stopped = true;
        stop();
        throw new ExecutionStoppedError();
      }
      // A Lambda only ever sees JSON: each handler's answer is round-tripped so local runs cannot pass Dates or
      // class instances along. A Task's input is built by the engine from JSON alone (the execution's input, made
      // JSON when the execution starts, the context's strings and earlier answers), and is cloned by it per state.
      const payload = CLOCKED.has(state) ? onHandlersClock(input, 'execution', startTime()) : input;
      const output: unknown = JSON.parse(JSON.stringify(await handler(payload)));
      opts.onTaskResult?.(state, output);
      return output as never;
    };
  }
  return out;
}

const executionArnOf = (name: string, machineArn = LOCAL_STATE_MACHINE_ARN) =>
  `${machineArn.replace(':stateMachine:', ':execution:')}:${name}`;

type Definition = { States: Record<string, { Type?: string }> };
type StartParams = { StateMachineArn: string; Name: string; Input: unknown };
type Execution = ReturnType<StateMachine['run']>;

/** The executions of one experiment, one after another: each continue-as-new queues the next. */
class LocalExecutions {
  readonly machineArn: string;
  startTime: string;
  abortExecution = () => {};
  next: { name: string; input: unknown } | null;
  readonly names: Set<string>;
  readonly executions: string[] = [];
  readonly historyEvents: number[] = [];
  events = 0;
  readonly definition: Definition;
  /** The Express turn machine, when this machine runs its turns in chunks (RunChunk). */
  readonly chunkMachine?: { definition: object; arn: string };
  readonly chunks: ChunkReport[] = [];
  /** The turn machine's Task handlers, when they are not the experiment machine's. */
  chunkHandlers?: TaskHandlers;
  /** Deliveries of chunks no Task waits for (duplicates): the run ends when they have. */
  readonly pending: Promise<unknown>[] = [];
  private readonly chunkAborts = new Set<() => void>();
  private chunkCount = 0;

  constructor(
    input: unknown,
    readonly opts: LocalRunOptions,
  ) {
    this.machineArn = opts.stateMachineArn ?? LOCAL_STATE_MACHINE_ARN;
    this.startTime = opts.deps.now().toISOString();
    // as StartExecution's input is, a JSON text: a Date or a class instance is what its JSON says
    this.next = { name: opts.executionName ?? randomUUID(), input: JSON.parse(JSON.stringify(input ?? null)) };
    this.names = opts.executionNames ?? new Set<string>();
    this.names.add(this.next.name);
    this.definition = (opts.definition ?? experimentDefinition(opts.orchestration)) as Definition;
    const runChunk = this.definition.States[STATES.RunChunk] as { Parameters?: { StateMachineArn?: string } };
    if (runChunk) {
      const definition = opts.chunkDefinition ?? (opts.definition ? undefined : chunkDefinition(opts.orchestration));
      const arn = runChunk.Parameters?.StateMachineArn;
      if (!definition || !arn) throw new Error('the machine runs its turns in chunks: give its chunkDefinition too');
      this.chunkMachine = { definition, arn };
    }
  }

  /** Stops every chunk running (the whole run is stopped). */
  abortChunks(): void {
    for (const abort of this.chunkAborts) abort();
  }

  /**
   * RunChunk: the chunk's Express execution, here or through onStartSyncExecution, answered as the AWS SDK
   * integration answers; delivered twice when duplicateChunks says so.
   */
  async runChunk(params: { StateMachineArn: string; Input: string }, handlers: TaskHandlers): Promise<never> {
    const n = this.chunkCount++;
    if (this.opts.duplicateChunks?.(n)) this.pending.push(this.deliverChunk(params, handlers, true).catch(() => null));
    return (await this.deliverChunk(params, handlers, false)) as never;
  }

  private async deliverChunk(
    params: { StateMachineArn: string; Input: string },
    handlers: TaskHandlers,
    duplicate: boolean,
  ): Promise<SyncExecutionResult> {
    const report: ChunkReport = { status: 'SUCCEEDED', ms: 0, transitions: 0, turns: 0, duplicate };
    let abort = () => {};
    const run: ChunkRunner = (input) => this.chunkRun(input, handlers, report, (a) => (abort = a));
    const t0 = Date.now();
    const result = await (this.opts.onStartSyncExecution
      ? this.opts.onStartSyncExecution(params, run)
      : syncExecution(params, run, this.opts.expressMaxMs));
    // stopped at the Express limit, the chunk runs no further state (its Task in flight goes on, as in Lambda)
    if (result.Status === 'TIMED_OUT') abort();
    report.status = result.Status as ChunkReport['status'];
    report.ms = Date.now() - t0;
    this.chunks.push(report);
    return result;
  }

  /** One chunk on the local engine, its CheckProgress given the chunk's start on the handlers' clock. */
  private async chunkRun(
    input: unknown,
    handlers: TaskHandlers,
    report: ChunkReport,
    started: (abort: () => void) => void,
  ): Promise<unknown> {
    const machine = this.chunkMachine!;
    const chunkStart = this.opts.deps.now().toISOString();
    handlers = this.chunkHandlers ?? handlers;
    const checkProgress = handlers[STATES.CheckProgress];
    let abort = () => {};
    try {
      return await runChunkOnEngine(await localMachine(machine.definition), input, {
        handlers: {
          ...handlers,
          [STATES.CheckProgress]: (i) => checkProgress(onHandlersClock(i, 'chunk', chunkStart)),
        },
        machineArn: machine.arn,
        retryIntervals: this.opts.retryIntervals,
        waitIntervals: this.opts.waitIntervals,
        onEvent: this.opts.onEvent && ((e) => this.opts.onEvent!({ ...e, machine: 'chunk' })),
        started: (a) => {
          abort = a;
          this.chunkAborts.add(a);
          started(a);
        },
        report,
      });
    } finally {
      this.chunkAborts.delete(abort);
    }
  }

  /**
   * states:startExecution on this machine, in-process: the continuation queued, answered as the service answers (a
   * refusal is a rejection, as from the service).
   */
  startExecution(p: StartParams): Promise<never> {
    const refuse = (message: string, name: string) => Promise.reject(Object.assign(new Error(message), { name }));
    if (p.StateMachineArn !== this.machineArn)
      return refuse(`unknown state machine ${p.StateMachineArn}`, 'StateMachineDoesNotExist');
    // As the service: names are 1-80 of [A-Za-z0-9_-].
    if (!/^[A-Za-z0-9_-]+$/.test(p.Name) || p.Name.length > fact('sfn.max-name-chars').value)
      return refuse(`Invalid Name: '${p.Name}'`, 'StepFunctions.InvalidNameException');
    // As the service: a used name is refused (ExecutionAlreadyExists), unless it is the execution this one just
    // started with the same input (StartExecution is idempotent while that execution is open).
    const queued = this.next;
    const same = queued?.name === p.Name && JSON.stringify(queued.input) === JSON.stringify(p.Input);
    if (this.names.has(p.Name) && !same)
      return refuse(`Execution Already Exists: '${executionArnOf(p.Name, this.machineArn)}'`, EXECUTION_ALREADY_EXISTS);
    this.names.add(p.Name);
    this.next = { name: p.Name, input: p.Input };
    return Promise.resolve({
      ExecutionArn: executionArnOf(p.Name, this.machineArn),
      StartDate: new Date().toISOString(),
    } as never);
  }

  /** One execution started on the local engine, its ContinueAsNew Task bound to startExecution. */
  async start(current: { name: string; input: unknown }, handlers: TaskHandlers): Promise<Execution> {
    const executionArn = executionArnOf(current.name, this.machineArn);
    this.startTime = this.opts.deps.now().toISOString();
    this.executions.push(executionArn);
    const continueAsNew = async (params: unknown): Promise<never> => {
      await this.opts.onStartExecution?.(params as StartParams);
      return this.startExecution(params as StartParams);
    };
    const execution = (await localMachine(this.definition)).run(current.input as never, {
      overrides: {
        taskResourceLocalHandlers: {
          ...handlers,
          [STATES.ContinueAsNew]: continueAsNew,
          ...(this.chunkMachine
            ? {
                [STATES.RunChunk]: (p: unknown) =>
                  this.runChunk(p as { StateMachineArn: string; Input: string }, handlers),
              }
            : {}),
        },
        ...(this.opts.retryIntervals ? { retryIntervalOverrides: this.opts.retryIntervals } : {}),
        ...(this.opts.waitIntervals ? { waitTimeOverrides: this.opts.waitIntervals } : {}),
      },
      context: {
        Execution: { Id: executionArn, Name: current.name, StartTime: this.startTime, Input: current.input as never },
        StateMachine: { Id: this.machineArn, Name: this.machineArn.split(':').at(-1)! },
      },
    });
    this.abortExecution = execution.abort;
    return execution;
  }

  /**
   * The execution's events read as they come (the engine queues every event until read: a long run would hold
   * them all in memory), counted as AWS counts history events; a stop during a Wait ends the execution at once.
   */
  async drain(execution: Execution, isWaiting: (waiting: boolean) => void): Promise<void> {
    const index = this.historyEvents.push(0) - 1;
    for await (const event of execution.eventLogs) {
      this.events++;
      const state = 'state' in event ? event.state.name : undefined;
      const type = state && this.definition.States[state]?.Type;
      if (type === 'Wait') {
        isWaiting(event.type === 'StateEntered');
        if (event.type === 'StateEntered' && this.opts.signal?.aborted) this.abortExecution();
      }
      this.historyEvents[index] += historyEventsOf(event, type);
      this.opts.onEvent?.(event);
    }
  }

  /** The execution's output, or its failure as the caller knows it (a stop, the caller's bad input). */
  async outcome(execution: Execution): Promise<unknown> {
    // A stop during a wait (a provider outage's, minutes long) ends the execution now: no turn is in flight.
    let waiting = false;
    const stopWaiting = () => {
      if (waiting) this.abortExecution();
    };
    this.opts.signal?.addEventListener('abort', stopWaiting);
    const drained = this.drain(execution, (w) => (waiting = w));
    try {
      return await execution.result;
    } catch (err) {
      if (this.opts.signal?.aborted && (err as Error).name === 'ExecutionAbortedError')
        throw new ExecutionStoppedError();
      // InputRefused (a Fail state) carries StartExperiment's error name: locally that is the caller's bad input.
      const cause = (err as Error).cause as Error | undefined;
      if (cause && INPUT_ERRORS.includes(cause.name)) throw new InvalidInputError('input', undefined, cause.message);
      throw err;
    } finally {
      this.opts.signal?.removeEventListener('abort', stopWaiting);
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 100))]);
    }
  }
}

/**
 * Executes one experiment through the state machine, following continue-as-new
 * hand-overs (each a new execution, run after the one that started it).
 * Resolves with the last execution's output or throws its failure.
 */
export async function runLocalExecution(input: unknown, opts: LocalRunOptions): Promise<LocalRunResult> {
  const run = new LocalExecutions(input, opts);
  const stop = () => {
    run.abortExecution();
    run.abortChunks();
  };
  const handlers = await localHandlers(opts, () => run.startTime, stop);
  if (opts.chunkTaskHandlers)
    run.chunkHandlers = await localHandlers(
      { ...opts, taskHandlers: opts.chunkTaskHandlers },
      () => run.startTime,
      stop,
      new Set(Object.keys(opts.chunkTaskHandlers)),
    );
  let output: unknown = null;
  while (run.next) {
    const current = run.next;
    run.next = null;
    output = await run.outcome(await run.start(current, handlers)).finally(() => Promise.all(run.pending));
  }
  const { executions, events, historyEvents, chunks } = run;
  return { executionArn: executions.at(-1)!, executions, output, events, historyEvents, chunks };
}
