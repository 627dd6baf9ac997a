// A local server speaking the Step Functions JSON 1.0 protocol for StartExecution, DescribeExecution, SendTaskSuccess
// and SendTaskFailure. As for Standard workflows: the same name and input as a running execution return it, the same
// name with another input is ExecutionAlreadyExists. Task tokens are issued by whoever plays the waiting Task
// (issueTaskToken) and closed by the first send.
import { randomBytes } from 'node:crypto';
import { AwsJsonServer, type AwsJsonReply } from './aws-json-server.ts';
import type { AwsCall, RequestAuthorization } from './authorization.ts';
import { fact } from '../aws-facts/facts.ts';

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

export class SfnSim extends AwsJsonServer {
  readonly executions = new Map<string, Execution>();
  private readonly tokens = new Map<string, TaskToken>();

  constructor(opts: { authorizer?: RequestAuthorization } = {}) {
    super('1.0', 'com.amazonaws.swf.service.v2.model#', opts.authorizer);
  }

  /**
   * Resource types per action (Service Authorization Reference for Step Functions): StartExecution on the
   * stateMachine, DescribeExecution and StopExecution on the execution, ListExecutions on the stateMachine;
   * SendTask* have none, so "*".
   */
  protected calls(target: string, body: any): AwsCall[] {
    const action = target.replace(/^AWSStepFunctions\./, '');
    const resource: Record<string, unknown> = {
      StartExecution: body.stateMachineArn,
      DescribeExecution: body.executionArn,
      StopExecution: body.executionArn,
      ListExecutions: body.stateMachineArn,
      SendTaskSuccess: '*',
      SendTaskFailure: '*',
      SendTaskHeartbeat: '*',
    };
    const arn = resource[action];
    // A malformed ARN is the operation's own validation error (InvalidArn), answered after authorization passes.
    return typeof arn === 'string' && (arn === '*' || arn.startsWith('arn:'))
      ? [{ action: `states:${action}`, resource: arn }]
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

  protected operation(target: string, body: any, principal?: string): AwsJsonReply {
    if (target === 'AWSStepFunctions.SendTaskSuccess' || target === 'AWSStepFunctions.SendTaskFailure')
      return this.sendTask(target.slice('AWSStepFunctions.'.length) as 'SendTaskSuccess', body, principal);
    if (target === 'AWSStepFunctions.StartExecution') {
      const { stateMachineArn, name, input } = body;
      const m = /^arn:aws:states:([a-z0-9-]+):(\d{12}):stateMachine:([A-Za-z0-9_-]+)$/.exec(stateMachineArn ?? '');
      if (!m) return this.error('InvalidArn', `Invalid Arn: '${stateMachineArn}'`);
      if (name !== undefined && !(/^[A-Za-z0-9_-]+$/.test(name) && name.length <= MAX_NAME_CHARS))
        return this.error('InvalidName', `Invalid Name: '${name}'`);
      try {
        JSON.parse(input ?? '{}');
      } catch {
        return this.error('InvalidExecutionInput', 'Invalid execution input');
      }
      const execName = name ?? `auto-${this.executions.size + 1}`;
      const executionArn = `arn:aws:states:${m[1]}:${m[2]}:execution:${m[3]}:${execName}`;
      const existing = this.executions.get(executionArn);
      if (existing) {
        if (existing.input === (input ?? '{}') && existing.status === 'RUNNING')
          return { status: 200, payload: { executionArn, startDate: existing.startDate } };
        return this.error('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
      }
      const startDate = Date.now() / 1000;
      this.executions.set(executionArn, {
        executionArn,
        stateMachineArn,
        name: execName,
        input: input ?? '{}',
        startDate,
        status: 'RUNNING',
      });
      return { status: 200, payload: { executionArn, startDate } };
    }
    if (target === 'AWSStepFunctions.DescribeExecution') {
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
