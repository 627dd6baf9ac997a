// StartSyncExecution of the Step Functions simulator through the real @aws-sdk/client-sfn: an Express machine's run
// ends SUCCEEDED, FAILED or TIMED_OUT in a 200 reply with billing details; a Standard or unknown machine, a caller
// without states:StartSyncExecution and an input over the payload limit are refused; DescribeExecution does not know
// the Express execution.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeExecutionCommand, SFNClient, StartSyncExecutionCommand } from '@aws-sdk/client-sfn';
import { SfnSim } from '../simulators/sfn-sim.ts';
import { accessKeyIdFor, IamModel } from '../rehearsal/iam.ts';
import { RequestAuthorizer } from '../rehearsal/authorizer.ts';
import { fact } from '../aws-facts/facts.ts';
import type { CfnTemplate } from '../lib/template-values.ts';

const REGION = 'eu-west-1';
const MACHINES = `arn:aws:states:${REGION}:123456789012:stateMachine`;
const EXPRESS = `${MACHINES}:Ariadne-turns`;
const OTHER_EXPRESS = `${MACHINES}:Ariadne-other`;
const STANDARD = `${MACHINES}:Ariadne-experiments`;
const LIMIT_MS = 300;
const EMPTY: CfnTemplate = { Resources: {} };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sim: SfnSim;
let endpoint: string;
let authorizer: RequestAuthorizer;

/**
 * StartSyncExecution's endpoint has the host prefix "sync-" (sync-states.<region>.amazonaws.com): against
 * http://127.0.0.1:PORT the SDK would call sync-127.0.0.1, which does not resolve. disableHostPrefix keeps the host.
 */
const client = (user: string) =>
  new SFNClient({
    endpoint,
    region: REGION,
    credentials: { accessKeyId: accessKeyIdFor(user), secretAccessKey: 'rehearsal' },
    maxAttempts: 1,
    disableHostPrefix: true,
  });

const start = (stateMachineArn: string, input?: string, user = 'Parent') =>
  client(user).send(new StartSyncExecutionCommand({ stateMachineArn, input, name: 'chunk-1' }));

beforeAll(async () => {
  const model = new IamModel(EMPTY);
  const allow = (Action: string[], Resource: string[]) => ({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action, Resource }],
  });
  model.addPrincipal('Parent', allow(['states:StartSyncExecution', 'states:DescribeExecution'], ['*']));
  // May StartExecution on the machine and StartSyncExecution on another: not StartSyncExecution on this one.
  model.addPrincipal('Outsider', {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Action: ['states:StartExecution'], Resource: [EXPRESS] },
      { Effect: 'Allow', Action: ['states:StartSyncExecution'], Resource: [OTHER_EXPRESS] },
    ],
  });
  authorizer = new RequestAuthorizer(model);
  sim = new SfnSim({ authorizer, expressMaxMs: LIMIT_MS });
  sim.expressMachine(EXPRESS, async (input, ctx) => {
    const { turns, fail, sleepMs } = input as { turns?: number; fail?: boolean; sleepMs?: number };
    if (sleepMs) await sleep(sleepMs);
    if (fail) throw Object.assign(new Error('turn 3 did not parse'), { name: 'ParseError' });
    return { turns, executionArn: ctx.executionArn, name: ctx.name };
  });
  sim.standardMachine(STANDARD);
  endpoint = await sim.listen();
});

afterAll(() => sim.close());

