// ariadne launch / status through the real @aws-sdk/client-sfn against a
// local server speaking the Step Functions JSON 1.0 protocol.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRequestSchema } from '../core/machine/contracts.ts';
import { SfnSim } from '../simulators/sfn-sim.ts';
import { S3Sim } from '../simulators/s3-sim.ts';
import { CloudFormationSim } from '../simulators/cloudformation-sim.ts';
import { DEFAULT_LAMBDA_ACCOUNT, LambdaSim } from '../simulators/lambda-sim.ts';
import { ROOT } from './support/cli.ts';
import { ariadneInProcess } from './support/cli-in-process.ts';

const ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:AriadneExperiments';
const sim = new SfnSim();
const s3 = new S3Sim();
const cfn = new CloudFormationSim();
/** The account's Lambda concurrency, which `sweep --aws` reads (GetAccountSettings) to cap the sweep's width. */
const lambda = new LambdaSim();
let lambdaEndpoint = '';
let cfnEndpoint = '';
/** The outputs resolveStack requires besides the sweep's. */
const OTHER_OUTPUTS = {
  StateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:Lab-experiments',
  DatabaseClusterArn: 'arn:aws:rds:eu-west-1:123456789012:cluster:lab',
  DatabaseSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:lab-AbCdEf',
  DatabaseReaderSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:lab-reader-AbCdEf',
  BedrockModels: 'none',
  DatabaseName: 'ariadne',
};
let endpoint = '';
let s3Endpoint = '';
beforeAll(async () => {
  endpoint = await sim.listen();
  s3Endpoint = await s3.listen();
  cfnEndpoint = await cfn.listen();
  lambdaEndpoint = await lambda.listen();
});
afterAll(async () => {
  await sim.close();
  await cfn.close();
  await s3.close();
  await lambda.close();
});
beforeEach(() => {
  sim.requests.length = 0;
  s3.requests.length = 0;
});
const starts = () => sim.requests.filter((q) => q.target === 'AWSStepFunctions.StartExecution');

const ariadne = (args: string[]) =>
  ariadneInProcess(args, {
    AWS_ACCESS_KEY_ID: 'sim',
    AWS_SECRET_ACCESS_KEY: 'sim',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });

const launch = (...extra: string[]) =>
  ariadne(['launch', '--state-machine-arn', ARN, '--endpoint', endpoint, ...extra]);

