// The sweep machine, emulated from its synthesized definition: the local interpreter (aws-local-stepfunctions) runs
// no Distributed Map, ItemReader, ResultWriter or .waitForTaskToken Task, so the rehearsal plays them, reading every
// value from the template's definition, never from our constants. Each AWS call is made as the sweep machine's role
// would make it (signed SDK calls to the local servers, else checkServiceCalls). A sample of iterations runs its
// experiment to the end; the others' tokens are returned by stand-ins, with the key of the function that returns them.
import { randomUUID } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { machineOf, payloadCheck, templateMachine, type World } from './world.ts';
import type { LambdaProcess } from './lambda-process.ts';
import { runExperimentMachine } from './run-experiment.ts';
import { startRequestSchema } from '../core/machine/contracts.ts';
import type { TaskOutcome } from '../simulators/sfn-sim.ts';
import { SDK_THREADS, SfnClientWorkers } from './sfn-client-workers.ts';
import { fact } from '../aws-facts/facts.ts';
import {
  EXCEEDED_TOLERANCE,
  mapRules,
  mapWidth,
  runSweepList,
  type SweepMapRules,
  type SweepRunnerResult,
} from '../state-machine/sweep-runner.ts';
import {
  applyParameters,
  applyResultPath,
  checkFields,
  evaluateJsonata,
  matches,
  readPath,
  StateError,
  SweepEmulationError,
  type AslState,
  type Catcher,
  type Definition,
  type Json,
  type Retrier,
} from './asl.ts';

/** The sweep machine of the template: its resolved definition, ARN, name and principal. */
export interface SweepMachine {
  logicalId: string;
  arn: string;
  name: string;
  definition: Definition;
}

export function sweepMachineOf(world: World): SweepMachine {
  const { logicalId, arn, definition } = templateMachine<Definition>(world, 'Sweeps');
  return { logicalId, arn, name: arn.split(':').at(-1)!, definition };
}

/** Which iterations run their experiment to the end; the others are stood in for. */
export interface SweepOptions {
  sample: ReadonlySet<number>;
  /** The execution's name (the CLI names it; default a random one). */
  executionName?: string;
}

export interface IterationResult {
  index: number;
  name: string;
  /** The Map Run's child workflow execution of this item. */
  childExecutionArn: string;
  input: Json;
  status: 'SUCCEEDED' | 'FAILED';
  output?: Json;
  error?: string;
  cause?: string;
  startDate: Date;
  stopDate: Date;
  /** Sampled: its experiment ran; else a stand-in returned its token. */
  sampled: boolean;
  /** Who sent its token (the principal's logical id), if one was sent. */
  tokenSender?: string;
}

export interface SweepRunReport {
  executionArn: string;
  registered: Json;
  runList: { bucket: string; key: string; bytes: number; items: number };
  maxConcurrency: number;
  maxInFlight: number;
  startExecutionCalls: number;
  iterations: IterationResult[];
  mapRunArn: string;
  results: { bucket: string; manifestKey: string; files: Array<{ key: string; status: string; lines: number }> };
  output: Json;
}

/**
 * The ItemReader's limit on a JSON file in S3 (aws-facts: sfn.item-reader-max-json-file-bytes: 10 GB, as we know
 * it, not re-read from the page's current text). Each item also becomes
 * a child execution's input, which the 256 KiB payload quota bounds (checked per item with payloadCheck).
 */
const ITEM_READER_MAX_FILE_BYTES = fact('sfn.item-reader-max-json-file-bytes').value;
const MAX_NAME_CHARS = fact('sfn.max-name-chars').value;
/** A Map with no MaxConcurrency of ours runs up to this many children at once. */
const MAX_MAP_CHILDREN = fact('sfn.max-map-run-child-executions').value;
const DIST_MAP_ACTIONS = fact('sfn.distributed-map-actions').value;
const RESULT_FILES = fact('sfn.result-writer-files').value;

