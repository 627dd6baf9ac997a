// One rehearsed Lambda execution environment: a child Node process running a function's bundled asset through
// lambda-bootstrap.mjs with only the environment Lambda would give it, one invocation at a time over IPC (one process
// = one warm container). The function's timeout and the synchronous payload quotas
// (aws-facts: lambda.sync-max-request-bytes, lambda.sync-max-response-bytes) are enforced with the errors a Task would
// get, and a killed container makes the next invocation a cold start.
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { AssemblyFunction } from './cloud-assembly.ts';
import { lambdaUnknownCause } from '../core/machine/task-errors.ts';
import { fact } from '../aws-facts/facts.ts';
import { envString } from '../core/config/environment.ts';

const BOOTSTRAP = fileURLToPath(new URL('./lambda-bootstrap.mjs', import.meta.url));

/**
 * Lambda's synchronous invocation quotas ("6 MB each for request and response"). Measured limits, as Lambda
 * words them: a request must be smaller than 6291456 bytes; a response may reach 6291556 bytes.
 */
export const MAX_SYNC_REQUEST_BYTES = fact('lambda.sync-max-request-bytes').value;
export const MAX_SYNC_RESPONSE_BYTES = fact('lambda.sync-max-response-bytes').value;

/**
 * Variables Lambda reserves: a function's configuration cannot set them (CloudFormation refuses the update),
 * and the runtime sets them itself. From "Defined runtime environment variables" in the Lambda guide.
 */
export const RESERVED_VARIABLES = [
  '_HANDLER',
  '_X_AMZN_TRACE_ID',
  'AWS_DEFAULT_REGION',
  'AWS_REGION',
  'AWS_EXECUTION_ENV',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  'AWS_LAMBDA_FUNCTION_VERSION',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME',
  'AWS_ACCESS_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_LAMBDA_RUNTIME_API',
  'LAMBDA_TASK_ROOT',
  'LAMBDA_RUNTIME_DIR',
] as const;

/** Where Lambda unpacks the code; template values naming paths under it are mapped to the asset dir. */
const TASK_ROOT = '/var/task';

export interface LambdaProcessOptions {
  fn: AssemblyFunction;
  /** The function's Environment.Variables, every one resolved to a string by the caller (and only those). */
  env: Record<string, string>;
  /** This function's own credentials: the rehearsal's servers know the calling role by its access key. */
  accessKeyId: string;
  secretAccessKey: string;
  /** Defaults to a placeholder: Lambda's credentials are always temporary ones, with a token. */
  sessionToken?: string;
  region: string;
  /** AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE> settings pointing the SDK at the local servers. */
  endpoints?: Record<string, string>;
  /** Defaults to the logical id (CloudFormation would generate a physical name). */
  functionName?: string;
  accountId?: string;
}

export type InvokeResult =
  { ok: true; result: unknown } | { ok: false; errorType: string; errorMessage: string; trace?: string[] };

export interface InvocationRecord {
  requestId: string;
  coldStart: boolean;
  durationMs: number;
  requestBytes: number;
  /** Set when the invocation reached the function and it answered. */
  responseBytes?: number;
  errorType?: string;
  /** Lambda stopped the function at its timeout. */
  timedOut?: boolean;
}

/** The bundle did not load (Runtime.ImportModuleError, Runtime.HandlerNotFound...): Lambda's init failed. */
export class LambdaInitError extends Error {
  override readonly name = 'LambdaInitError';
  constructor(
    readonly functionLogicalId: string,
    readonly errorType: string,
    readonly errorMessage: string,
  ) {
    super(`${functionLogicalId}: init failed: ${errorType}: ${errorMessage}`);
  }
}

/** The environment given is not the template's, or sets what Lambda reserves. */
export class LambdaEnvironmentError extends Error {
  override readonly name = 'LambdaEnvironmentError';
}

/** A second invocation while one runs: Lambda would use a second container; start another LambdaProcess. */
export class LambdaBusyError extends Error {
  override readonly name = 'LambdaBusyError';
}

type ChildMessage =
  | { type: 'ready' }
  | { type: 'init-error'; error: { errorType: string; errorMessage: string } }
  | { type: 'result'; id: string; payload: string }
  | {
      type: 'error';
      id: string | null;
      /** Raised outside the handler's own promise: the runtime exits after reporting it. */
      fatal?: boolean;
      error: { errorType: string; errorMessage: string; trace?: string[] };
    };

