// The deploy rehearsal's Lambda runtime: the synthesized bundles,
// each in its own child Node process with only the environment Lambda would
// give it, answering invocations in Lambda's shapes (errors, timeouts, quotas).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readAssembly, type AssemblyFunction, type CloudAssembly } from '../rehearsal/cloud-assembly.ts';
import {
  LambdaBusyError,
  LambdaEnvironmentError,
  LambdaInitError,
  LambdaProcess,
  MAX_SYNC_REQUEST_BYTES,
  MAX_SYNC_RESPONSE_BYTES,
  RESERVED_VARIABLES,
} from '../rehearsal/lambda-process.ts';
import { tempDir } from './support/temp-dir.ts';
import { sharedAssembly } from './support/assembly.ts';

/** A stand-in for the rehearsal's resolver (rehearsal/template-values.ts): any string for each token. */
function placeholder(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  const v = value as Record<string, any>;
  if (v.Ref) return `ref-${v.Ref}`;
  if (v['Fn::GetAtt']) return `att-${v['Fn::GetAtt'].join('-')}`;
  if (v['Fn::Join']) return v['Fn::Join'][1].map(placeholder).join(v['Fn::Join'][0]);
  if (v['Fn::Sub']) return String(v['Fn::Sub']).replace(/\$\{([^}]+)\}/g, 'sub-$1');
  throw new Error(`no placeholder for ${JSON.stringify(value)}`);
}
const resolveEnv = (fn: AssemblyFunction) =>
  Object.fromEntries(Object.entries(fn.environment).map(([k, v]) => [k, placeholder(v)]));

const started: LambdaProcess[] = [];
async function start(fn: AssemblyFunction, env = resolveEnv(fn)) {
  const p = await LambdaProcess.start({
    fn,
    env,
    accessKeyId: `AKID${fn.logicalId.slice(0, 12).toUpperCase()}`,
    secretAccessKey: 'rehearsal-secret',
    region: 'us-east-1',
    endpoints: { AWS_ENDPOINT_URL_SSM: 'http://127.0.0.1:1' },
  });
  started.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop()));
});

/** A function of our own in a temp asset dir, for behaviour the real bundles must not wait on (timeouts, sizes). */
function tinyFunction(timeoutSeconds: number, environment: Record<string, string> = {}): AssemblyFunction {
  const assetDir = tempDir('tiny-fn');
  writeFileSync(
    join(assetDir, 'index.mjs'),
    [
      'let calls = 0; // module state: kept by a warm container, lost by a cold one',
      'export const handler = async (event, context) => {',
      '  calls += 1;',
      '  if (event.sleepMs) await new Promise((r) => setTimeout(r, event.sleepMs));',
      '  if (event.bytes) return "x".repeat(event.bytes - 2);',
      '  if (event.env) return process.env;',
      '  if (event.throwString) throw "plain string";',
      '  if (event.floating) void Promise.reject(new Error("floating"));',
      '  if (event.floating) await new Promise((r) => setTimeout(r, 200));',
      '  return { calls, remaining: context.getRemainingTimeInMillis(), cwd: process.cwd() };',
      '};',
    ].join('\n'),
  );
  return {
    logicalId: 'TinyFn',
    handler: 'index.handler',
    assetDir,
    runtime: 'nodejs24.x',
    timeoutSeconds,
    memoryMb: 128,
    environment,
    roleLogicalId: null,
    logFormat: 'Text',
    applicationLogLevel: null,
    cdkPath: null,
  };
}

const isoNow = () => new Date().toISOString();
const progressPayload = (goalFound: boolean) => ({
  state: {
    experimentId: 'rehearsal-1',
    llmProvider: 'baseline',
    turnNumber: 1,
    executionStartTurn: 1,
    startedAt: isoNow(),
    limits: { maxMoves: 500, maxDurationMinutes: 60, maxTurns: 50, turnsPerExecution: 20 },
    taskToken: null,
    turn: { goalFound, actionsTaken: 3, halt: null },
  },
  execution: { startTime: isoNow(), timeoutSeconds: 3600 },
});

