// `ariadne doctor --aws --template cdk.out`: the account checked before the first deploy, from the
// synthesized stack, through the real SDK clients against the simulators of STS, SSM (the CDK bootstrap version),
// CloudFormation, Lambda (GetAccountSettings), Bedrock and Service Quotas.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { doctorBeforeDeploy } from '../bin/cli/doctor/before-deploy.ts';
import { doctorLines, type Check } from '../bin/cli/doctor/check.ts';
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { BedrockSim } from '../simulators/bedrock-sim.ts';
import { CloudFormationSim } from '../simulators/cloudformation-sim.ts';
import { IdentitySim } from '../simulators/identity-sim.ts';
import { LambdaSim } from '../simulators/lambda-sim.ts';
import { ServiceQuotasSim } from '../simulators/service-quotas-sim.ts';
import { SsmSim } from '../simulators/ssm-sim.ts';
import { sharedAssembly } from './support/assembly.ts';
import { ariadneInProcess } from './support/cli-in-process.ts';

const BOOTSTRAP = '/cdk-bootstrap/hnb659fds/version';
let assembly: string;
let ssm: SsmSim;
let cfn: CloudFormationSim;
let lambda: LambdaSim;
let bedrock: BedrockSim;
const sims: Array<{ close(): Promise<void> }> = [];
const env: Record<string, string> = {};

beforeAll(async () => {
  assembly = (await sharedAssembly()).dir;
  const sts = new IdentitySim(); // callers are arn:aws:iam::123456789012:user/researcher
  ssm = new SsmSim();
  cfn = new CloudFormationSim();
  lambda = new LambdaSim();
  bedrock = new BedrockSim();
  const quotas = new ServiceQuotasSim();
  sims.push(sts, ssm, cfn, lambda, bedrock, quotas);
  Object.assign(env, {
    AWS_ENDPOINT_URL_STS: await sts.listen(),
    AWS_ENDPOINT_URL_SSM: await ssm.listen(),
    AWS_ENDPOINT_URL_CLOUDFORMATION: await cfn.listen(),
    AWS_ENDPOINT_URL_LAMBDA: await lambda.listen(),
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: await bedrock.listen(),
    AWS_ENDPOINT_URL_BEDROCK: bedrock.controlPlaneUrl,
    AWS_ENDPOINT_URL_SERVICE_QUOTAS: await quotas.listen(),
    AWS_ACCESS_KEY_ID: 'AKIAADMINISTRATOR',
    AWS_SECRET_ACCESS_KEY: 'administrator',
    AWS_REGION: 'eu-west-1',
  });
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  vi.stubEnv('AWS_SESSION_TOKEN', undefined);
  vi.stubEnv('AWS_PROFILE', undefined);
}, 180_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  for (const sim of sims) await sim.close();
});

beforeEach(() => {
  ssm.parameters = [{ name: BOOTSTRAP, value: '30' }];
  lambda.account = { concurrentExecutions: 1000, unreservedConcurrentExecutions: 1000 };
});

const byName = (checks: Check[]) => Object.fromEntries(checks.map((c) => [c.check, c]));

