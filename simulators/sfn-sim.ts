// A local server speaking the Step Functions JSON 1.0 protocol for StartExecution, DescribeExecution, SendTask*, and
// StartSyncExecution of Express machines registered with a runner (expressMachine): the reply waits for the run, which
// ends SUCCEEDED, FAILED (a throw) or TIMED_OUT (the Express limit); DescribeExecution does not know its ARN. Standard:
// the same name and input as a running execution return it, the same name with another input is ExecutionAlreadyExists.
// Task tokens are issued by whoever plays the waiting Task (issueTaskToken) and closed by the first send.
import { randomBytes, randomUUID } from 'node:crypto';
import { AwsJsonServer, type AwsJsonReply } from './aws-json-server.ts';
import type { AwsCall, RequestAuthorization } from './authorization.ts';
import { fact } from '../aws-facts/facts.ts';

/** How Express executions are billed (duration rounded up, memory in chunks): StartSyncExecution's billingDetails. */
const BILLING = fact('sfn.express-billing-increments').value;

/** How a waiting Task's token was answered. */
export type TaskOutcome =
  | { status: 'SUCCEEDED'; output: string; sender: string | undefined }
  | { status: 'FAILED'; error: string | undefined; cause: string | undefined; sender: string | undefined }
  | { status: 'TIMED_OUT' };

interface TaskToken {
  open: boolean;
  resolve: (outcome: TaskOutcome) => void;
}

const MAX_TASK_OUTPUT = fact('sfn.send-task-success-max-output-bytes').value;
const MAX_TOKEN_CHARS = fact('sfn.max-task-token-chars').value;
const MAX_NAME_CHARS = fact('sfn.max-name-chars').value;
const LIST_MAX_RESULTS = fact('sfn.list-executions-max-results').value;
const MAX_PAYLOAD = fact('sfn.max-payload-bytes').value;
const EXPRESS_MAX_MS = fact('sfn.express-max-execution-seconds').value * 1000;
/** StartSyncExecution's IAM action (the Service Authorization Reference's). */
const SYNC_IAM = fact('sfn.start-sync-execution-iam').value;
const STATE_MACHINE_ARN = /^arn:aws:states:([a-z0-9-]+):(\d{12}):stateMachine:([A-Za-z0-9_-]+)$/;
const NAME = /^[A-Za-z0-9_-]+$/;
/** The tokens this sim issues: opaque, URL-safe, long like the service's (up to MAX_TOKEN_CHARS allowed). */
const TOKEN_PREFIX = 'AQC';
const TOKEN = /^AQC[A-Za-z0-9_-]{160}$/;

interface Execution {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  input: string;
  startDate: number;
  status: string;
  stopDate?: number;
  output?: string;
  /** A failed execution's error name and cause (DescribeExecution's `error` and `cause`). */
  error?: string;
  cause?: string;
}

/** What an Express machine's run is told of its execution. */
export interface ExpressContext {
  executionArn: string;
  name: string;
}

/** An Express machine's whole run: its result is the execution's output, a throw fails it (err.name, err.message). */
export type ExpressRunner = (input: unknown, ctx: ExpressContext) => Promise<unknown>;

type StateMachine = { type: 'STANDARD' } | { type: 'EXPRESS'; run: ExpressRunner };

/** How one Express run ended, before it is put in StartSyncExecution's reply. */
type SyncEnd =
  | { status: 'SUCCEEDED'; output: string }
  | { status: 'FAILED' | 'TIMED_OUT'; error: string; cause: string | undefined };

/** The request fields StartExecution and StartSyncExecution share, once validated. */
interface StartRequest {
  region: string;
  account: string;
  machineName: string;
  name: string | undefined;
  input: string;
}

/** A run's result as the execution's output: JSON within sfn.max-payload-bytes, or the run fails. */
function outputEnd(result: unknown): SyncEnd {
  const output = JSON.stringify(result) ?? 'null';
  if (Buffer.byteLength(output) <= MAX_PAYLOAD) return { status: 'SUCCEEDED', output };
  const cause = `The execution output has a size exceeding the maximum number of bytes service limit (${MAX_PAYLOAD}).`;
  return { status: 'FAILED', error: 'States.DataLimitExceeded', cause };
}

/**
 * StartSyncExecution's billingDetails, as AWS bills Express (aws-facts: sfn.express-billing-increments): the
 * duration rounded up, memory in chunks. The pricing example's estimate (50 MB + definition + data) stays within one
 * chunk for any payload the service accepts, so one chunk.
 */
function expressBilling(ms: number): { billedMemoryUsedInMB: number; billedDurationInMilliseconds: number } {
  const step = BILLING.durationMs;
  return {
    billedMemoryUsedInMB: BILLING.memoryMb,
    billedDurationInMilliseconds: Math.max(1, Math.ceil(ms / step)) * step,
  };
}