/** A stand-in's output: what the finalize functions send (FinalizeOutput's shape), saying it was not run. */
const standInOutput = (name: string) => ({ experimentId: name, status: 'stood_in', stopReason: 'not run (rehearsal)' });

/**
 * The Map Run over its items: its width (MaxConcurrency, or what MaxConcurrencyPath reads) and failure tolerance from
 * the Map state, the list run as the local sweep runs its own (sweep-runner.ts); `iterate` is one child workflow.
 */
export async function emulateMapRun<R extends { status: 'SUCCEEDED' | 'FAILED' }>(
  stateName: string,
  state: AslState,
  input: Json,
  items: Json[],
  iterate: (item: Json, index: number) => Promise<R>,
): Promise<{ width: number; rules: SweepMapRules; list: SweepRunnerResult<R> }> {
  const rules = mapRules(stateName, state);
  const asked =
    typeof rules.maxConcurrency === 'number' ? rules.maxConcurrency : readPath(rules.maxConcurrency.path, input);
  const width = mapWidth(asked, MAX_MAP_CHILDREN);
  if (width === null) throw new StateError('States.Runtime', `MaxConcurrency ${JSON.stringify(asked)} is not a count`);
  const list = await runSweepList(items, {
    width,
    toleratedFailurePercentage: rules.toleratedFailurePercentage,
    run: iterate,
  });
  return { width, rules, list };
}

export class SweepEmulator {
  private readonly env: World['model']['values']['env'];
  private readonly principal: string;
  private readonly accessKeyId: string;
  private readonly s3: S3Client;
  private readonly sfn: SfnClientWorkers;
  /** One container per function here: sampled experiments take turns (LambdaProcess runs one invocation). */
  private childQueue: Promise<unknown> = Promise.resolve();
  /** Why a sampled child's run failed, for the scenario's message. */
  readonly childErrors: string[] = [];

  constructor(
    private readonly world: World,
    readonly machine: SweepMachine = sweepMachineOf(world),
  ) {
    this.env = world.model.values.env;
    this.principal = machine.logicalId;
    this.accessKeyId = world.model.principal(machine.logicalId).accessKeyId;
    const credentials = { accessKeyId: this.accessKeyId, secretAccessKey: 'rehearsal-secret' };
    this.s3 = new S3Client({
      endpoint: world.endpoints.AWS_ENDPOINT_URL_S3,
      forcePathStyle: true,
      region: this.env.region,
      credentials,
    });
    this.sfn = new SfnClientWorkers(world.endpoints.AWS_ENDPOINT_URL_SFN, this.env.region, SDK_THREADS);
  }

  async close(): Promise<void> {
    this.s3.destroy();
    await this.sfn.close();
  }

  /** Runs one execution of the sweep machine from its StartAt to its end. */
  async run(input: Json, opts: SweepOptions): Promise<SweepRunReport> {
    const { definition } = this.machine;
    const name = opts.executionName ?? randomUUID();
    const { partition, region, account } = this.env;
    const executionArn = `arn:${partition}:states:${region}:${account}:execution:${this.machine.name}:${name}`;
    payloadCheck(this.world, 'sweep execution input', input);
    const report: Partial<SweepRunReport> = { executionArn };
    let data = input;
    let stateName: string | undefined = definition.StartAt;
    while (stateName) {
      const state: AslState | undefined = definition.States[stateName];
      if (!state) throw new SweepEmulationError(`no state ${stateName}`);
      if (state.Type === 'Task') {
        checkFields('LambdaTask', stateName, state);
        data = await this.lambdaTask(stateName, state, data, report);
      } else if (state.Type === 'Map') {
        checkFields('Map', stateName, state);
        data = await this.distributedMap(stateName, state, data, executionArn, opts, report);
      } else if (state.Type === 'Succeed') {
        checkFields('Succeed', stateName, state);
        break;
      } else throw new SweepEmulationError(`state ${stateName}: type ${state.Type} not emulated at the top level`);
      payloadCheck(this.world, `${stateName} output`, data);
      stateName = state.End ? undefined : (state.Next as string);
    }
    return { ...(report as SweepRunReport), output: data };
  }