describe('doctor --aws --template, before the first deploy', () => {
  it('a ready account: every check passes, and says what the deploy will do', async () => {
    const checks = byName(await doctorBeforeDeploy({ template: assembly }));
    expect(checks.template).toMatchObject({ ok: true, detail: expect.stringMatching(/^Ariadne, \d+ resources/) });
    expect(checks['credentials and Region']).toMatchObject({ ok: true, detail: 'account 123456789012 in eu-west-1' });
    expect(checks['CDK bootstrap']).toMatchObject({ ok: true, detail: 'version 30 (the deploy needs 6 or later)' });
    expect(checks.stack).toMatchObject({ ok: true, detail: 'no Ariadne yet: cdk deploy creates it' });
    expect(checks['Lambda concurrency']).toMatchObject({ ok: true, detail: expect.stringMatching(/runs 800 at once/) });
    expect(checks['Bedrock models']).toMatchObject({
      skipped: true,
      detail: `not checked (the template grants ${DEFAULT_BEDROCK_MODELS.join(', ')})`,
    });
    expect(Object.values(checks).filter((c) => !c.ok)).toEqual([]);
  });

  it('an account not bootstrapped, or on an old bootstrap: FAIL with the cdk bootstrap command', async () => {
    ssm.parameters = [];
    let check = byName(await doctorBeforeDeploy({ template: assembly }))['CDK bootstrap'];
    expect(check).toMatchObject({
      ok: false,
      detail: `123456789012 in eu-west-1 is not bootstrapped (no ${BOOTSTRAP})`,
      fix: 'npx cdk bootstrap aws://123456789012/eu-west-1',
    });
    ssm.parameters = [{ name: BOOTSTRAP, value: '5' }];
    check = byName(await doctorBeforeDeploy({ template: assembly }))['CDK bootstrap'];
    expect(check).toMatchObject({ ok: false, detail: 'version 5, the deploy needs 6 or later' });
  });

  it('a stack already there: updated if usable, FAIL naming the fix if only deleting it helps', async () => {
    cfn.addStack({ name: 'Ariadne', status: 'UPDATE_COMPLETE', outputs: {} }); // an older deploy: no outputs yet
    expect(byName(await doctorBeforeDeploy({ template: assembly })).stack).toMatchObject({
      ok: true,
      detail: 'Ariadne is deployed by an older version: cdk deploy updates it',
    });
    cfn.addStack({ name: 'Ariadne', status: 'ROLLBACK_COMPLETE', outputs: {} });
    expect(byName(await doctorBeforeDeploy({ template: assembly })).stack).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/ROLLBACK_COMPLETE.*delete-stack --stack-name Ariadne/),
    });
    cfn.addStack({ name: 'Ariadne', status: 'DELETE_COMPLETE', outputs: {} });
  });

  it("a new account's low Lambda concurrency: WARN with the width a sweep gets and where to ask for more", async () => {
    lambda.account = { concurrentExecutions: 10, unreservedConcurrentExecutions: 10 };
    const checks = await doctorBeforeDeploy({ template: assembly });
    expect(byName(checks)['Lambda concurrency']).toMatchObject({
      ok: true,
      warning: true,
      detail: '10 of 10 concurrent executions unreserved: a sweep runs 8 at once',
      fix: expect.stringMatching(/Service Quotas .*Concurrent executions/),
    });
    expect(doctorLines(checks).join('\n')).toMatch(/^WARN {2}Lambda concurrency/m);
  });

  it('--bedrock: each model the template grants, its lifecycle and the call that activates it', async () => {
    const checks = byName(await doctorBeforeDeploy({ template: assembly, bedrock: true }));
    for (const model of DEFAULT_BEDROCK_MODELS) {
      expect(checks[`Bedrock ${model}`], model).toMatchObject({ ok: true, detail: expect.stringMatching(/answers/) });
      expect(checks[`Bedrock ${model} lifecycle`], model).toMatchObject({ ok: true });
    }
  });

  it('signed in to another account than the template was synthesized for: FAIL before anything else', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ariadne-assembly-'));
    cpSync(join(assembly, 'Ariadne.template.json'), join(dir, 'Ariadne.template.json'));
    const manifest = JSON.parse(readFileSync(join(assembly, 'manifest.json'), 'utf8'));
    manifest.artifacts.Ariadne.environment = 'aws://210987654321/eu-west-1';
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const checks = await doctorBeforeDeploy({ template: dir });
    expect(checks.at(-1)).toMatchObject({
      check: 'credentials and Region',
      ok: false,
      detail: 'you are signed in to account 123456789012; the template was synthesized for 210987654321',
    });
  });

  it('no synthesized stack: FAIL naming cdk synth; the CLI exits 3, and 2 for --template without --aws', async () => {
    const missing = join(tmpdir(), 'no-such-cdk-out');
    expect(await doctorBeforeDeploy({ template: missing })).toEqual([
      expect.objectContaining({ check: 'template', ok: false, fix: 'npx cdk synth, then try again' }),
    ]);
    const cli = await ariadneInProcess(['doctor', '--aws', '--template', missing], env);
    expect(cli.code).toBe(3);
    expect(cli.stdout).toMatch(/^FAIL {2}template: .*no-such-cdk-out/m);
    const local = await ariadneInProcess(['doctor', '--template', assembly], env);
    expect(local.code).toBe(2);
    expect(local.stderr).toMatch(/--template checks an AWS account: add --aws/);
  });
});
