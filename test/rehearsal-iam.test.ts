// The deploy rehearsal's authorization layer against the REAL synthesized template: each function's
// role policies decide, through a real IAM evaluator, what its calls to the local AWS servers may do.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import { SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ExecuteStatementCommand, RDSDataClient } from '@aws-sdk/client-rds-data';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { stackTemplate } from '../state-machine/definition.ts';
import { AriadneStack } from '../lib/ariadne-stack.ts';
import { TemplateValueError, TemplateValues, type CfnTemplate } from '../lib/template-values.ts';
import { accessKeyIdFor, IamModel, UnknownPrincipalError } from '../rehearsal/iam.ts';
import { RequestAuthorizer } from '../rehearsal/authorizer.ts';
import { accessDeniedReply, type RequestScope } from '../simulators/authorization.ts';
import { SsmSim } from '../simulators/ssm-sim.ts';
import { SfnSim } from '../simulators/sfn-sim.ts';
import { S3Sim } from '../simulators/s3-sim.ts';
import { RdsDataSim } from '../simulators/rds-data-sim.ts';
import { BedrockSim } from '../simulators/bedrock-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const SCOPE: RequestScope = { accessKeyId: 'x', region: REGION, service: 'x', account: ACCOUNT, partition: 'aws' };
const PROFILE = 'us.anthropic.claude-3-5-sonnet-20240620-v1:0';
const GLOBAL_PROFILE = 'global.anthropic.claude-sonnet-4-20250514-v1:0';

let template: CfnTemplate;
let model: IamModel;

/** The logical id of the one resource of `type` whose id starts with `prefix` (CDK appends a hash). */
function logicalId(t: CfnTemplate, type: string, prefix: string): string {
  const ids = Object.keys(t.Resources).filter((id) => id.startsWith(prefix) && t.Resources[id].Type === type);
  if (ids.length !== 1) throw new Error(`expected one ${type} ${prefix}*, found ${ids.join(', ') || 'none'}`);
  return ids[0];
}
const fn = (name: string, t = template) => logicalId(t, 'AWS::Lambda::Function', `Handlers${name}Fn`);
const envVar = (values: TemplateValues, id: string, name: string) =>
  values.resolveString(
    (values.template.Resources[id].Properties as any).Environment.Variables[name],
    `${id}.Environment.${name}`,
  );
const parameterArn = (path: string) => `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter${path}`;
const credentials = (logical: string) => ({ accessKeyId: accessKeyIdFor(logical), secretAccessKey: 'rehearsal' });

beforeAll(() => {
  template = stackTemplate();
  model = new IamModel(template);
});