  /**
   * The process of the function a Task's Resource names by its ARN (the form the stack synthesizes: CDK's
   * LambdaInvoke with payloadResponseOnly). The optimized integration (arn:aws:states:::lambda:invoke, whose result
   * wraps the function's in Payload) is refused rather than half emulated.
   */
  private processOf(stateName: string, functionArn: string): LambdaProcess {
    const values = this.world.model.values;
    if (!functionArn.includes(':lambda:') || !functionArn.includes(':function:'))
      throw new SweepEmulationError(`Task ${stateName}: Resource ${functionArn} is not a function ARN`);
    // arn:aws:lambda:REGION:ACCOUNT:function:NAME, without a version or alias qualifier
    const unqualified = functionArn.split(':').slice(0, 7).join(':');
    const process = [...this.world.processes.values()].find(
      (p) => values.attribute(p.fn.logicalId, 'Arn') === unqualified,
    );
    if (!process) throw new SweepEmulationError(`Task ${stateName}: ${functionArn} is no function of the stack`);
    return process;
  }

  /** A Task invoking a Lambda function: Parameters, the role's lambda:InvokeFunction, Retry, ResultPath. */
  private async lambdaTask(
    stateName: string,
    state: AslState,
    input: Json,
    report: Partial<SweepRunReport>,
  ): Promise<Json> {
    const resource = String(state.Resource);
    const payload = state.Parameters === undefined ? input : applyParameters(state.Parameters, input);
    const process = this.processOf(stateName, resource);
    const functionArn = this.world.model.values.attribute(process.fn.logicalId, 'Arn');
    // Step Functions invokes the function with the machine's role (Developer Guide, "Invoke an AWS Lambda
    // function with Step Functions", IAM policies: lambda:InvokeFunction on the function).
    if (
      !(await this.world.authorizer.checkServiceCalls(this.principal, [
        { action: 'lambda:InvokeFunction', resource: functionArn },
      ]))
    )
      throw new StateError('Lambda.AWSLambdaException', `the sweep machine may not invoke ${functionArn}`);
    payloadCheck(this.world, `${stateName} input`, payload);
    const retriers = (state.Retry as Retrier[] | undefined) ?? [];
    const attempts = new Map<Retrier, number>();
    for (;;) {
      const result = await process.invoke(payload);
      if (result.ok) {
        payloadCheck(this.world, `${stateName} result`, result.result);
        report.registered = result.result;
        return applyResultPath(state.ResultPath, input, result.result);
      }
      // Retry intervals are not waited here: the rehearsal checks which errors are retried and how often.
      const retrier = retriers.find((r) => matches(r.ErrorEquals, result.errorType));
      const used = retrier ? (attempts.get(retrier) ?? 0) : 0;
      if (!retrier || used >= (retrier.MaxAttempts ?? 3)) throw new StateError(result.errorType, result.errorMessage);
      attempts.set(retrier, used + 1);
    }
  }