export class SfnSim extends AwsJsonServer {
  readonly executions = new Map<string, Execution>();
  /** State machines registered with their type; StartSyncExecution needs its machine here, EXPRESS. */
  readonly machines = new Map<string, StateMachine>();
  /** Express executions' ARNs, in start order: not executions DescribeExecution knows. */
  readonly syncExecutions: string[] = [];
  private readonly tokens = new Map<string, TaskToken>();
  private readonly expressMaxMs: number;

  /** `expressMaxMs`: the Express limit (sfn.express-max-execution-seconds), shorter in tests. */
  constructor(opts: { authorizer?: RequestAuthorization; expressMaxMs?: number } = {}) {
    super('1.0', 'com.amazonaws.swf.service.v2.model#', opts.authorizer);
    this.expressMaxMs = opts.expressMaxMs ?? EXPRESS_MAX_MS;
  }

  /** Registers an EXPRESS state machine: StartSyncExecution of `arn` runs `run`. */
  expressMachine(arn: string, run: ExpressRunner): void {
    this.machines.set(arn, { type: 'EXPRESS', run });
  }

  /** Registers a STANDARD state machine (StartSyncExecution of it is StateMachineTypeNotSupported). */
  standardMachine(arn: string): void {
    this.machines.set(arn, { type: 'STANDARD' });
  }

  /**
   * Resource types per action (Service Authorization Reference for Step Functions): StartExecution and
   * StartSyncExecution on the stateMachine, DescribeExecution and StopExecution on the execution, ListExecutions on
   * the stateMachine;
   * SendTask* have none, so "*".
   */
  protected calls(target: string, body: any): AwsCall[] {
    const action = target.replace(/^AWSStepFunctions\./, '');
    const resource: Record<string, unknown> = {
      StartExecution: body.stateMachineArn,
      StartSyncExecution: body.stateMachineArn,
      DescribeExecution: body.executionArn,
      StopExecution: body.executionArn,
      ListExecutions: body.stateMachineArn,
      SendTaskSuccess: '*',
      SendTaskFailure: '*',
      SendTaskHeartbeat: '*',
    };
    const arn = resource[action];
    const iamAction = action === 'StartSyncExecution' ? SYNC_IAM.action : `states:${action}`;
    // A malformed ARN is the operation's own validation error (InvalidArn), answered after authorization passes.
    return typeof arn === 'string' && (arn === '*' || arn.startsWith('arn:'))
      ? [{ action: iamAction, resource: arn }]
      : [];
  }

  /**
   * A token for a Task that waits (.waitForTaskToken), and the outcome the first SendTaskSuccess or
   * SendTaskFailure for it gives. The caller waits on the promise; expireTaskToken closes a token that timed out.
   */
  issueTaskToken(): { token: string; outcome: Promise<TaskOutcome> } {
    const token = TOKEN_PREFIX + randomBytes(120).toString('base64url');
    let resolve!: (o: TaskOutcome) => void;
    const outcome = new Promise<TaskOutcome>((r) => (resolve = r));
    this.tokens.set(token, { open: true, resolve });
    return { token, outcome };
  }

  /** The Task's TimeoutSeconds passed: the token is closed (a later send is TaskTimedOut). */
  expireTaskToken(token: string): void {
    const t = this.tokens.get(token);
    if (!t?.open) return;
    t.open = false;
    t.resolve({ status: 'TIMED_OUT' });
  }

  /** Tokens issued and not answered yet. */
  get openTaskTokens(): number {
    let n = 0;
    for (const t of this.tokens.values()) if (t.open) n++;
    return n;
  }

  /** An execution started here ended (the rehearsal ran it): DescribeExecution reports it. */
  finishExecution(
    executionArn: string,
    status: 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED',
    output?: unknown,
    failure?: { error: string; cause: string },
  ): void {
    const e = this.executions.get(executionArn);
    if (!e) return;
    e.status = status;
    e.stopDate = Date.now() / 1000;
    if (output !== undefined) e.output = JSON.stringify(output);
    if (failure) Object.assign(e, failure);
  }