describe('rehearsal runtime: the synthesized bundles in child processes', () => {
  let asm: CloudAssembly;
  const fnByHandlerFile = (re: RegExp) => asm.functions.find((f) => re.test(f.cdkPath ?? ''))!;

  beforeAll(async () => {
    asm = await sharedAssembly();
  }, 240_000);

  it('lists our functions with their asset dirs, skips the CDK provider framework and says why', () => {
    expect(asm.functions.length).toBeGreaterThanOrEqual(10);
    expect(asm.functions.map((f) => f.handler)).not.toContain('framework.onEvent');
    // the migrations function is ours (the custom resource's handler), only its provider framework is CDK's
    expect(asm.functions.some((f) => f.environment.MIGRATIONS_DIR === '/var/task/migrations')).toBe(true);
    // the migrations framework's three: onEvent, and the isComplete and onTimeout of its waiter; the deletion
    // protection's onEvent (the rehearsal plays them)
    expect(asm.skipped.map((s) => s.handler).sort()).toEqual([
      'framework.isComplete',
      'framework.onEvent',
      'framework.onEvent',
      'framework.onTimeout',
    ]);
    for (const s of asm.skipped) expect(s.reason).toMatch(/provider framework/);
    for (const f of asm.functions) {
      expect(f.assetDir.startsWith(asm.dir), f.logicalId).toBe(true);
      expect(f.runtime).toMatch(/^nodejs\d+\.x$/);
      expect(f.roleLogicalId, f.logicalId).toBeTruthy();
    }
    // a second read of the same directory reuses it (no second synth)
    expect(readAssembly(asm.dir).functions.map((f) => f.logicalId)).toEqual(asm.functions.map((f) => f.logicalId));
  });

  it('every function starts in its own process (a cold start) and its handler export exists', async () => {
    const procs = await Promise.all(asm.functions.map((f) => start(f)));
    for (const p of procs) {
      expect(p.warm, p.fn.logicalId).toBe(true);
      expect(p.coldStarts).toBe(1);
    }
  });

  it("CheckProgress's bundle answers a valid payload with a decision, warm the second time", async () => {
    const p = await start(fnByHandlerFile(/CheckProgressFn/));
    expect(await p.invoke(progressPayload(false))).toEqual({
      ok: true,
      result: {
        decision: 'continue',
        reason: 'running',
        next: expect.objectContaining({ turnNumber: progressPayload(false).state.turnNumber + 1 }),
      },
    });
    expect(await p.invoke(progressPayload(true))).toEqual({
      ok: true,
      result: { decision: 'success', reason: 'goal_found' },
    });
    expect(p.coldStarts).toBe(1);
    expect(p.invocations.map((i) => i.coldStart)).toEqual([false, false]);
    expect(p.invocations.every((i) => i.durationMs >= 0 && i.durationMs < 10_000)).toBe(true);
  });

  it('a typed error thrown by the bundle comes back with its name as errorType (InvalidInputError)', async () => {
    const p = await start(fnByHandlerFile(/CheckProgressFn/));
    const bad = progressPayload(false);
    (bad.state as any).turnNumber = 0;
    const r = await p.invoke(bad);
    expect(r).toMatchObject({
      ok: false,
      errorType: 'InvalidInputError',
      errorMessage: expect.stringContaining('turnNumber'),
    });
    expect(r.ok === false && r.trace?.[0]).toMatch(/^InvalidInputError: /);
    // a handled error leaves the container warm
    expect((await p.invoke(progressPayload(false))).ok).toBe(true);
    expect(p.coldStarts).toBe(1);
  });

  it("the bundle logs through Powertools at its LoggingConfig's level: INFO decisions, ERROR errors", async () => {
    const fn = fnByHandlerFile(/CheckProgressFn/);
    expect(fn).toMatchObject({ logFormat: 'JSON', applicationLogLevel: 'INFO' });
    const p = await start(fn);
    const lines: string[] = [];
    p.onLine((line) => lines.push(line));
    await p.invoke(progressPayload(false)); // another turn: its turn line says so, CheckProgress says nothing
    await p.invoke(progressPayload(true));
    const bad = progressPayload(false);
    (bad.state as any).turnNumber = 0;
    await p.invoke(bad);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const [success, failed] = p.invocations.slice(1).map((i) => i.requestId);
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'INFO',
        message: 'progress',
        service: 'ariadne',
        experimentId: 'rehearsal-1',
        state: 'CheckProgress',
        decision: 'success',
        function_request_id: success,
      }),
      expect.objectContaining({
        level: 'ERROR',
        message: 'invocation failed',
        errorName: 'InvalidInputError',
        experimentId: 'rehearsal-1',
        function_request_id: failed,
      }),
    ]);
  });

  it('the child sees only the template environment, what Lambda sets, and PATH/HOME', async () => {
    const cp = fnByHandlerFile(/CheckProgressFn/);
    // the real function's environment, with our probe's code in place of its bundle
    const probe = { ...tinyFunction(10), environment: cp.environment, logicalId: cp.logicalId };
    process.env.DATABASE_URL = 'postgres://leaked-from-the-parent/db';
    process.env.AWS_PROFILE = 'leaked';
    try {
      const p = await start(probe);
      const r = await p.invoke({ env: true });
      expect(r.ok).toBe(true);
      const env = (r as { result: Record<string, string> }).result;
      expect(env).not.toHaveProperty('DATABASE_URL');
      expect(env).not.toHaveProperty('AWS_PROFILE');
      const lambdaSet = [
        ...RESERVED_VARIABLES.filter(
          (k) => !['_X_AMZN_TRACE_ID', 'AWS_LAMBDA_RUNTIME_API', 'LAMBDA_RUNTIME_DIR'].includes(k),
        ),
        'TZ',
        'LANG',
        'PATH',
        'HOME',
        'AWS_ENDPOINT_URL_SSM',
      ];
      expect(Object.keys(env).sort()).toEqual([...new Set([...Object.keys(cp.environment), ...lambdaSet])].sort());
      expect(env).toMatchObject({
        DATABASE_CLUSTER_ARN: expect.stringMatching(/^arn:ref-AWS::Partition:rds:eu-west-1:/),
        NODE_OPTIONS: '--enable-source-maps',
        TZ: ':UTC',
        _HANDLER: 'index.handler',
        AWS_LAMBDA_FUNCTION_NAME: cp.logicalId,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '128',
        AWS_REGION: 'us-east-1',
        AWS_DEFAULT_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: expect.stringMatching(/^AKID/),
        AWS_SECRET_ACCESS_KEY: 'rehearsal-secret',
        AWS_SESSION_TOKEN: expect.any(String),
        LAMBDA_TASK_ROOT: probe.assetDir,
        AWS_ENDPOINT_URL_SSM: 'http://127.0.0.1:1',
      });
      expect(p.childEnv).toEqual(env);
    } finally {
      delete process.env.DATABASE_URL;
      delete process.env.AWS_PROFILE;
    }
  });

  it('the migrations bundle finds /var/task/migrations at its own asset dir', async () => {
    const mig = asm.functions.find((f) => f.environment.MIGRATIONS_DIR)!;
    const p = await start(mig);
    expect(p.childEnv.MIGRATIONS_DIR).toBe(join(mig.assetDir, 'migrations'));
  });
});