export class LambdaProcess {
  readonly functionName: string;
  readonly functionArn: string;
  /** The child's exact environment (for checks; the parent's own environment never reaches it). */
  readonly childEnv: Readonly<Record<string, string>>;
  coldStarts = 0;
  readonly invocations: InvocationRecord[] = [];
  /** The child's last stdout/stderr lines, for messages when something fails. */
  readonly logTail: string[] = [];
  /** Who reads every whole line the child writes (what Lambda would send to CloudWatch Logs), as it comes. */
  private readonly lineListeners = new Set<(line: string) => void>();
  private child: ChildProcess | null = null;
  private busy = false;
  private stopped = false;

  private constructor(
    readonly fn: AssemblyFunction,
    opts: LambdaProcessOptions,
  ) {
    this.functionName = opts.functionName ?? fn.logicalId;
    const account = opts.accountId ?? '123456789012';
    this.functionArn = `arn:aws:lambda:${opts.region}:${account}:function:${this.functionName}`;
    this.childEnv = lambdaEnvironment(fn, opts, this.functionName);
  }

  /**
   * A function no container of which runs yet, as Lambda has one before its first invocation: that invocation
   * starts it (a cold start, its init error answered as that invocation's), and a function never invoked costs
   * no process.
   */
  static notStarted(opts: LambdaProcessOptions): LambdaProcess {
    return new LambdaProcess(opts.fn, opts);
  }

  /** Starts the container (a cold start: the handler's module loads); throws LambdaInitError if it cannot. */
  static async start(opts: LambdaProcessOptions): Promise<LambdaProcess> {
    const p = new LambdaProcess(opts.fn, opts);
    const init = await p.spawn();
    if (!init.ok) {
      throw new LambdaInitError(opts.fn.logicalId, init.errorType, init.errorMessage);
    }
    return p;
  }

  /** Calls `listener` with every line the containers of this function write from now on; returns the unsubscribe. */
  onLine(listener: (line: string) => void): () => void {
    this.lineListeners.add(listener);
    return () => this.lineListeners.delete(listener);
  }

  get warm(): boolean {
    return this.child !== null;
  }

  /**
   * One synchronous invocation. `deadlineMs` (optional) is the caller's own limit, e.g. the Task state's
   * TimeoutSeconds: when it comes before the function's timeout, the container is stopped the same way and
   * the answer is States.Timeout, what Step Functions reports for a Task that outlasts its TimeoutSeconds.
   */
  async invoke(payload: unknown, opts: { deadlineMs?: number } = {}): Promise<InvokeResult> {
    if (this.stopped) throw new LambdaBusyError(`${this.functionName}: stopped`);
    if (this.busy) throw new LambdaBusyError(`${this.functionName}: an invocation is running in this container`);
    this.busy = true;
    const requestId = randomUUID();
    const body = JSON.stringify(payload) ?? 'null';
    const requestBytes = Buffer.byteLength(body);
    const started = Date.now();
    const record: InvocationRecord = { requestId, coldStart: false, durationMs: 0, requestBytes };
    try {
      // Rejected by the Invoke API before any container sees it.
      if (requestBytes > MAX_SYNC_REQUEST_BYTES)
        return this.finish(record, started, {
          ok: false,
          errorType: 'RequestEntityTooLargeException',
          errorMessage: `Request must be smaller than ${MAX_SYNC_REQUEST_BYTES} bytes for the InvokeFunction operation`,
        });
      if (!this.child) {
        record.coldStart = true;
        const init = await this.spawn();
        if (!init.ok) return this.finish(record, started, init);
      }
      return this.finish(record, Date.now(), await this.run(requestId, body, record, opts.deadlineMs));
    } finally {
      this.busy = false;
    }
  }