  /** The Distributed Map: ItemReader, MaxConcurrency, each item's processor, the failure tolerance, ResultWriter. */
  private async distributedMap(
    stateName: string,
    state: AslState,
    input: Json,
    executionArn: string,
    opts: SweepOptions,
    report: Partial<SweepRunReport>,
  ): Promise<Json> {
    const processor = state.ItemProcessor as {
      ProcessorConfig?: { Mode?: string; ExecutionType?: string };
      StartAt: string;
      States: Record<string, AslState>;
    };
    if (processor.ProcessorConfig?.Mode !== 'DISTRIBUTED' || processor.ProcessorConfig.ExecutionType !== 'STANDARD')
      throw new SweepEmulationError(`Map ${stateName}: only a Distributed Map of Standard child workflows is emulated`);
    const { partition, region, account } = this.env;
    // Step Functions starts each iteration as a child workflow execution of this machine, with its role, which may
    // start executions of the machine and describe and stop its own (aws-facts: sfn.distributed-map-actions).
    // StopExecution is what stops the Map Run's work when the execution stops or fails; authorized, not exercised.
    const ownExecution = DIST_MAP_ACTIONS.execution.map((action) => ({
      action,
      resource: executionArn,
    }));
    if (!(await this.world.authorizer.checkServiceCalls(this.principal, ownExecution)))
      throw new StateError('States.Runtime', `the sweep machine may not describe or stop ${executionArn}`);

    const items = await this.readItems(stateName, state, input, report);
    const mapRunId = randomUUID();
    const label = (state.Label as string | undefined) ?? stateName;
    report.mapRunArn = `arn:${partition}:states:${region}:${account}:mapRun:${this.machine.name}/${label}:${mapRunId}`;
    report.startExecutionCalls = 0;
    const { width, rules, list } = await emulateMapRun(stateName, state, input, items, (item, index) =>
      this.iteration(index, item, processor, label, opts, report),
    );
    report.maxConcurrency = width;
    const iterations = list.ends.filter((i) => i !== undefined);
    report.iterations = iterations;
    report.maxInFlight = list.maxInFlight;
    this.lambdaConcurrencyCheck(stateName, list.maxInFlight);
    const output = await this.writeResults(state, input, report.mapRunArn, mapRunId, iterations, report);
    if (list.halted === EXCEEDED_TOLERANCE)
      throw new StateError(
        'States.ExceedToleratedFailureThreshold',
        `${list.counts.FAILED} of ${items.length} iterations failed, over the tolerated ` +
          `${rules.toleratedFailurePercentage}%`,
      );
    return applyResultPath(state.ResultPath, input, output);
  }

  /**
   * Each iteration in flight holds at most one Lambda invocation at a time (its experiment's Tasks run one after
   * another), so the peak in flight is the sweep's Lambda concurrency: past what the account has unreserved, AWS
   * throttles (Lambda.TooManyRequestsException). The quota is the Lambda server's account (settable: a new one).
   */
  private lambdaConcurrencyCheck(stateName: string, maxInFlight: number): void {
    const unreserved = this.world.sims.lambda.account.unreservedConcurrentExecutions;
    if (maxInFlight > unreserved)
      this.world.violations.push({
        quota: "Lambda concurrent executions (the account's unreserved)",
        where: `Map ${stateName}: experiments in flight, one invocation each`,
        measured: maxInFlight,
        limit: unreserved,
        unit: 'executions',
      });
  }

  /** ItemReader: s3:getObject of a JSON array, through the S3 server with the machine's key. */
  private async readItems(
    stateName: string,
    state: AslState,
    input: Json,
    report: Partial<SweepRunReport>,
  ): Promise<Json[]> {
    const reader = state.ItemReader as {
      Resource: string;
      ReaderConfig?: { InputType?: string; MaxItems?: number };
      Parameters?: Json;
    };
    if (reader.Resource !== `arn:${this.env.partition}:states:::s3:getObject`)
      throw new SweepEmulationError(`Map ${stateName}: ItemReader ${reader.Resource} not emulated`);
    if (reader.ReaderConfig?.InputType !== 'JSON')
      throw new SweepEmulationError(`Map ${stateName}: ItemReader InputType ${reader.ReaderConfig?.InputType}`);
    const { Bucket, Key } = applyParameters(reader.Parameters, input) as { Bucket: string; Key: string };
    let text: string;
    try {
      const object = await this.s3.send(new GetObjectCommand({ Bucket, Key }));
      text = await object.Body!.transformToString('utf8');
    } catch (err) {
      throw new StateError('States.ItemReaderFailed', `s3:GetObject s3://${Bucket}/${Key}: ${(err as Error).name}`);
    }
    const bytes = Buffer.byteLength(text);
    if (bytes > ITEM_READER_MAX_FILE_BYTES) {
      this.world.violations.push({
        quota: 'ItemReader JSON file (10 GB)',
        where: `s3://${Bucket}/${Key}`,
        measured: bytes,
        limit: ITEM_READER_MAX_FILE_BYTES,
        unit: 'bytes',
      });
      throw new StateError('States.ItemReaderFailed', `the run list is ${bytes} bytes`);
    }
    const items = JSON.parse(text) as unknown;
    if (!Array.isArray(items)) throw new StateError('States.ItemReaderFailed', 'the JSON file is not an array');
    const max = reader.ReaderConfig?.MaxItems;
    const read: Json[] = max ? items.slice(0, max) : items;
    report.runList = { bucket: Bucket, key: Key, bytes, items: read.length };
    return read;
  }