describe('template values', () => {
  it('resolves a function environment variable and the IAM Resource to the same cluster ARN', () => {
    const values = model.values;
    const arn = envVar(values, fn('InvokeBaselineAgent'), 'DATABASE_CLUSTER_ARN');
    const cluster = logicalId(template, 'AWS::RDS::DBCluster', 'DatabaseCluster');
    expect(arn).toBe(values.attribute(cluster, 'DBClusterArn'));
    expect(arn).toMatch(/^arn:aws:rds:eu-west-1:123456789012:cluster:ariadne-databasecluster[0-9a-z]+-[0-9a-z]{12}$/);
    const secret = envVar(values, fn('InvokeBaselineAgent'), 'DATABASE_SECRET_ARN');
    expect(secret).toMatch(/^arn:aws:secretsmanager:eu-west-1:123456789012:secret:Ariadne-.+-[0-9a-z]{6}$/);
  });

  it('resolves Fn::Sub (both forms), Fn::Select, Fn::Split, Fn::GetAZs and pseudo parameters', () => {
    const values = new TemplateValues(template);
    const machine = logicalId(template, 'AWS::StepFunctions::StateMachine', 'ExperimentsMachine');
    expect(values.resolve({ 'Fn::Sub': '${AWS::Region}/${AWS::AccountId}/${!Literal}' })).toBe(
      'eu-west-1/123456789012/${Literal}',
    );
    expect(values.resolve({ 'Fn::Sub': ['${A}-${AWS::Partition}', { A: { Ref: 'AWS::StackName' } }] })).toBe(
      'Ariadne-aws',
    );
    expect(values.resolve({ 'Fn::Sub': `\${${machine}.Name}` })).toBe('Ariadne-experiments');
    expect(values.resolve({ 'Fn::Select': [6, { 'Fn::Split': [':', { Ref: machine }] }] })).toBe('Ariadne-experiments');
    expect(values.resolve({ 'Fn::GetAZs': '' })).toEqual(['eu-west-1a', 'eu-west-1b', 'eu-west-1c']);
  });

  it('names the path of an unknown intrinsic function, resource or attribute', () => {
    const values = new TemplateValues(template);
    expect(() => values.resolve({ a: [{ 'Fn::If': ['C', 'x', 'y'] }] })).toThrow(
      new TemplateValueError('$.a[0].Fn::If', 'intrinsic function Fn::If is not supported'),
    );
    expect(() => values.resolve({ Ref: 'Nope' }, '$.X')).toThrow(/\$\.X\.Ref: no resource Nope/);
    const bucket = logicalId(template, 'AWS::S3::Bucket', 'SweepsBucket');
    expect(() => values.resolve({ 'Fn::GetAtt': [bucket, 'WebsiteURL'] })).toThrow(TemplateValueError);
  });
});