describe('ariadne launch', () => {
  it('sends a valid StartExecution named after what it runs', async () => {
    const r = await launch(
      '--provider',
      'bedrock',
      '--model',
      'us.anthropic.claude-sonnet-4-6',
      '--maze',
      'perfect',
      '--size',
      '21',
      '--seed',
      '4',
      '--max-moves',
      '2000',
    );
    expect(r.stderr).not.toMatch(/ariadne:/);
    expect(r.code).toBe(0);
    // first a DescribeExecution of the name (not launched yet), then the start
    expect(sim.requests.map((q) => q.target)).toEqual([
      'AWSStepFunctions.DescribeExecution',
      'AWSStepFunctions.StartExecution',
    ]);
    const { body } = starts()[0];
    expect(body.stateMachineArn).toBe(ARN);
    expect(body.name).toMatch(/^bedrock-us-anthropic-claude-sonnet-4-6-perfect-21-s4-r1-[0-9a-f]{10}$/);
    const input = JSON.parse(body.input);
    expect(startRequestSchema.safeParse(input).success).toBe(true);
    expect(input).toEqual({
      agent: 'bedrock',
      model: 'us.anthropic.claude-sonnet-4-6',
      maze: { generator: 'perfect', size: 21, seed: 4 },
      config: { max_moves: 2000 },
    });
    expect(r.stdout.trim()).toBe(
      `started arn:aws:states:eu-west-1:123456789012:execution:AriadneExperiments:${body.name}`,
    );
  });

  it('--repeat of an agent without randomness is refused: its runs would be one observation repeated', async () => {
    const r = await launch('--agent', 'frontier', '--repeat', '3');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--repeat 3 with --agent frontier: frontier has no randomness/);
    expect(sim.requests).toHaveLength(0);
  });

  it('--repeat N starts N experiments; launching again starts none twice', async () => {
    const first = await launch('--agent', 'random', '--maze', 'medium', '--size', '31', '--seed', '9', '--repeat', '3');
    expect(first.code).toBe(0);
    const names = starts().map((r) => r.body.name);
    expect(new Set(names).size).toBe(3);
    expect(starts().map((r) => JSON.parse(r.body.input).agentSeed)).toEqual([0, 1, 2]);
    expect(first.stdout.match(/^started /gm)).toHaveLength(3);
    const before = sim.executions.size;
    const again = await launch('--agent', 'random', '--maze', 'medium', '--size', '31', '--seed', '9', '--repeat', '3');
    expect(again.code).toBe(0);
    // The executions are still running: StartExecution would answer them as new (it is idempotent for a running
    // Standard execution), so the launcher must say they were launched before, not "started".
    expect(starts()).toHaveLength(3);
    expect(sim.executions.size).toBe(before);
    expect(again.stdout.match(/^already launched \(RUNNING\) arn:aws:states:/gm)).toHaveLength(3);
  });

  it.each([
    [['--size', '4'], /--size must be a whole number from 5 to 201, got 4/],
    [['--provider', 'bedrock'], /--provider bedrock needs --model/],
    [['--max-moves', '0'], /--max-moves must be a whole number/],
    [['--experiment-id', 'has spaces'], /input\.experimentId: use 1-64 letters, digits, - or _/],
    [['--experiment-id', 'x'.repeat(65)], /input\.experimentId: use 1-64 letters, digits, - or _/],
  ])('rejects %j before any call, naming the field', async (args, message) => {
    const r = await launch(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(sim.requests).toHaveLength(0);
  });

  it('rejects a malformed state machine ARN before any call', async () => {
    const r = await ariadne([
      'launch',
      '--state-machine-arn',
      'arn:aws:lambda:us-east-1:123456789012:function:x',
      '--endpoint',
      endpoint,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--state-machine-arn ".*" is not a state machine ARN/);
    expect(sim.requests).toHaveLength(0);
  });
});

describe('ariadne status', () => {
  it('describes an execution', async () => {
    await launch('--agent', 'frontier', '--maze', 'light', '--size', '11', '--seed', '1');
    const arn = [...sim.executions.keys()].find((k) => k.endsWith(`:${starts()[0].body.name}`))!;
    const r = await ariadne(['status', arn, '--endpoint', endpoint]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^RUNNING frontier-light-11-s1-r1-[0-9a-f]{10}\nstarted \d{4}-\d\d-\d\dT/);
    expect(sim.requests.at(-1)!.target).toBe('AWSStepFunctions.DescribeExecution');
  });
});

describe('ariadne sweep --aws', () => {
  const SWEEP_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:Ariadne-sweeps';
  const BUCKET = 'ariadne-sweepsbucket-1a2b3c';
  const sweepAws = (extra: string[], env: Record<string, string> = {}) =>
    ariadneInProcess(
      [
        'sweep',
        'examples/sweeps/example.yaml',
        '--aws',
        '--state-machine-arn',
        SWEEP_ARN,
        '--endpoint',
        endpoint,
        ...extra,
      ],
      {
        AWS_ACCESS_KEY_ID: 'sim',
        AWS_SECRET_ACCESS_KEY: 'sim',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        AWS_ENDPOINT_URL_S3: s3Endpoint,
        AWS_ENDPOINT_URL_LAMBDA: lambdaEndpoint,
        ARIADNE_SWEEP_BUCKET: '',
        ...env,
      },
    );

  it('uploads the run list to the bucket, then starts the sweep machine with an input that only names it', async () => {
    s3.buckets.add(BUCKET);
    const r = await sweepAws(['--bucket', BUCKET, '--concurrency', '8']);
    expect(r.stderr).not.toMatch(/ariadne:/);
    expect(r.code).toBe(0);
    // the object first, then the one StartExecution
    expect(s3.requests).toHaveLength(1);
    expect(sim.requests).toHaveLength(1);
    const { body } = sim.requests[0];
    expect(body.stateMachineArn).toBe(SWEEP_ARN);
    expect(body.name).toMatch(/^baselines-example-[0-9a-f]{12}$/);
    const input = JSON.parse(body.input);
    expect(Object.keys(input).sort()).toEqual(['maxConcurrency', 'runsObject', 'sweep']);
    expect(input.maxConcurrency).toBe(8);
    expect(input.sweep).toEqual({
      id: 'baselines-example',
      specText: readFileSync(`${ROOT}/examples/sweeps/example.yaml`, 'utf8'),
    });
    expect(input.runsObject).toEqual({
      bucket: BUCKET,
      key: expect.stringMatching(/^runs\/baselines-example\/[0-9a-f]{16}\.json$/),
    });
    const object = s3.objects.get(`${BUCKET}/${input.runsObject.key}`)!;
    expect(object.contentType).toBe('application/json');
    const runs = JSON.parse(object.body) as Array<{ name: string; input: any }>;
    expect(runs).toHaveLength(40);
    const ids = new Set<string>();
    for (const run of runs) {
      expect(startRequestSchema.safeParse(run.input).success).toBe(true);
      expect(run.name).toBe(run.input.experimentId);
      ids.add(run.name);
    }
    expect(ids.size).toBe(40);
    expect(r.stdout.trim()).toBe(
      `started 40 runs of sweep baselines-example: ` +
        `arn:aws:states:eu-west-1:123456789012:execution:Ariadne-sweeps:${body.name}`,
    );
  });

  it("caps the width to the account's Lambda concurrency, saying so on stderr, before any upload", async () => {
    s3.buckets.add(BUCKET);
    lambda.account = { concurrentExecutions: 10, unreservedConcurrentExecutions: 10 };
    try {
      const r = await sweepAws(['--bucket', BUCKET, '--concurrency', '50']);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/^8 experiments at a time, not 50: the account has 10 unreserved Lambda concurrent/m);
      expect(r.stderr).toMatch(/^40 runs, 8 at a time: 5 after one another of up to /m);
      expect(lambda.requests.at(-1)).toMatchObject({ method: 'GET', path: '/2016-08-19/account-settings' });
      expect(JSON.parse(sim.requests[0].body.input).maxConcurrency).toBe(8);
      // --json: the same decisions in the output instead of on stderr
      sim.requests.length = 0;
      const json = await sweepAws(['--bucket', BUCKET, '--concurrency', '50', '--json']);
      expect(json.stderr).not.toMatch(/experiments at a time/);
      expect(JSON.parse(json.stdout).concurrency).toMatchObject({ requested: 50, maxConcurrency: 8, capped: true });
    } finally {
      lambda.account = { ...DEFAULT_LAMBDA_ACCOUNT };
    }
  });

  it('takes the bucket from ARIADNE_SWEEP_BUCKET; none, or a bad one, is refused before any call', async () => {
    s3.buckets.add(BUCKET);
    expect((await sweepAws(['--json'], { ARIADNE_SWEEP_BUCKET: BUCKET })).code).toBe(0);
    expect(s3.requests).toHaveLength(1);
    s3.requests.length = 0;
    sim.requests.length = 0;
    // neither given: the stack is asked, and a stack that does not exist is named with the fix
    const none = await sweepAws([], { AWS_ENDPOINT_URL_CLOUDFORMATION: cfnEndpoint, AWS_REGION: 'eu-west-1' });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--stack "Ariadne"|stack Ariadne/);
    const bad = await sweepAws(['--bucket', 'Not_A_Bucket']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--bucket "Not_A_Bucket" is not an S3 bucket name/);
    expect([...s3.requests, ...sim.requests]).toEqual([]);
  });

  it("launch finds the experiment machine in the stack's outputs, as every --aws command does", async () => {
    cfn.addStack({
      name: 'Lab2',
      status: 'CREATE_COMPLETE',
      outputs: { SweepStateMachineArn: SWEEP_ARN, SweepBucketName: BUCKET, ...OTHER_OUTPUTS },
    });
    const env = {
      AWS_ACCESS_KEY_ID: 'sim',
      AWS_SECRET_ACCESS_KEY: 'sim',
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL_CLOUDFORMATION: cfnEndpoint,
    };
    const r = await ariadneInProcess(['launch', '--stack', 'Lab2', '--agent', 'frontier', '--endpoint', endpoint], env);
    expect(r.stderr).not.toMatch(/ariadne:/);
    expect(r.code).toBe(0);
    expect(starts().map((q) => q.body.stateMachineArn)).toEqual([OTHER_OUTPUTS.StateMachineArn]);
    // no such stack: said, with the stack's name, and nothing started
    sim.requests.length = 0;
    const none = await ariadneInProcess(
      ['launch', '--stack', 'NoSuchLab', '--agent', 'frontier', '--endpoint', endpoint],
      env,
    );
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/NoSuchLab/);
    expect(starts()).toEqual([]);
  });

  it("finds the sweep machine and the bucket in the stack's outputs when neither is given", async () => {
    s3.buckets.add(BUCKET);
    cfn.addStack({
      name: 'Lab',
      status: 'UPDATE_COMPLETE',
      outputs: { SweepStateMachineArn: SWEEP_ARN, SweepBucketName: BUCKET, ...OTHER_OUTPUTS },
    });
    const r = await ariadneInProcess(
      ['sweep', 'examples/sweeps/example.yaml', '--aws', '--stack', 'Lab', '--endpoint', endpoint],
      {
        AWS_ACCESS_KEY_ID: 'sim',
        AWS_SECRET_ACCESS_KEY: 'sim',
        AWS_REGION: 'eu-west-1',
        AWS_ENDPOINT_URL_S3: s3Endpoint,
        AWS_ENDPOINT_URL_CLOUDFORMATION: cfnEndpoint,
        AWS_ENDPOINT_URL_LAMBDA: lambdaEndpoint,
        ARIADNE_SWEEP_BUCKET: '',
        ARIADNE_SWEEP_STATE_MACHINE_ARN: '',
      },
    );
    expect(r.stderr).not.toMatch(/ariadne:/);
    expect(r.code).toBe(0);
    expect(sim.requests[0].body.stateMachineArn).toBe(SWEEP_ARN);
    expect(JSON.parse(sim.requests[0].body.input).runsObject.bucket).toBe(BUCKET);
  });

  it('a bucket that does not exist stops it before the sweep machine is started', async () => {
    const r = await sweepAws(['--bucket', 'no-such-sweep-bucket']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/NoSuchBucket/);
    expect(sim.requests).toEqual([]);
  });
});