  /** One child workflow execution of the Map Run: its item processor, a JSONata callback Task (and its Catch). */
  private async iteration(
    index: number,
    item: Json,
    processor: { StartAt: string; States: Record<string, AslState> },
    label: string,
    opts: SweepOptions,
    report: Partial<SweepRunReport>,
  ): Promise<IterationResult> {
    const { partition, region, account } = this.env;
    const startDate = new Date();
    const childName = randomUUID();
    const childExecutionArn =
      `arn:${partition}:states:${region}:${account}:execution:${this.machine.name}/${label}:` + childName;
    const machineArn = this.machine.arn;
    const started = await this.world.authorizer.checkServiceCalls(
      this.principal,
      DIST_MAP_ACTIONS.stateMachine.map((action) => ({ action, resource: machineArn })),
    );
    const itemName = (item as { name?: unknown }).name;
    const name = typeof itemName === 'string' ? itemName : String(index);
    const base = { index, name, childExecutionArn, input: item, startDate, sampled: opts.sample.has(index) };
    if (!started)
      return {
        ...base,
        status: 'FAILED',
        error: 'States.Runtime',
        cause: 'StartExecution denied',
        stopDate: new Date(),
      };
    payloadCheck(this.world, `child workflow execution ${index} input`, item);

    let stateName: string | undefined = processor.StartAt;
    let data: Json = item;
    while (stateName) {
      const state: AslState = processor.States[stateName];
      if (state.Type === 'Pass') {
        checkFields('Pass', stateName, state);
      } else if (state.Type === 'Task') {
        checkFields('CallbackTask', stateName, state);
        const outcome = await this.callbackTask(stateName, state, data, base.sampled, report);
        if ('next' in outcome) {
          data = outcome.output;
          stateName = outcome.next;
          continue;
        }
        if (outcome.status === 'FAILED')
          return { ...base, status: 'FAILED', error: outcome.error, cause: outcome.cause, stopDate: new Date() };
        data = outcome.output;
        if (outcome.sender) (base as IterationResult).tokenSender = outcome.sender;
      } else throw new SweepEmulationError(`item processor state ${stateName}: type ${state.Type} not emulated`);
      stateName = state.End ? undefined : (state.Next as string);
    }
    return { ...base, status: 'SUCCEEDED', output: data, stopDate: new Date() };
  }

