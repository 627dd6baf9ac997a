// `ariadne doctor --aws --template cdk.out`: the account checked before the first deploy, from the synthesized stack,
// so what would fail the deploy or the first run shows while nothing exists yet: credentials and account, the CDK
// bootstrap, an existing stack's status (ROLLBACK_COMPLETE: only deleting helps), the Lambda concurrency (new accounts
// get less), and with --bedrock each granted model's lifecycle and activating call (doctor-bedrock.ts).
import { lambdaAccountConcurrency } from '../../../functions/lambda-concurrency.ts';
import { sweepConcurrencyCap } from '../../../core/sweeps/sweep-capacity.ts';
import { resolveStack } from '../aws-stack.ts';
import { bedrockChecks } from './bedrock.ts';
import type { Check } from './check.ts';
import { EnvironmentError, NotFoundError } from '../exit-codes.ts';
import { isNetworkError } from '../errors.ts';
import { plannedParameters, plannedValues, readSynthesizedStack } from '../template-stack.ts';
import { envString } from '../../../core/config/environment.ts';
import { commandPrefix } from '../invocation.ts';

export interface PlanDoctorOptions {
  /** cdk.out (or a .template.json). */
  template: string;
  stack?: string;
  /** Default: the template's Region, then AWS_REGION and the caller's profile. */
  region?: string;
  /** Also the Bedrock checks of each model the template grants (the administrator's activation call). */
  bedrock?: boolean;
  /** The parameter prefix the stack writes (lib/ariadne-stack.ts). */
  parameterPrefix?: string;
}

/**
 * Below this many unreserved concurrent executions a sweep is narrow enough to say so before the deploy: the
 * default quota is 1,000, and "New AWS accounts have reduced concurrency and memory quotas" (Lambda quotas page).
 */
const NARROW_ACCOUNT = 100;

const message = (err: unknown) => `${(err as Error).name}: ${(err as Error).message.split('\n')[0]}`;

export async function doctorBeforeDeploy(o: PlanDoctorOptions): Promise<Check[]> {
  const checks: Check[] = [];
  let synthesized;
  try {
    synthesized = readSynthesizedStack({ template: o.template, stack: o.stack });
  } catch (err) {
    return [{ check: 'template', ok: false, detail: (err as Error).message, fix: 'npx cdk synth, then try again' }];
  }
  const region = o.region ?? synthesized.region ?? envString('AWS_REGION');
  checks.push({
    check: 'template',
    ok: true,
    detail:
      `${synthesized.stackName}, ${Object.keys(synthesized.template.Resources).length} resources, for ` +
      `${synthesized.account ? `account ${synthesized.account}` : 'any account'} in ${region ?? 'no Region yet'}`,
  });
  if (!region)
    return [
      ...checks,
      {
        check: 'credentials and Region',
        ok: false,
        detail: 'no Region: the template names none and AWS_REGION is not set',
        fix: 'pass --region (the Region you will deploy to) or export AWS_REGION',
      },
    ];

  const { GetCallerIdentityCommand, STSClient } = await import('@aws-sdk/client-sts');
  const sts = new STSClient({ region, maxAttempts: 2 });
  let account: string;
  try {
    const who = await sts.send(new GetCallerIdentityCommand({}));
    account = who.Account ?? '';
  } catch (err) {
    checks.push({
      check: 'credentials and Region',
      ok: false,
      detail: message(err),
      fix: isNetworkError(err)
        ? `AWS STS in ${region} did not answer: check the network and the Region`
        : 'sign in (aws sso login, aws configure, or AWS_PROFILE) with credentials for the account to deploy to',
    });
    return checks;
  } finally {
    sts.destroy();
  }
  if (synthesized.account && synthesized.account !== account) {
    checks.push({
      check: 'credentials and Region',
      ok: false,
      detail: `you are signed in to account ${account}; the template was synthesized for ${synthesized.account}`,
      fix: `sign in to ${synthesized.account}, or synthesize again with your credentials (npx cdk synth)`,
    });
    return checks;
  }
  checks.push({ check: 'credentials and Region', ok: true, detail: `account ${account} in ${region}` });

  if (synthesized.bootstrap) checks.push(await bootstrapCheck(synthesized.bootstrap, account, region));
  checks.push(await stackCheck(synthesized.stackName, region));
  checks.push(await concurrencyCheck(region));

  const prefix = o.parameterPrefix ?? '/ariadne';
  const parameters = plannedParameters(plannedValues(synthesized, account, region));
  const models = (parameters.get(`${prefix}/deployment/bedrock_models`) ?? '').split(',').filter(Boolean);
  const bedrockRegion = parameters.get(`${prefix}/config/bedrock/region`) ?? region;
  if (o.bedrock) checks.push(...(await bedrockChecks(models, bedrockRegion, prefix)));
  else
    checks.push({
      check: 'Bedrock models',
      ok: true,
      skipped: true,
      detail: `not checked (the template grants ${models.join(', ') || 'none'})`,
      fix: 'add --bedrock, as an administrator, for the call that activates each model on a new account',
    });
  return checks;
}