describe('StartSyncExecution through the real SDK client', () => {
  it('SUCCEEDED: the output is the JSON text of the run, billed in 100 ms and 64 MB steps', async () => {
    const out = await client('Parent').send(
      new StartSyncExecutionCommand({ stateMachineArn: EXPRESS, name: 'chunk-1', input: '{"turns":5,"sleepMs":130}' }),
    );
    expect(out.$metadata.httpStatusCode).toBe(200);
    expect(out.status).toBe('SUCCEEDED');
    expect(out.executionArn).toMatch(
      /^arn:aws:states:eu-west-1:123456789012:express:Ariadne-turns:chunk-1:[0-9a-f-]{36}$/,
    );
    expect(JSON.parse(out.output!)).toEqual({ turns: 5, executionArn: out.executionArn, name: 'chunk-1' });
    expect(out).toMatchObject({ stateMachineArn: EXPRESS, name: 'chunk-1', input: '{"turns":5,"sleepMs":130}' });
    expect(out.inputDetails).toEqual({ included: true });
    expect(out.outputDetails).toEqual({ included: true });
    expect(out.error).toBeUndefined();
    expect(out.startDate).toBeInstanceOf(Date);
    const ran = out.stopDate!.getTime() - out.startDate!.getTime();
    expect(ran).toBeGreaterThanOrEqual(120);
    // 130 ms or a little more: billed 200 (300 if the run took over 200 ms)
    expect(out.billingDetails?.billedMemoryUsedInMB).toBe(64);
    expect(out.billingDetails?.billedDurationInMilliseconds).toBe(Math.ceil(ran / 100) * 100);
    expect([200, 300]).toContain(out.billingDetails?.billedDurationInMilliseconds);
  });

  it('names do not deduplicate: the same name starts another execution with another ARN', async () => {
    const a = await start(EXPRESS, '{"turns":1}');
    const b = await start(EXPRESS, '{"turns":1}');
    expect(a.status).toBe('SUCCEEDED');
    expect(b.executionArn).not.toBe(a.executionArn);
    // an unnamed execution gets a UUID for a name
    const unnamed = await client('Parent').send(new StartSyncExecutionCommand({ stateMachineArn: EXPRESS }));
    expect(unnamed.name).toMatch(/^[0-9a-f-]{36}$/);
    expect(unnamed.input).toBe('{}');
  });

  it('a run that throws: 200, FAILED with the error name and message as cause, no output', async () => {
    const out = await start(EXPRESS, '{"fail":true}');
    expect(out.$metadata.httpStatusCode).toBe(200);
    expect(out).toMatchObject({ status: 'FAILED', error: 'ParseError', cause: 'turn 3 did not parse' });
    expect(out.output).toBeUndefined();
    expect(out.outputDetails).toBeUndefined();
  });

  it('a run past the Express limit: TIMED_OUT, States.Timeout', async () => {
    const out = await start(EXPRESS, JSON.stringify({ sleepMs: LIMIT_MS + 400 }));
    expect(out).toMatchObject({ status: 'TIMED_OUT', error: 'States.Timeout' });
    expect(out.output).toBeUndefined();
    const ran = out.stopDate!.getTime() - out.startDate!.getTime();
    expect(ran).toBeGreaterThanOrEqual(LIMIT_MS - 10);
    expect(ran).toBeLessThan(LIMIT_MS + 300);
  });

  it('the limit is the Express quota unless a test shortens it', () => {
    expect(fact('sfn.express-max-execution-seconds').value).toBe(300);
    expect((new SfnSim() as unknown as { expressMaxMs: number }).expressMaxMs).toBe(300_000);
  });

  it('a Standard machine is StateMachineTypeNotSupported, an unknown one StateMachineDoesNotExist (400)', async () => {
    await expect(start(STANDARD)).rejects.toMatchObject({
      name: 'StateMachineTypeNotSupported',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(start(`${MACHINES}:Nowhere`)).rejects.toMatchObject({
      name: 'StateMachineDoesNotExist',
      $metadata: { httpStatusCode: 400 },
    });
  });

  it('IAM: a caller without states:StartSyncExecution on the machine is AccessDeniedException', async () => {
    await expect(start(EXPRESS, '{"turns":1}', 'Outsider')).rejects.toMatchObject({ name: 'AccessDeniedException' });
    const denied = authorizer.denials.filter((d) => d.principal === 'Outsider');
    expect(denied.map((d) => [d.action, d.resource])).toEqual([['states:StartSyncExecution', EXPRESS]]);
  });

  it('an input over sfn.max-payload-bytes is refused; a JSON-less one is InvalidExecutionInput', async () => {
    const max = fact('sfn.max-payload-bytes').value;
    const padded = (bytes: number) => JSON.stringify({ pad: 'x'.repeat(bytes - 10) });
    expect(padded(max).length).toBe(max);
    expect((await start(EXPRESS, padded(max))).status).toBe('SUCCEEDED');
    await expect(start(EXPRESS, padded(max + 1))).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(start(EXPRESS, '{not json')).rejects.toMatchObject({ name: 'InvalidExecutionInput' });
    await expect(
      client('Parent').send(new StartSyncExecutionCommand({ stateMachineArn: EXPRESS, name: 'a b' })),
    ).rejects.toMatchObject({ name: 'InvalidName' });
  });

  it('a result over the payload limit fails the execution with States.DataLimitExceeded', async () => {
    const big = `${MACHINES}:Ariadne-big`;
    sim.expressMachine(big, () => Promise.resolve('x'.repeat(fact('sfn.max-payload-bytes').value)));
    const out = await start(big);
    expect(out).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded' });
  });

  it('METADATA_ONLY: no input or output in the reply', async () => {
    const out = await client('Parent').send(
      new StartSyncExecutionCommand({ stateMachineArn: EXPRESS, input: '{"turns":2}', includedData: 'METADATA_ONLY' }),
    );
    expect(out.status).toBe('SUCCEEDED');
    expect(out.input).toBeUndefined();
    expect(out.output).toBeUndefined();
    expect(out.inputDetails).toEqual({ included: false });
  });

  it('DescribeExecution does not know an Express execution (InvalidArn)', async () => {
    const out = await start(EXPRESS, '{"turns":1}');
    await expect(
      client('Parent').send(new DescribeExecutionCommand({ executionArn: out.executionArn })),
    ).rejects.toMatchObject({ name: 'InvalidArn' });
    expect(sim.syncExecutions).toContain(out.executionArn);
  });

  it('without disableHostPrefix the SDK sends StartSyncExecution to sync-<host>', async () => {
    const hosts: string[] = [];
    const prefixed = new SFNClient({
      endpoint,
      region: REGION,
      credentials: { accessKeyId: accessKeyIdFor('Parent'), secretAccessKey: 'x' },
      maxAttempts: 1,
    });
    prefixed.middlewareStack.add(
      () => (args) => {
        hosts.push((args.request as { hostname: string }).hostname);
        return Promise.reject(new Error('stop before sending'));
      },
      { step: 'finalizeRequest' },
    );
    await expect(prefixed.send(new StartSyncExecutionCommand({ stateMachineArn: EXPRESS }))).rejects.toThrow(
      'stop before sending',
    );
    expect(hosts).toEqual(['sync-127.0.0.1']);
  });
});