  /**
   * SendTaskSuccess / SendTaskFailure (API reference, "Errors"): a token the service could not have issued is
   * InvalidToken; one it never issued, TaskDoesNotExist; one already answered or timed out, TaskTimedOut;
   * SendTaskSuccess's output must be JSON (InvalidOutput) within its length constraint (a validation error).
   */
  private sendTask(target: 'SendTaskSuccess' | 'SendTaskFailure', body: any, sender?: string): AwsJsonReply {
    const token: unknown = body.taskToken;
    if (typeof token !== 'string' || token.length < 1 || token.length > MAX_TOKEN_CHARS)
      return this.error('ValidationException', `taskToken: length must be 1-${MAX_TOKEN_CHARS}`);
    if (!TOKEN.test(token)) return this.error('InvalidToken', 'Invalid token');
    const t = this.tokens.get(token);
    if (!t) return this.error('TaskDoesNotExist', 'Task does not exist');
    if (!t.open) return this.error('TaskTimedOut', 'Task Timed Out');
    if (target === 'SendTaskSuccess') {
      const output: unknown = body.output;
      if (typeof output !== 'string') return this.error('ValidationException', 'output is required');
      if (Buffer.byteLength(output) > MAX_TASK_OUTPUT)
        return this.error('ValidationException', `output: length must be at most ${MAX_TASK_OUTPUT}`);
      try {
        JSON.parse(output);
      } catch {
        return this.error('InvalidOutput', 'Invalid Output');
      }
      t.open = false;
      t.resolve({ status: 'SUCCEEDED', output, sender });
    } else {
      t.open = false;
      t.resolve({ status: 'FAILED', error: body.error, cause: body.cause, sender });
    }
    return { status: 200, payload: {} };
  }

  /**
   * What StartExecution and StartSyncExecution validate alike (API reference): input at most sfn.max-payload-bytes
   * of UTF-8 (a length constraint: ValidationException), a state machine ARN (InvalidArn), a name of 1-80 of
   * [A-Za-z0-9_-] (InvalidName), JSON input (InvalidExecutionInput; absent is "{}").
   */
  private startRequest(body: any): StartRequest | AwsJsonReply {
    const { stateMachineArn, name } = body;
    const input: unknown = body.input ?? '{}';
    if (typeof input !== 'string') return this.error('ValidationException', 'input must be a string');
    if (Buffer.byteLength(input) > MAX_PAYLOAD)
      return this.error('ValidationException', `input: length must be at most ${MAX_PAYLOAD}`);
    const m = STATE_MACHINE_ARN.exec(typeof stateMachineArn === 'string' ? stateMachineArn : '');
    if (!m) return this.error('InvalidArn', `Invalid Arn: '${stateMachineArn}'`);
    if (name !== undefined && !(typeof name === 'string' && NAME.test(name) && name.length <= MAX_NAME_CHARS))
      return this.error('InvalidName', `Invalid Name: '${name}'`);
    try {
      JSON.parse(input);
    } catch {
      return this.error('InvalidExecutionInput', 'Invalid execution input');
    }
    return { region: m[1], account: m[2], machineName: m[3], name, input };
  }