describe('authorize (the synthesized template, a real IAM evaluator)', () => {
  it('denies the baseline turn function the parameters and allows StartExperiment them', async () => {
    const denied = await model.authorize({
      principal: fn('InvokeBaselineAgent'),
      action: 'ssm:GetParametersByPath',
      resource: parameterArn('/ariadne/config'),
    });
    expect(denied).toMatchObject({ allowed: false, principal: fn('InvokeBaselineAgent') });
    expect(denied.explanation).toMatch(/no identity-based policy .* allows ssm:GetParametersByPath/);
    const allowed = await model.authorize({
      principal: fn('StartExperiment'),
      action: 'ssm:GetParametersByPath',
      resource: parameterArn('/ariadne/config'),
    });
    expect(allowed.allowed).toBe(true);
    expect(allowed.explanation).toMatch(/^allowed by HandlersStartExperimentFnServiceRoleDefaultPolicy/);
    // Only its own prefix: another path is not the stack's.
    expect(
      (
        await model.authorize({
          principal: fn('StartExperiment'),
          action: 'ssm:GetParametersByPath',
          resource: parameterArn('/other/config'),
        })
      ).allowed,
    ).toBe(false);
  });

  it('denies CheckProgress the Data API and allows a turn function on the cluster its env var names', async () => {
    const turn = fn('InvokeBaselineAgent');
    const cluster = envVar(model.values, turn, 'DATABASE_CLUSTER_ARN');
    const secret = envVar(model.values, turn, 'DATABASE_SECRET_ARN');
    const call = (principal: string, action: string, resource: string) =>
      model.authorize({ principal, action, resource }).then((d) => d.allowed);
    expect(await call(fn('CheckProgress'), 'rds-data:ExecuteStatement', cluster)).toBe(false);
    expect(await call(turn, 'rds-data:ExecuteStatement', cluster)).toBe(true);
    expect(await call(turn, 'secretsmanager:GetSecretValue', secret)).toBe(true);
    expect(await call(turn, 'rds-data:ExecuteStatement', cluster.replace(/cluster:.*/, 'cluster:other'))).toBe(false);
  });

  it('lets a finalize function send task success on "*" (no resource type) and CheckProgress not', async () => {
    const send = (principal: string) =>
      model.authorize({ principal, action: 'states:SendTaskSuccess', resource: '*' }).then((d) => d.allowed);
    expect(await send(fn('FinalizeSuccess'))).toBe(true);
    expect(await send(logicalId(template, 'AWS::Lambda::Function', 'FailureHandlingFinalizerFn'))).toBe(true);
    expect(await send(fn('CheckProgress'))).toBe(false);
  });

  it('knows principals by function, state machine or role, and by access key', () => {
    const bedrock = model.principal(fn('StartExperiment'));
    expect(bedrock.accessKeyId).toMatch(/^AKIA[A-Z2-7]{16}$/);
    expect(model.byAccessKeyId(bedrock.accessKeyId)).toBe(bedrock);
    expect(model.principal(bedrock.roleLogicalId)).toBe(bedrock);
    expect(bedrock.policies.map((p) => p.source)).toEqual(['AWS::IAM::Policy', 'AWS managed']);
    expect(new Set(model.principals.map((p) => p.accessKeyId)).size).toBe(model.principals.length);
    expect(model.principal(logicalId(template, 'AWS::StepFunctions::StateMachine', 'SweepsMachine')).kind).toBe(
      'state-machine',
    );
    expect(() => model.principal('Nobody')).toThrow(UnknownPrincipalError);
  });

  it('a statement removed turns an allowed call into a denial naming function, action and resource', async () => {
    const copy = structuredClone(template) as any;
    const startFn = fn('StartExperiment', copy);
    const policy = logicalId(copy, 'AWS::IAM::Policy', 'HandlersStartExperimentFnServiceRoleDefaultPolicy');
    const statements: any[] = copy.Resources[policy].Properties.PolicyDocument.Statement;
    const before = statements.length;
    copy.Resources[policy].Properties.PolicyDocument.Statement = statements.filter(
      (s) => s.Action !== 'ssm:GetParametersByPath',
    );
    expect(copy.Resources[policy].Properties.PolicyDocument.Statement).toHaveLength(before - 1);
    const authorizer = new RequestAuthorizer(new IamModel(copy));
    const resource = parameterArn('/ariadne/config');
    const result = await authorizer.check(
      { authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyIdFor(startFn)}/20261123/${REGION}/ssm/aws4_request` },
      'json-1.1',
      () => [{ action: 'ssm:GetParametersByPath', resource }],
    );
    expect(result.ok).toBe(false);
    expect(authorizer.denials).toEqual([
      expect.objectContaining({ principal: startFn, action: 'ssm:GetParametersByPath', resource }),
    ]);
    expect(authorizer.summary()).toEqual({ [startFn]: { 'ssm:GetParametersByPath': 1 } });
    // The unmodified template allows the same call.
    expect((await model.authorize({ principal: startFn, action: 'ssm:GetParametersByPath', resource })).allowed).toBe(
      true,
    );
  });
});

describe('Bedrock inference profiles (a stack configured with one)', () => {
  let profiled: IamModel;
  let authorizer: RequestAuthorizer;
  beforeAll(() => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new AriadneStack(app, 'Ariadne', {
      bedrockModelIds: [PROFILE, GLOBAL_PROFILE, 'amazon.nova-lite-v1:0'],
    });
    profiled = new IamModel(Template.fromStack(stack).toJSON() as CfnTemplate);
    authorizer = new RequestAuthorizer(profiled);
  });
  const decide = (modelId: string) =>
    Promise.all(
      authorizer
        .bedrockInvokeCalls(modelId, SCOPE)
        .map((c) => profiled.authorize({ principal: fn('InvokeBedrockAgent', profiled.values.template), ...c })),
    );

  it('allows a listed profile: the profile ARN and the model in every Region it routes to, through it', async () => {
    const decisions = await decide(PROFILE);
    expect(decisions.map((d) => d.resource)).toEqual([
      `arn:aws:bedrock:${REGION}:${ACCOUNT}:inference-profile/${PROFILE}`,
      ...['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2'].map(
        (r) => `arn:aws:bedrock:${r}::foundation-model/anthropic.claude-3-5-sonnet-20240620-v1:0`,
      ),
    ]);
    expect(decisions.filter((d) => !d.allowed)).toEqual([]);
    expect((await decide('amazon.nova-lite-v1:0')).every((d) => d.allowed)).toBe(true);
    const global = await decide(GLOBAL_PROFILE);
    expect(global.map((d) => [d.resource, d.allowed])).toEqual([
      [`arn:aws:bedrock:${REGION}:${ACCOUNT}:inference-profile/${GLOBAL_PROFILE}`, true],
      [`arn:aws:bedrock:${REGION}::foundation-model/anthropic.claude-sonnet-4-20250514-v1:0`, true],
    ]);
  });

  it('denies an unlisted model and a routed model called directly (no bedrock:InferenceProfileArn)', async () => {
    expect((await decide('anthropic.claude-3-opus-20240229-v1:0')).map((d) => d.allowed)).toEqual([false]);
    expect((await decide('us.amazon.nova-pro-v1:0')).some((d) => d.allowed)).toBe(false);
    const direct = await profiled.authorize({
      principal: fn('InvokeBedrockAgent', profiled.values.template),
      action: 'bedrock:InvokeModel',
      resource: 'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-5-sonnet-20240620-v1:0',
    });
    expect(direct.allowed).toBe(false);
  });

  it('the Bedrock sim answers the real client AccessDeniedException for an unlisted model', async () => {
    // The sim serves it; the profiled stack does not grant it.
    const unlisted = 'anthropic.claude-3-haiku-20240307-v1:0';
    const sim = new BedrockSim({ authorizer: new RequestAuthorizer(profiled) });
    const endpoint = await sim.listen();
    const client = (logical: string) =>
      new BedrockRuntimeClient({ endpoint, region: REGION, credentials: credentials(logical), maxAttempts: 1 });
    const bedrockFn = fn('InvokeBedrockAgent', profiled.values.template);
    const converse = (modelId: string) =>
      client(bedrockFn).send(
        new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'Where next?' }] }] }),
      );
    try {
      await expect(converse(unlisted)).rejects.toMatchObject({ name: 'AccessDeniedException' });
      await expect(converse('amazon.nova-lite-v1:0')).resolves.toMatchObject({ output: expect.anything() });
    } finally {
      await sim.close();
    }
  });
});

describe('the local servers with an authorizer, through the real SDK clients', () => {
  it('SSM: AccessDeniedException for the baseline function, the parameters for StartExperiment', async () => {
    const authorizer = new RequestAuthorizer(model);
    const sim = new SsmSim([{ name: '/ariadne/config/max_moves', value: '5000' }], { authorizer });
    const endpoint = await sim.listen();
    const get = (logical: string) => {
      const client = new SSMClient({ endpoint, region: REGION, credentials: credentials(logical), maxAttempts: 1 });
      return client.send(new GetParametersByPathCommand({ Path: '/ariadne/config', Recursive: true }));
    };
    try {
      const baseline = fn('InvokeBaselineAgent');
      const error = await get(baseline).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ name: 'AccessDeniedException', $metadata: { httpStatusCode: 400 } });
      expect((error as Error).message).toContain(`not authorized to perform: ssm:GetParametersByPath`);
      const ok = await get(fn('StartExperiment'));
      expect(ok.Parameters?.map((p) => p.Value)).toEqual(['5000']);
      expect(authorizer.denials).toEqual([
        expect.objectContaining({
          principal: baseline,
          action: 'ssm:GetParametersByPath',
          resource: parameterArn('/ariadne/config'),
        }),
      ]);
      expect(authorizer.summary()).toEqual({
        [baseline]: { 'ssm:GetParametersByPath': 1 },
        [fn('StartExperiment')]: { 'ssm:GetParametersByPath': 1 },
      });
      // A key the rehearsal never handed out is not a principal at all.
      await expect(get('NotAFunction')).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    } finally {
      await sim.close();
    }
  });

  it('Step Functions: the sweep machine may start experiments, a Lambda function may not', async () => {
    const authorizer = new RequestAuthorizer(model);
    const sim = new SfnSim({ authorizer });
    const endpoint = await sim.listen();
    const experiments = model.values.ref(logicalId(template, 'AWS::StepFunctions::StateMachine', 'ExperimentsMachine'));
    const start = (logical: string) =>
      new SFNClient({ endpoint, region: REGION, credentials: credentials(logical), maxAttempts: 1 }).send(
        new StartExecutionCommand({ stateMachineArn: experiments, name: `run-${logical.length}`, input: '{}' }),
      );
    try {
      const sweeps = logicalId(template, 'AWS::StepFunctions::StateMachine', 'SweepsMachine');
      await expect(start(sweeps)).resolves.toMatchObject({ executionArn: expect.stringContaining(':execution:') });
      await expect(start(fn('StartExperiment'))).rejects.toMatchObject({ name: 'AccessDeniedException' });
      expect(authorizer.denials.map((d) => [d.action, d.resource])).toEqual([['states:StartExecution', experiments]]);
    } finally {
      await sim.close();
    }
  });

  it('S3: AccessDenied (REST-XML) for a function without a grant on the sweep bucket', async () => {
    const authorizer = new RequestAuthorizer(model);
    const sim = new S3Sim({ authorizer });
    const endpoint = await sim.listen();
    const bucket = model.values.ref(logicalId(template, 'AWS::S3::Bucket', 'SweepsBucket'));
    sim.buckets.add(bucket);
    const put = (logical: string) =>
      new S3Client({ endpoint, region: REGION, forcePathStyle: true, credentials: credentials(logical) }).send(
        new PutObjectCommand({ Bucket: bucket, Key: 'runs/a.json', Body: '[]' }),
      );
    try {
      await expect(put(fn('StartExperiment'))).rejects.toMatchObject({
        name: 'AccessDenied',
        $metadata: { httpStatusCode: 403 },
      });
      // The sweep machine's role writes its results there (the Distributed Map's ResultWriter grant).
      await put(logicalId(template, 'AWS::StepFunctions::StateMachine', 'SweepsMachine'));
      expect([...sim.objects.keys()]).toEqual([`${bucket}/runs/a.json`]);
    } finally {
      await sim.close();
    }
  });

  it('Step Functions: SendTaskSuccess answers a waiting Task once, naming its sender; API errors', async () => {
    const authorizer = new RequestAuthorizer(model);
    const sim = new SfnSim({ authorizer });
    const endpoint = await sim.listen();
    const client = (logical: string) =>
      new SFNClient({ endpoint, region: REGION, credentials: credentials(logical), maxAttempts: 1 });
    const finalize = client(fn('FinalizeSuccess'));
    const succeed = (taskToken: string, output: string, c = finalize) =>
      c.send(new SendTaskSuccessCommand({ taskToken, output }));
    try {
      const task = sim.issueTaskToken();
      expect(sim.openTaskTokens).toBe(1);
      // not JSON: InvalidOutput, and the token stays open
      await expect(succeed(task.token, '{not json')).rejects.toMatchObject({ name: 'InvalidOutput' });
      // CheckProgress has no states:SendTaskSuccess: denied, counted and recorded every time (decisions are cached)
      for (let i = 0; i < 2; i++)
        await expect(succeed(task.token, '{}', client(fn('CheckProgress')))).rejects.toMatchObject({
          name: 'AccessDeniedException',
        });
      expect(authorizer.denials.map((d) => [d.principal, d.action])).toEqual([
        [fn('CheckProgress'), 'states:SendTaskSuccess'],
        [fn('CheckProgress'), 'states:SendTaskSuccess'],
      ]);
      await succeed(task.token, '{"experimentId":"e1","status":"completed"}');
      await expect(task.outcome).resolves.toEqual({
        status: 'SUCCEEDED',
        output: '{"experimentId":"e1","status":"completed"}',
        sender: fn('FinalizeSuccess'),
      });
      expect(sim.openTaskTokens).toBe(0);
      // a token already answered, one never issued, one the service could not have issued
      await expect(succeed(task.token, '{}')).rejects.toMatchObject({ name: 'TaskTimedOut' });
      const unknown = `AQC${'A'.repeat(160)}`;
      await expect(succeed(unknown, '{}')).rejects.toMatchObject({ name: 'TaskDoesNotExist' });
      await expect(succeed('not-a-token', '{}')).rejects.toMatchObject({ name: 'InvalidToken' });
      // a token whose Task timed out
      const late = sim.issueTaskToken();
      sim.expireTaskToken(late.token);
      await expect(late.outcome).resolves.toEqual({ status: 'TIMED_OUT' });
      await expect(succeed(late.token, '{}')).rejects.toMatchObject({ name: 'TaskTimedOut' });
      // SendTaskFailure fails the Task, for a role granted it; the finalize functions are granted success only
      const failing = sim.issueTaskToken();
      const fail = new SendTaskFailureCommand({ taskToken: failing.token, error: 'E', cause: 'why' });
      await expect(finalize.send(fail)).rejects.toMatchObject({ name: 'AccessDeniedException' });
      const open = new SfnSim();
      const openEndpoint = await open.listen();
      try {
        const other = open.issueTaskToken();
        const anyone = new SFNClient({ endpoint: openEndpoint, region: REGION, credentials: credentials('x') });
        await anyone.send(new SendTaskFailureCommand({ taskToken: other.token, error: 'E', cause: 'why' }));
        await expect(other.outcome).resolves.toEqual({ status: 'FAILED', error: 'E', cause: 'why', sender: undefined });
      } finally {
        await open.close();
      }
    } finally {
      await sim.close();
    }
  });

  it('S3: GetObject returns the object put; a missing key: NoSuchKey, or 403 without ListBucket', async () => {
    const authorizer = new RequestAuthorizer(model);
    const sim = new S3Sim({ authorizer });
    const endpoint = await sim.listen();
    const bucket = model.values.ref(logicalId(template, 'AWS::S3::Bucket', 'SweepsBucket'));
    sim.buckets.add(bucket);
    const sweeps = logicalId(template, 'AWS::StepFunctions::StateMachine', 'SweepsMachine');
    const s3 = (logical: string, url = endpoint) =>
      new S3Client({ endpoint: url, region: REGION, forcePathStyle: true, credentials: credentials(logical) });
    const body = '[{"name":"r1","input":{}}]';
    try {
      const put = await s3(sweeps).send(
        new PutObjectCommand({ Bucket: bucket, Key: 'runs/s/a.json', Body: body, ContentType: 'application/json' }),
      );
      const md5 = `"${createHash('md5').update(body).digest('hex')}"`;
      expect(put.ETag).toBe(md5);
      const got = await s3(sweeps).send(new GetObjectCommand({ Bucket: bucket, Key: 'runs/s/a.json' }));
      expect({ etag: got.ETag, length: got.ContentLength, type: got.ContentType }).toEqual({
        etag: md5,
        length: Buffer.byteLength(body),
        type: 'application/json',
      });
      expect(await got.Body!.transformToString()).toBe(body);
      // the sweep machine's role has no s3:ListBucket: S3 does not say the key is missing, and no grant was denied
      await expect(
        s3(sweeps).send(new GetObjectCommand({ Bucket: bucket, Key: 'runs/none.json' })),
      ).rejects.toMatchObject({
        name: 'AccessDenied',
        $metadata: { httpStatusCode: 403 },
      });
      expect(authorizer.denials).toEqual([]);
      // a function with no grant on the bucket: denied and recorded
      await expect(
        s3(fn('StartExperiment')).send(new GetObjectCommand({ Bucket: bucket, Key: 'runs/s/a.json' })),
      ).rejects.toMatchObject({
        name: 'AccessDenied',
      });
      expect(authorizer.denials.map((d) => [d.action, d.resource])).toEqual([
        ['s3:GetObject', `arn:aws:s3:::${bucket}/runs/s/a.json`],
      ]);
      expect(authorizer.summary()[sweeps]).toEqual({ 's3:PutObject': 1, 's3:GetObject': 2 });
    } finally {
      await sim.close();
    }
    // with no authorizer (as `ariadne sim` runs it) every caller may list: NoSuchKey, 404, naming the key
    const open = new S3Sim();
    const openEndpoint = await open.listen();
    open.buckets.add('b');
    try {
      await expect(
        s3(sweeps, openEndpoint).send(new GetObjectCommand({ Bucket: 'b', Key: 'k/none.json' })),
      ).rejects.toMatchObject({
        name: 'NoSuchKey',
        $metadata: { httpStatusCode: 404 },
      });
      await expect(
        s3(sweeps, openEndpoint).send(new GetObjectCommand({ Bucket: 'nb', Key: 'k' })),
      ).rejects.toMatchObject({
        name: 'NoSuchBucket',
      });
    } finally {
      await open.close();
    }
  });

  describe('RDS Data API', () => {
    let db: TestDatabase;
    let sim: RdsDataSim;
    let endpoint: string;
    let authorizer: RequestAuthorizer;
    const turn = () => fn('InvokeBaselineAgent');
    beforeAll(async () => {
      db = await testDatabase(2);
      authorizer = new RequestAuthorizer(model);
      sim = new RdsDataSim({
        url: db.url,
        schema: db.schema,
        clusterArn: envVar(model.values, turn(), 'DATABASE_CLUSTER_ARN'),
        secretArn: envVar(model.values, turn(), 'DATABASE_SECRET_ARN'),
        authorizer,
      });
      endpoint = await sim.listen();
    });
    afterAll(async () => {
      await sim?.close();
      await db?.drop();
    });

    it('authorizes cluster and secret as the caller: CheckProgress denied, a turn function allowed', async () => {
      const run = (logical: string) =>
        new RDSDataClient({ endpoint, region: REGION, credentials: credentials(logical), maxAttempts: 1 }).send(
          new ExecuteStatementCommand({
            resourceArn: sim.clusterArn,
            secretArn: sim.secretArn,
            database: sim.database,
            sql: 'SELECT 1',
          }),
        );
      await expect(run(fn('CheckProgress'))).rejects.toMatchObject({
        name: 'AccessDeniedException',
        $metadata: { httpStatusCode: 403 },
      });
      await expect(run(turn())).resolves.toMatchObject({ records: [[{ longValue: 1 }]] });
      expect(authorizer.summary()[turn()]).toEqual({
        'rds-data:ExecuteStatement': 1,
        'secretsmanager:GetSecretValue': 1,
      });
      expect(authorizer.denials.map((d) => [d.principal, d.action])).toEqual([
        [fn('CheckProgress'), 'rds-data:ExecuteStatement'],
      ]);
    });
  });
});

describe('AccessDenied replies per protocol', () => {
  it('JSON 1.0/1.1 in __type, REST-JSON in x-amzn-ErrorType with 403, S3 as <Error><Code>AccessDenied', () => {
    const json = accessDeniedReply('json-1.1', 'no');
    expect([json.status, json.headers['content-type'], JSON.parse(json.body).__type]).toEqual([
      400,
      'application/x-amz-json-1.1',
      'AccessDeniedException',
    ]);
    expect(accessDeniedReply('json-1.0', 'no').headers['content-type']).toBe('application/x-amz-json-1.0');
    const rest = accessDeniedReply('rest-json', 'no');
    expect([rest.status, rest.headers['x-amzn-errortype'], JSON.parse(rest.body)]).toEqual([
      403,
      'AccessDeniedException',
      { message: 'no' },
    ]);
    const xml = accessDeniedReply('rest-xml', 'a <b>');
    expect(xml.status).toBe(403);
    expect(xml.body).toMatch(/<Error><Code>AccessDenied<\/Code><Message>a &lt;b&gt;<\/Message>/);
    // query protocol services (CloudFormation): ErrorResponse/Error with Type, Code and Message, HTTP 403
    const query = accessDeniedReply('query', 'no');
    expect(query.status).toBe(403);
    expect(query.body).toMatch(/^<ErrorResponse [^>]*><Error><Type>Sender<\/Type><Code>AccessDenied<\/Code>/);
  });
});