describe('rehearsal runtime: the container rules, on a function of our own', () => {
  it('refuses an environment that is not exactly the template’s, or that sets a reserved variable', async () => {
    const fn = tinyFunction(3, { A: 'x' });
    await expect(start(fn, {})).rejects.toThrow(LambdaEnvironmentError);
    await expect(start(fn, { A: 'x', B: 'extra' })).rejects.toThrow(/exactly the template's variables \[A\]/);
    const reserved = tinyFunction(3, { AWS_REGION: 'eu-west-1' });
    await expect(start(reserved, { AWS_REGION: 'eu-west-1' })).rejects.toThrow(/reserved variables AWS_REGION/);
  });

  it('a handler the bundle does not export fails at init as Runtime.HandlerNotFound', async () => {
    const fn = { ...tinyFunction(3), handler: 'index.nope' };
    const err = await start(fn).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LambdaInitError);
    expect(err).toMatchObject({
      errorType: 'Runtime.HandlerNotFound',
      errorMessage: 'index.nope is undefined or not exported',
    });
  });

  it('keeps module state warm; a thrown string answers errorType "string"; a floating rejection ends it', async () => {
    const p = await start(tinyFunction(3));
    const first = await p.invoke({});
    expect(first).toMatchObject({ ok: true, result: { calls: 1 } });
    expect((first as any).result.remaining).toBeGreaterThan(2000);
    expect((first as any).result.remaining).toBeLessThanOrEqual(3000);
    expect(await p.invoke({ throwString: true })).toEqual({
      ok: false,
      errorType: 'string',
      errorMessage: 'plain string',
      trace: [],
    });
    expect(await p.invoke({})).toMatchObject({ ok: true, result: { calls: 3 } });
    expect(p.coldStarts).toBe(1);
    // a rejection nobody awaits ends the container, as Lambda's Node runtime does
    expect(await p.invoke({ floating: true })).toMatchObject({
      ok: false,
      errorType: 'Runtime.UnhandledPromiseRejection',
      errorMessage: 'Error: floating',
    });
    expect(p.warm).toBe(false);
    expect(await p.invoke({})).toMatchObject({ ok: true, result: { calls: 1 } });
    expect(p.coldStarts).toBe(2);
  });

  it('an invocation past the timeout is killed; the Task gets Lambda.Unknown; the next is a cold start', async () => {
    const p = await start(tinyFunction(1));
    expect(await p.invoke({})).toMatchObject({ ok: true, result: { calls: 1 } });
    const t0 = Date.now();
    const r = await p.invoke({ sleepMs: 5_000 });
    expect(Date.now() - t0).toBeLessThan(3_000);
    // Step Functions: "Unhandled errors in Lambda are reported as Lambda.Unknown ... These include ... function
    // timeouts"; Sandbox.Timedout is Lambda's name for an Init-phase timeout. The Cause wraps Lambda's payload.
    expect(r).toEqual({ ok: false, errorType: 'Lambda.Unknown', errorMessage: expect.any(String) });
    const [sentence, payload] = (r as { errorMessage: string }).errorMessage.split('Returned payload: ');
    expect(sentence).toBe('The cause could not be determined because Lambda did not return an error type. ');
    expect(JSON.parse(payload)).toEqual({
      errorMessage: expect.stringMatching(/^RequestId: [0-9a-f-]{36} Error: Task timed out after 1\.00 seconds$/),
    });
    expect(p.warm).toBe(false);
    // a new container: module state starts again
    expect(await p.invoke({})).toMatchObject({ ok: true, result: { calls: 1 } });
    expect(p.coldStarts).toBe(2);
    expect(p.invocations.map((i) => [i.coldStart, i.errorType, i.timedOut])).toEqual([
      [false, undefined, undefined],
      [false, 'Lambda.Unknown', true],
      [true, undefined, undefined],
    ]);
    expect(p.invocations[1].durationMs).toBeGreaterThanOrEqual(990);
  });

  it('one container runs one invocation at a time: a second, concurrent one is refused', async () => {
    const p = await start(tinyFunction(10));
    const first = p.invoke({ sleepMs: 200 });
    await expect(p.invoke({})).rejects.toThrow(LambdaBusyError);
    expect(await first).toMatchObject({ ok: true, result: { calls: 1 } });
    expect(await p.invoke({})).toMatchObject({ ok: true, result: { calls: 2 } });
  });

  it("a caller's deadline before the function's timeout answers States.Timeout and stops the container", async () => {
    const p = await start(tinyFunction(10));
    const r = await p.invoke({ sleepMs: 5_000 }, { deadlineMs: 300 });
    expect(r).toMatchObject({ ok: false, errorType: 'States.Timeout' });
    expect(p.warm).toBe(false);
  });

  it('enforces the 6 MB synchronous payload quotas, each way', async () => {
    const p = await start(tinyFunction(10));
    // request: the JSON string '"aaa…"' of exactly the limit passes; one byte more never reaches the function
    const atLimit = await p.invoke({ bytes: 10, pad: 'a'.repeat(MAX_SYNC_REQUEST_BYTES - 21) });
    expect(atLimit).toMatchObject({ ok: true });
    expect(p.invocations[0].requestBytes).toBe(MAX_SYNC_REQUEST_BYTES);
    expect(await p.invoke({ bytes: 10, pad: 'a'.repeat(MAX_SYNC_REQUEST_BYTES - 20) })).toEqual({
      ok: false,
      errorType: 'RequestEntityTooLargeException',
      errorMessage: `Request must be smaller than ${MAX_SYNC_REQUEST_BYTES} bytes for the InvokeFunction operation`,
    });
    expect(p.warm).toBe(true);
    // response: the limit passes, one byte more is Function.ResponseSizeTooLarge and the runtime exits
    expect(await p.invoke({ bytes: MAX_SYNC_RESPONSE_BYTES })).toMatchObject({ ok: true });
    expect(await p.invoke({ bytes: MAX_SYNC_RESPONSE_BYTES + 1 })).toEqual({
      ok: false,
      errorType: 'Function.ResponseSizeTooLarge',
      errorMessage:
        `Response payload size (${MAX_SYNC_RESPONSE_BYTES + 1} bytes) exceeded maximum allowed payload size ` +
        `(${MAX_SYNC_RESPONSE_BYTES} bytes).`,
    });
    expect(p.warm).toBe(false);
    expect(await p.invoke({})).toMatchObject({ ok: true, result: { calls: 1 } });
    expect(p.coldStarts).toBe(2);
  });

  it('an asset with no module for the handler is refused when the assembly is read', async () => {
    const { AssetMissingError, AssemblyError } = await import('../rehearsal/cloud-assembly.ts');
    const dir = tempDir('asm-missing');
    mkdirSync(join(dir, 'asset.abc'));
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({
        artifacts: { Ariadne: { type: 'aws:cloudformation:stack', properties: { templateFile: 't.json' } } },
      }),
    );
    const fnRes = (asset: string) => ({
      Type: 'AWS::Lambda::Function',
      Properties: { Handler: 'index.handler', Runtime: 'nodejs24.x', Role: { 'Fn::GetAtt': ['R', 'Arn'] } },
      Metadata: { 'aws:asset:path': asset, 'aws:asset:property': 'Code', 'aws:asset:is-bundled': true },
    });
    writeFileSync(join(dir, 't.json'), JSON.stringify({ Resources: { Fn: fnRes('asset.abc') } }));
    expect(() => readAssembly(dir, { stackName: 'Other' })).toThrow(AssemblyError);
    expect(() => readAssembly(dir)).toThrow(AssetMissingError);
    expect(() => readAssembly(dir)).toThrow(/no module for handler "index.handler"/);
    writeFileSync(join(dir, 't.json'), JSON.stringify({ Resources: { Fn: fnRes('asset.gone') } }));
    expect(() => readAssembly(dir)).toThrow(/asset.gone is not in/);
  });
});