  /**
   * The Task "startExecution.waitForTaskToken" (Developer Guide, "Start a new AWS Step Functions state machine
   * from a running execution" and "Wait for a Callback with Task Token"): Arguments evaluated with the token in
   * $states.context.Task.Token, StartExecution as the machine's role, then the wait for SendTaskSuccess or
   * SendTaskFailure; errors named StepFunctions.<exception> go to Retry, then Catch.
   */
  private async callbackTask(
    stateName: string,
    state: AslState,
    input: Json,
    sampled: boolean,
    report: Partial<SweepRunReport>,
  ): Promise<
    | { status: 'SUCCEEDED'; output: Json; sender?: string }
    | { status: 'FAILED'; error: string; cause: string }
    | { next: string; output: Json }
  > {
    if (state.QueryLanguage !== 'JSONata')
      throw new SweepEmulationError(`Task ${stateName}: only a JSONata callback Task is emulated`);
    if (state.Resource !== `arn:${this.env.partition}:states:::states:startExecution.waitForTaskToken`)
      throw new SweepEmulationError(`Task ${stateName}: Resource ${String(state.Resource)} not emulated`);
    const retriers = (state.Retry as Retrier[] | undefined) ?? [];
    const attempts = new Map<Retrier, number>();
    for (;;) {
      const { token, outcome } = this.world.sims.sfn.issueTaskToken();
      const states = { input, context: { State: { Name: stateName }, Task: { Token: token } } };
      try {
        return await this.startAndWait(stateName, state, states, token, outcome, sampled, report);
      } catch (err) {
        this.world.sims.sfn.expireTaskToken(token);
        if (!(err instanceof StateError)) throw err;
        const retrier = retriers.find((r) => matches(r.ErrorEquals, err.error));
        const used = retrier ? (attempts.get(retrier) ?? 0) : 0;
        if (retrier && used < (retrier.MaxAttempts ?? 3)) {
          attempts.set(retrier, used + 1);
          continue;
        }
        const catcher = ((state.Catch as Catcher[] | undefined) ?? []).find((c) => matches(c.ErrorEquals, err.error));
        if (!catcher) return { status: 'FAILED', error: err.error, cause: err.detail };
        const errorOutput = { Error: err.error, Cause: err.detail };
        const output =
          catcher.Output === undefined
            ? errorOutput
            : await evaluateJsonata(catcher.Output, { input, errorOutput, context: states.context });
        return { next: catcher.Next, output };
      }
    }
  }

  private async startAndWait(
    stateName: string,
    state: AslState,
    states: { input: Json; context: Record<string, unknown> },
    token: string,
    outcome: Promise<TaskOutcome>,
    sampled: boolean,
    report: Partial<SweepRunReport>,
  ): Promise<
    { status: 'SUCCEEDED'; output: Json; sender?: string } | { status: 'FAILED'; error: string; cause: string }
  > {
    const args = (await evaluateJsonata(state.Arguments, states)) as {
      StateMachineArn: string;
      Name?: string;
      Input?: Json;
    };
    const name = args.Name;
    // Execution names: 1-80 characters (Developer Guide, "Step Functions service quotas", General quotas).
    if (name !== undefined && !(/^[A-Za-z0-9_-]+$/.test(name) && name.length <= MAX_NAME_CHARS))
      this.world.violations.push({
        quota: `execution name (${MAX_NAME_CHARS} characters)`,
        where: `${stateName} Name ${JSON.stringify(name).slice(0, 100)}`,
        measured: name.length,
        limit: MAX_NAME_CHARS,
        unit: 'characters',
      });
    const childInput = typeof args.Input === 'string' ? (JSON.parse(args.Input) as Json) : (args.Input ?? {});
    payloadCheck(this.world, `${stateName} execution input (${name})`, childInput);
    let executionArn: string;
    try {
      report.startExecutionCalls!++;
      const started = await this.sfn.send(this.accessKeyId, 'StartExecution', {
        stateMachineArn: args.StateMachineArn,
        name,
        input: JSON.stringify(childInput),
      });
      executionArn = started.executionArn as string;
    } catch (err) {
      // A service integration's errors are the service's exception names with its prefix (Developer Guide,
      // "Handling errors in Step Functions workflows", errors of service integrations).
      throw new StateError(`StepFunctions.${(err as Error).name}`, (err as Error).message);
    }
    if (sampled) void this.runChild(childInput, name!, args.StateMachineArn, executionArn, token);
    else {
      // What the experiment machine would accept: StartExperiment's own schema, so every launch is known to start.
      const contract = startRequestSchema.safeParse(childInput);
      if (!contract.success) {
        this.world.sims.sfn.finishExecution(executionArn, 'FAILED');
        throw new StateError('States.TaskFailed', `${name}: input refused: ${contract.error.message}`);
      }
      await this.standIn(token, name!, executionArn);
    }
    const answered = await outcome;
    if (answered.status === 'SUCCEEDED')
      return { status: 'SUCCEEDED', output: JSON.parse(answered.output) as Json, sender: answered.sender };
    if (answered.status === 'FAILED')
      return { status: 'FAILED', error: answered.error ?? 'States.TaskFailed', cause: answered.cause ?? '' };
    throw new StateError(
      'States.Timeout',
      `${name}: no token returned (TimeoutSeconds ${String(state.TimeoutSeconds)})`,
    );
  }