  /** Ends the container; later invocations are refused. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.kill();
  }

  private finish(record: InvocationRecord, started: number, result: InvokeResult): InvokeResult {
    record.durationMs = Date.now() - started;
    if (!result.ok) record.errorType = result.errorType;
    this.invocations.push(record);
    return result;
  }

  private run(requestId: string, body: string, record: InvocationRecord, deadlineMs?: number): Promise<InvokeResult> {
    const child = this.child!;
    const timeoutMs = this.fn.timeoutSeconds * 1000;
    const callerFirst = deadlineMs !== undefined && deadlineMs < timeoutMs;
    const limitMs = callerFirst ? deadlineMs : timeoutMs;
    const id = randomUUID();
    return new Promise<InvokeResult>((resolve) => {
      const done = (r: InvokeResult, killContainer: boolean) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (killContainer) void this.kill().then(() => resolve(r));
        else resolve(r);
      };
      const timer = setTimeout(() => {
        if (callerFirst)
          done(
            {
              ok: false,
              errorType: 'States.Timeout',
              errorMessage: `the caller's deadline of ${deadlineMs} ms passed before ${this.functionName} answered`,
            },
            true,
          );
        else {
          record.timedOut = true;
          done(functionTimeout(requestId, this.fn.timeoutSeconds), true);
        }
      }, limitMs);
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        this.child = null;
        done(
          {
            ok: false,
            errorType: 'Runtime.ExitError',
            errorMessage: `RequestId: ${requestId} Error: Runtime exited with error: ${
              signal ? `signal: ${signal}` : `exit status ${code}`
            }`,
          },
          false,
        );
      };
      const onMessage = (msg: ChildMessage) => {
        if (msg.type === 'result' && msg.id === id) {
          record.responseBytes = Buffer.byteLength(msg.payload);
          if (record.responseBytes > MAX_SYNC_RESPONSE_BYTES)
            // The runtime cannot deliver it and exits: the next invocation is a cold start.
            return done(
              {
                ok: false,
                errorType: 'Function.ResponseSizeTooLarge',
                errorMessage:
                  `Response payload size (${record.responseBytes} bytes) exceeded maximum allowed payload size ` +
                  `(${MAX_SYNC_RESPONSE_BYTES} bytes).`,
              },
              true,
            );
          return done({ ok: true, result: JSON.parse(msg.payload) as unknown }, false);
        }
        if (msg.type === 'error' && (msg.id === id || msg.id === null)) {
          // An unhandled rejection or uncaught exception ends the container, as it does in Lambda.
          return done({ ok: false, ...msg.error }, msg.fatal === true);
        }
      };
      child.on('message', onMessage);
      child.on('exit', onExit);
      child.send({
        type: 'invoke',
        id,
        requestId,
        payload: body,
        deadline: Date.now() + timeoutMs,
        functionArn: this.functionArn,
      });
    });
  }

  /** A new container: the bootstrap loads the handler (init) and says ready, or why it could not. */
  private spawn(): Promise<InvokeResult> {
    this.coldStarts += 1;
    const child = fork(BOOTSTRAP, [], {
      cwd: this.fn.assetDir,
      env: this.childEnv,
      // Not the parent's flags (vitest's, tsx's loaders): the container runs plain node and NODE_OPTIONS only.
      execArgv: [`--max-old-space-size=${this.fn.memoryMb}`],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    for (const stream of [child.stdout, child.stderr]) {
      // a chunk may end within a line: its start waits for the rest
      let partial = '';
      stream?.setEncoding('utf8').on('data', (s: string) => {
        const lines = (partial + s).split('\n');
        partial = lines.pop()!;
        for (const line of lines.filter(Boolean)) for (const listener of this.lineListeners) listener(line);
        this.logTail.push(...lines.filter(Boolean));
        this.logTail.splice(0, Math.max(0, this.logTail.length - 200));
      });
    }
    this.child = child;
    child.once('exit', () => {
      if (this.child === child) this.child = null;
    });
    return new Promise((resolve) => {
      const onMessage = (msg: ChildMessage) => {
        if (msg.type === 'ready') finish({ ok: true, result: null });
        else if (msg.type === 'init-error') finish({ ok: false, ...msg.error });
      };
      const onExit = (code: number | null) =>
        finish({
          ok: false,
          errorType: 'Runtime.ExitError',
          errorMessage: `Runtime exited during init with ${code}: ${this.logTail.slice(-5).join(' | ')}`,
        });
      const finish = (r: InvokeResult) => {
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (!r.ok) void this.kill().then(() => resolve(r));
        else resolve(r);
      };
      child.on('message', onMessage);
      child.on('exit', onExit);
    });
  }

  private kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}

/**
 * A function stopped at its timeout (Lambda kills the sandbox, so the next invocation is a cold start), as a Task
 * invoking it through arn:aws:states:::lambda:invoke sees it. Lambda's Invoke answers FunctionError "Unhandled"
 * (aws-facts: lambda.invoke-unhandled-function-error), with a payload of Lambda's own message and no errorType. Step
 * Functions: "Unhandled errors in Lambda are reported as Lambda.Unknown in the error output. These include
 * out-of-memory errors and function timeouts" (the page of aws-facts: sfn.lambda-service-exception-retry).
 * Not Sandbox.Timedout: Lambda documents that name for a timeout in the Init phase
 * (aws-facts: lambda.init-timeout-error).
 * The Cause is what executions record for it (core/machine/task-errors.ts).
 */
export function functionTimeout(requestId: string, timeoutSeconds: number): InvokeResult {
  const payload = {
    errorMessage: `RequestId: ${requestId} Error: Task timed out after ${timeoutSeconds.toFixed(2)} seconds`,
  };
  return { ok: false, errorType: 'Lambda.Unknown', errorMessage: lambdaUnknownCause(payload) };
}

/** What the Task fails with for a failed invocation: Error its name, Cause its message (aws-local-stepfunctions). */
export function taskError(result: Extract<InvokeResult, { ok: false }>): Error {
  return Object.assign(new Error(result.errorMessage), { name: result.errorType });
}

/**
 * Exactly what a Lambda container's environment holds: the template's variables, what the runtime sets
 * ("Defined runtime environment variables"), the credentials and endpoints, and PATH and HOME so node runs.
 */
function lambdaEnvironment(
  fn: AssemblyFunction,
  opts: LambdaProcessOptions,
  functionName: string,
): Record<string, string> {
  const expected = Object.keys(fn.environment).sort();
  const given = Object.keys(opts.env).sort();
  if (expected.join('\0') !== given.join('\0'))
    throw new LambdaEnvironmentError(
      `${fn.logicalId}: env must resolve exactly the template's variables [${expected.join(', ')}], ` +
        `got [${given.join(', ')}]`,
    );
  const reserved = given.filter((k) => (RESERVED_VARIABLES as readonly string[]).includes(k));
  if (reserved.length)
    throw new LambdaEnvironmentError(`${fn.logicalId}: the template sets reserved variables ${reserved.join(', ')}`);
  for (const [k, v] of Object.entries(opts.endpoints ?? {}))
    if (!/^AWS_ENDPOINT_URL(_[A-Z0-9_]+)?$/.test(k) || typeof v !== 'string')
      throw new LambdaEnvironmentError(`${fn.logicalId}: ${k} is not an AWS_ENDPOINT_URL[_SERVICE] setting`);
  // In Lambda, /var/task is the code's directory; here the asset dir is.
  const toTaskRoot = (v: string) =>
    v === TASK_ROOT || v.startsWith(`${TASK_ROOT}/`) ? fn.assetDir + v.slice(TASK_ROOT.length) : v;
  const env: Record<string, string> = {
    // Unreserved defaults Lambda sets; the template may override them (it comes next).
    LANG: 'en_US.UTF-8',
    ...(envString('PATH') ? { PATH: envString('PATH') } : {}),
    ...(envString('HOME') ? { HOME: envString('HOME') } : {}),
    ...Object.fromEntries(Object.entries(opts.env).map(([k, v]) => [k, toTaskRoot(v)])),
    ...(opts.endpoints ?? {}),
    TZ: ':UTC',
    _HANDLER: fn.handler,
    AWS_REGION: opts.region,
    AWS_DEFAULT_REGION: opts.region,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: `rehearsal/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    ...(fn.logFormat === 'JSON' ? { AWS_LAMBDA_LOG_FORMAT: 'JSON' } : {}),
    // "Lambda sets the application log level in the runtime using the AWS_LAMBDA_LOG_LEVEL environment variable"
    // (Lambda Developer Guide, Log-level filtering): Powertools' Logger reads it before any other setting
    ...(fn.applicationLogLevel ? { AWS_LAMBDA_LOG_LEVEL: fn.applicationLogLevel } : {}),
    AWS_ACCESS_KEY_ID: opts.accessKeyId,
    AWS_ACCESS_KEY: opts.accessKeyId,
    AWS_SECRET_ACCESS_KEY: opts.secretAccessKey,
    // Lambda always passes the role's temporary credentials, so a session token is always there.
    AWS_SESSION_TOKEN: opts.sessionToken ?? `rehearsal-session-${opts.accessKeyId}`,
    LAMBDA_TASK_ROOT: fn.assetDir,
  };
  return env;
}