  private startExecution(body: any): AwsJsonReply {
    const req = this.startRequest(body);
    if ('status' in req) return req;
    const execName = req.name ?? `auto-${this.executions.size + 1}`;
    const executionArn = `arn:aws:states:${req.region}:${req.account}:execution:${req.machineName}:${execName}`;
    const existing = this.executions.get(executionArn);
    if (existing) {
      if (existing.input === req.input && existing.status === 'RUNNING')
        return { status: 200, payload: { executionArn, startDate: existing.startDate } };
      return this.error('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    const startDate = Date.now() / 1000;
    const stateMachineArn = body.stateMachineArn as string;
    const execution = { executionArn, stateMachineArn, name: execName, input: req.input, startDate, status: 'RUNNING' };
    this.executions.set(executionArn, execution);
    return { status: 200, payload: { executionArn, startDate } };
  }

  /**
   * StartSyncExecution (API reference): the reply waits for the Express run and is 200 however it ends ("Error codes
   * are reserved for errors that prevent your execution from running"). A machine not registered here is
   * StateMachineDoesNotExist; a STANDARD one, StateMachineTypeNotSupported ("not available for STANDARD workflows").
   */
  private async startSyncExecution(body: any): Promise<AwsJsonReply> {
    const included: unknown = body.includedData ?? 'ALL_DATA';
    if (included !== 'ALL_DATA' && included !== 'METADATA_ONLY')
      return this.error('ValidationException', `includedData '${String(included)}' is not ALL_DATA or METADATA_ONLY`);
    const req = this.startRequest(body);
    if ('status' in req) return req;
    const stateMachineArn = body.stateMachineArn as string;
    const machine = this.machines.get(stateMachineArn);
    if (!machine) return this.error('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
    if (machine.type !== 'EXPRESS')
      return this.error('StateMachineTypeNotSupported', 'This operation is not supported by STANDARD state machines');
    // The express resource type's ARN ends in an id of its own: a name does not make an Express execution unique.
    const name = req.name ?? randomUUID();
    const id = randomUUID();
    const executionArn = `arn:aws:states:${req.region}:${req.account}:express:${req.machineName}:${name}:${id}`;
    this.syncExecutions.push(executionArn);
    const started = Date.now();
    const end = await this.runExpress(machine.run, JSON.parse(req.input), { executionArn, name });
    const stopped = Date.now();
    const data = included === 'ALL_DATA'; // METADATA_ONLY: no input or output in the reply
    const succeeded = end.status === 'SUCCEEDED';
    const payload = {
      executionArn,
      stateMachineArn,
      name,
      startDate: started / 1000,
      stopDate: stopped / 1000,
      status: end.status,
      ...(succeeded ? {} : { error: end.error, cause: end.cause }),
      ...(data ? { input: req.input } : {}),
      inputDetails: { included: data },
      // "This field is set only if the execution succeeds."
      ...(succeeded ? { ...(data ? { output: end.output } : {}), outputDetails: { included: data } } : {}),
      ...(typeof body.traceHeader === 'string' ? { traceHeader: body.traceHeader } : {}),
      billingDetails: expressBilling(stopped - started),
    };
    return { status: 200, payload };
  }

  /**
   * One Express run, ended by its runner or by the Express limit (States.Timeout). A timed-out runner is not
   * stopped (a promise cannot be), only no longer waited for.
   */
  private async runExpress(run: ExpressRunner, input: unknown, ctx: ExpressContext): Promise<SyncEnd> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<SyncEnd>((resolve) => {
      timer = setTimeout(
        () => resolve({ status: 'TIMED_OUT', error: 'States.Timeout', cause: undefined }),
        this.expressMaxMs,
      );
    });
    const ran = Promise.resolve()
      .then(() => run(input, ctx))
      .then(outputEnd, (err: unknown): SyncEnd => {
        const e = err instanceof Error ? err : new Error(String(err));
        return { status: 'FAILED', error: e.name, cause: e.message };
      });
    try {
      return await Promise.race([ran, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  protected operation(target: string, body: any, principal?: string): AwsJsonReply | Promise<AwsJsonReply> {
    if (target === 'AWSStepFunctions.SendTaskSuccess' || target === 'AWSStepFunctions.SendTaskFailure')
      return this.sendTask(target.slice('AWSStepFunctions.'.length) as 'SendTaskSuccess', body, principal);
    if (target === 'AWSStepFunctions.StartExecution') return this.startExecution(body);
    if (target === 'AWSStepFunctions.StartSyncExecution') return this.startSyncExecution(body);
    if (target === 'AWSStepFunctions.DescribeExecution') {
      // Express executions are not DescribeExecution's: fact('sfn.express-describe-execution'). The error is not
      // documented: InvalidArn, as the service answers a stateMachine ARN here ("Resource type not valid in this
      // context").
      if (/^arn:aws:states:[a-z0-9-]+:\d{12}:express:/.test(body.executionArn ?? ''))
        return this.error('InvalidArn', `Invalid Arn: 'Resource type not valid in this context: express'`);
      const e = this.executions.get(body.executionArn);
      if (!e) return this.error('ExecutionDoesNotExist', `Execution Does Not Exist: '${body.executionArn}'`);
      return { status: 200, payload: { ...e, inputDetails: { included: true } } };
    }
    if (target === 'AWSStepFunctions.ListExecutions') {
      // ListExecutions: newest first, statusFilter, maxResults 1-LIST_MAX_RESULTS (default 100), an opaque nextToken.
      const max = body.maxResults ?? 100;
      if (!Number.isInteger(max) || max < 1 || max > LIST_MAX_RESULTS)
        return this.error('ValidationException', `maxResults ${String(max)} is not 1-${LIST_MAX_RESULTS}`);
      const all = [...this.executions.values()]
        .filter((e) => e.stateMachineArn === body.stateMachineArn)
        .filter((e) => !body.statusFilter || e.status === body.statusFilter)
        .sort((a, b) => b.startDate - a.startDate);
      const from = body.nextToken ? Number(Buffer.from(String(body.nextToken), 'base64url').toString()) : 0;
      if (!Number.isInteger(from) || from < 0) return this.error('InvalidToken', 'Invalid Token');
      const page = all.slice(from, from + max);
      const next = from + max < all.length ? Buffer.from(String(from + max)).toString('base64url') : undefined;
      return {
        status: 200,
        payload: {
          executions: page.map(({ executionArn, stateMachineArn, name, status, startDate }) => ({
            executionArn,
            stateMachineArn,
            name,
            status,
            startDate,
          })),
          ...(next ? { nextToken: next } : {}),
        },
      };
    }
    return this.error('UnknownOperationException', `unknown operation ${target}`);
  }
}