  /** A sampled child: the experiment machine runs it to its end; its Finalize* function returns the token. */
  private runChild(input: Json, name: string, stateMachineArn: string, executionArn: string, token: string) {
    const run = this.childQueue.then(async () => {
      const { arn } = machineOf(this.world);
      try {
        if (arn !== stateMachineArn) throw new SweepEmulationError(`${name}: started ${stateMachineArn}, not ${arn}`);
        // as any experiment of the rehearsal: its hops' starts, names and histories checked too
        const result = await runExperimentMachine(this.world, input as Record<string, unknown>, name);
        this.world.sims.sfn.finishExecution(executionArn, 'SUCCEEDED', result.output);
      } catch (err) {
        this.childErrors.push(`${name}: ${(err as Error).name}: ${(err as Error).message}`);
        this.world.sims.sfn.finishExecution(executionArn, 'FAILED');
      } finally {
        // A token never returned would hold the slot until TimeoutSeconds; here the wait ends with the child.
        this.world.sims.sfn.expireTaskToken(token);
      }
    });
    this.childQueue = run.catch(() => undefined);
    return run;
  }

  /** Every other child: not run; its token goes back as FinalizeSuccess would send it, with that function's key. */
  private async standIn(token: string, name: string, executionArn: string): Promise<void> {
    const output = standInOutput(name);
    this.finalizeKey ??= this.world.model.principal(this.finalizeSuccessFunction()).accessKeyId;
    await this.sfn.send(this.finalizeKey, 'SendTaskSuccess', { taskToken: token, output: JSON.stringify(output) });
    this.world.sims.sfn.finishExecution(executionArn, 'SUCCEEDED', output);
  }

  private finalizeKey?: string;
  /** The logical id of the function whose Task is the experiment machine's FinalizeSuccess state. */
  finalizeSuccessFunction(): string {
    const { definition } = machineOf(this.world);
    const resource = definition.States.FinalizeSuccess?.Resource;
    if (!resource) throw new SweepEmulationError('the experiment machine has no FinalizeSuccess Task');
    return this.processOf('FinalizeSuccess', resource).fn.logicalId;
  }