/** The environment's CDK bootstrap version (the parameter cdk bootstrap writes) against what the deploy needs. */
async function bootstrapCheck(
  bootstrap: { minVersion: number; parameter: string },
  account: string,
  region: string,
): Promise<Check> {
  const check = 'CDK bootstrap';
  const fix = `npx cdk bootstrap aws://${account}/${region}`;
  const { GetParameterCommand, SSMClient } = await import('@aws-sdk/client-ssm');
  const ssm = new SSMClient({ region, maxAttempts: 2 });
  try {
    const out = await ssm.send(new GetParameterCommand({ Name: bootstrap.parameter }));
    const version = Number(out.Parameter?.Value);
    return version >= bootstrap.minVersion
      ? { check, ok: true, detail: `version ${version} (the deploy needs ${bootstrap.minVersion} or later)` }
      : {
          check,
          ok: false,
          detail: `version ${out.Parameter?.Value}, the deploy needs ${bootstrap.minVersion} or later`,
          fix: `${fix} (again, with this CDK version)`,
        };
  } catch (err) {
    const missing = (err as Error).name === 'ParameterNotFound';
    return {
      check,
      ok: false,
      detail: missing ? `${account} in ${region} is not bootstrapped (no ${bootstrap.parameter})` : message(err),
      fix: missing ? fix : `allow ssm:GetParameter on ${bootstrap.parameter} to read the bootstrap version`,
    };
  } finally {
    ssm.destroy();
  }
}

/** Whether the stack exists and in which status: a deploy creates it, updates it, or cannot touch it. */
async function stackCheck(stackName: string, region: string): Promise<Check> {
  const check = 'stack';
  try {
    const outputs = await resolveStack({ stack: stackName, region });
    return { check, ok: true, detail: `${outputs.stackName} is deployed: cdk deploy updates it` };
  } catch (err) {
    if (err instanceof NotFoundError) return { check, ok: true, detail: `no ${stackName} yet: cdk deploy creates it` };
    // an output this version adds: the deploy is what brings it
    if (err instanceof EnvironmentError && err.what.startsWith('output '))
      return { check, ok: true, detail: `${stackName} is deployed by an older version: cdk deploy updates it` };
    // a status no deploy can proceed from, or no permission to look: the message says what to do
    return { check, ok: false, detail: (err as Error).message };
  }
}

/** The account's unreserved Lambda concurrency, and how wide a sweep can run in it. */
async function concurrencyCheck(region: string): Promise<Check> {
  const check = 'Lambda concurrency';
  const { LambdaClient } = await import('@aws-sdk/client-lambda');
  const client = new LambdaClient({ region, maxAttempts: 2 });
  try {
    const { unreservedConcurrentExecutions: free, concurrentExecutions: total } =
      await lambdaAccountConcurrency(client)();
    const width = sweepConcurrencyCap(free);
    const detail = `${free} of ${total} concurrent executions unreserved: a sweep runs ${width} at once`;
    if (free >= NARROW_ACCOUNT) return { check, ok: true, detail };
    return {
      check,
      ok: true,
      warning: true,
      detail,
      fix:
        'for wider sweeps, request more in Service Quotas (AWS Lambda, "Concurrent executions"); ' +
        'AWS also raises it with use',
    };
  } catch (err) {
    return {
      check,
      ok: true,
      skipped: true,
      detail: `not read: ${message(err)}`,
      fix: `allow lambda:GetAccountSettings (${commandPrefix()} policy researcher grants it) to see it here`,
    };
  } finally {
    client.destroy();
  }
}