  /**
   * ResultWriter (aws-facts: sfn.result-writer-files): under <Prefix>/<map run id>/, one file per status with
   * results (SUCCEEDED_0.json, FAILED_0.json, PENDING_0.json) and manifest.json naming them with their sizes.
   * COMPACT writes a succeeded child's output alone; a failed child's result is kept whole (as NONE). JSONL: one
   * result per line. The Map's output is then the Map Run ARN and where the manifest is.
   */
  private async writeResults(
    state: AslState,
    input: Json,
    mapRunArn: string,
    mapRunId: string,
    iterations: IterationResult[],
    report: Partial<SweepRunReport>,
  ): Promise<Json> {
    const writer = state.ResultWriter as
      | { Resource?: string; Parameters?: Json; WriterConfig?: { OutputType?: string; Transformation?: string } }
      | undefined;
    if (!writer) return iterations.map((i) => i.output);
    if (writer.Resource !== `arn:${this.env.partition}:states:::s3:putObject`)
      throw new SweepEmulationError(`ResultWriter ${String(writer.Resource)} not emulated`);
    const { Bucket, Prefix } = applyParameters(writer.Parameters, input) as { Bucket: string; Prefix?: string };
    const outputType = writer.WriterConfig?.OutputType ?? 'JSON';
    const transformation = writer.WriterConfig?.Transformation ?? 'NONE';
    if (!['JSON', 'JSONL'].includes(outputType) || !['NONE', 'COMPACT'].includes(transformation))
      throw new SweepEmulationError(`ResultWriter WriterConfig ${outputType}/${transformation} not emulated`);
    const dir = `${Prefix ? `${Prefix}/` : ''}${mapRunId}/`;
    const whole = (i: IterationResult) => ({
      ExecutionArn: i.childExecutionArn,
      Input: JSON.stringify(i.input),
      InputDetails: { Included: true },
      Name: i.childExecutionArn.split(':').at(-1),
      ...(i.status === 'SUCCEEDED'
        ? { Output: JSON.stringify(i.output), OutputDetails: { Included: true } }
        : { Error: i.error, Cause: i.cause }),
      RedriveCount: 0,
      RedriveStatus: 'NOT_REDRIVABLE',
      StartDate: i.startDate.toISOString(),
      StateMachineArn: this.machine.arn,
      Status: i.status,
      StopDate: i.stopDate.toISOString(),
    });
    const manifest = {
      DestinationBucket: Bucket,
      MapRunArn: mapRunArn,
      ResultFiles: {} as Record<string, Array<{ Key: string; Size: number }>>,
    };
    const files: Array<{ key: string; status: string; lines: number }> = [];
    for (const status of RESULT_FILES.statuses) {
      manifest.ResultFiles[status] = [];
      const results = iterations
        .filter((i) => i.status === status)
        .map((i) => (transformation === 'COMPACT' && i.status === 'SUCCEEDED' ? i.output : whole(i)));
      if (results.length === 0) continue;
      const body =
        outputType === 'JSONL' ? results.map((r) => JSON.stringify(r)).join('\n') + '\n' : JSON.stringify(results);
      const key = `${dir}${RESULT_FILES.file.replace('<STATUS>', status)}`;
      await this.putResult(Bucket, key, body);
      manifest.ResultFiles[status].push({ Key: key, Size: Buffer.byteLength(body) });
      files.push({ key, status, lines: results.length });
    }
    const manifestKey = `${dir}${RESULT_FILES.manifest}`;
    await this.putResult(Bucket, manifestKey, JSON.stringify(manifest));
    report.results = { bucket: Bucket, manifestKey, files };
    return { MapRunArn: mapRunArn, ResultWriterDetails: { Bucket, Key: manifestKey } };
  }

  /**
   * One result object: s3:PutObject through the S3 server as the machine's role. The ResultWriter's IAM policy
   * (same page, "IAM policies for ResultWriter") also needs s3:GetObject, s3:ListMultipartUploadParts and
   * s3:AbortMultipartUpload on the results, which Step Functions uses for its multipart uploads: no request is
   * made for them here, so they are authorized directly.
   */
  private async putResult(bucket: string, key: string, body: string): Promise<void> {
    const resource = `arn:${this.env.partition}:s3:::${bucket}/${key}`;
    const multipart = ['s3:GetObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'];
    if (
      !(await this.world.authorizer.checkServiceCalls(
        this.principal,
        multipart.map((action) => ({ action, resource })),
      ))
    )
      throw new StateError('States.ResultWriterFailed', `the sweep machine may not write ${resource}`);
    try {
      await this.s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'application/json' }),
      );
    } catch (err) {
      throw new StateError('States.ResultWriterFailed', `s3:PutObject ${resource}: ${(err as Error).name}`);
    }
  }
}
