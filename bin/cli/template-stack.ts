// A stack's outputs as they will be once it is deployed, read from its synthesized template (`npx cdk synth`
// writes cdk.out), so an administrator can review what a deployment grants before there is one. What
// CloudFormation names only at deploy time (the bucket, the cluster, its secret) comes back as "*"
// (lib/template-values.ts's wildcard mode); `generated` lists those fields.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidInputError } from '../../core/errors.ts';
import { isGeneratedName, TemplateValues, type CfnTemplate } from '../../lib/template-values.ts';
import { OUTPUT_KEYS, type StackOutputs } from '../../lib/stack-outputs.ts';
import { describeFileError } from './file-errors.ts';
import { NotFoundError } from './exit-codes.ts';

export interface TemplateStackOptions {
  /** A cloud assembly directory (cdk.out) or a template file (*.template.json). */
  template: string;
  /** The stack's name in the assembly; default Ariadne (bin/app.ts). */
  stack?: string;
  /** Default: the Region the assembly was synthesized for, when it names one. */
  region?: string;
  /** Default: the account the assembly was synthesized for, when it names one (cdk synth with credentials). */
  account?: string;
}

export interface TemplateStackOutputs extends StackOutputs {
  /** The fields whose values hold a name CloudFormation generates at deploy time ("*"). */
  generated: Array<keyof typeof OUTPUT_KEYS>;
}

/** The assembly's manifest entry of a stack: "aws://ACCOUNT/REGION", unknown parts as unknown-account/-region. */
interface StackArtifact {
  type: string;
  environment?: string;
  properties?: {
    templateFile?: string;
    stackName?: string;
    requiresBootstrapStackVersion?: number;
    bootstrapStackVersionSsmParameter?: string;
  };
}

/** A synthesized stack: its template, its name, and what the assembly says of where and on what it deploys. */
export interface SynthesizedStack {
  template: CfnTemplate;
  stackName: string;
  /** The account and Region the assembly was synthesized for, when it names them. */
  account?: string;
  region?: string;
  /** The CDK bootstrap version the deploy needs, and the parameter that holds the environment's (cdk.out only). */
  bootstrap?: { minVersion: number; parameter: string };
}

function readJson(path: string, field: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new NotFoundError(field, path, `cannot read ${path}: ${describeFileError(err)}; run npx cdk synth first`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError(
      field,
      path,
      `${path} is not JSON (${(err as Error).message}); run npx cdk synth again`,
    );
  }
}

const ACCOUNT = /^\d{12}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/** The template and what the assembly names for the stack ("aws://ACCOUNT/REGION", unknown parts left out). */
export function readSynthesizedStack(o: Omit<TemplateStackOptions, 'region' | 'account'>): SynthesizedStack {
  const stack = o.stack ?? 'Ariadne';
  let isDirectory: boolean;
  try {
    isDirectory = statSync(o.template).isDirectory();
  } catch (err) {
    throw new NotFoundError('--template', o.template, `${o.template}: ${describeFileError(err)}; run npx cdk synth`);
  }
  if (!isDirectory) return { template: readJson(o.template, '--template') as CfnTemplate, stackName: stack };
  const manifest = readJson(join(o.template, 'manifest.json'), '--template') as {
    artifacts?: Record<string, StackArtifact>;
  };
  const stacks = Object.entries(manifest.artifacts ?? {}).filter(([, a]) => a.type === 'aws:cloudformation:stack');
  const found = stacks.find(([id, a]) => id === stack || a.properties?.stackName === stack);
  if (!found)
    throw new NotFoundError(
      '--stack',
      stack,
      `no stack ${stack} in ${o.template} (it has ${stacks.map(([id]) => id).join(', ') || 'none'}); ` +
        'pass --stack with one of those',
    );
  const [id, artifact] = found;
  const p = artifact.properties ?? {};
  const [, account, region] = /^aws:\/\/([^/]+)\/(.+)$/.exec(artifact.environment ?? '') ?? [];
  return {
    template: readJson(join(o.template, p.templateFile ?? `${id}.template.json`), '--template') as CfnTemplate,
    stackName: p.stackName ?? id,
    account: ACCOUNT.test(account ?? '') ? account : undefined,
    region: REGION.test(region ?? '') ? region : undefined,
    bootstrap:
      p.requiresBootstrapStackVersion !== undefined && p.bootstrapStackVersionSsmParameter
        ? { minVersion: p.requiresBootstrapStackVersion, parameter: p.bootstrapStackVersionSsmParameter }
        : undefined,
  };
}

/** The template's values as a deploy to `account` and `region` will give them, generated names "*". */
export function plannedValues(synthesized: SynthesizedStack, account: string, region: string): TemplateValues {
  // China's and GovCloud's Regions are their own partitions ("Amazon Resource Names", IAM User Guide).
  const china = region.startsWith('cn-');
  const partition = china ? 'aws-cn' : region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';
  const urlSuffix = china ? 'amazonaws.com.cn' : 'amazonaws.com';
  const env = { account, region, partition, stackName: synthesized.stackName, urlSuffix };
  return new TemplateValues(synthesized.template, env, 'wildcard');
}

/** The Parameter Store parameters the template creates, by name: what the deployment's functions will read. */
export function plannedParameters(values: TemplateValues): Map<string, string> {
  const out = new Map<string, string>();
  for (const [id, r] of Object.entries(values.template.Resources))
    if (r.Type === 'AWS::SSM::Parameter')
      out.set(
        values.resolveString(r.Properties?.Name, `$.Resources.${id}.Properties.Name`),
        values.resolveString(r.Properties?.Value, `$.Resources.${id}.Properties.Value`),
      );
  return out;
}

/** The outputs the template's stack will have in `account` and `region`, generated names as "*". */
export function templateStackOutputs(
  o: TemplateStackOptions,
  /** The stack as readSynthesizedStack(o) read it, when the caller already has it. */
  synthesized: SynthesizedStack = readSynthesizedStack(o),
): TemplateStackOutputs {
  const { template, stackName } = synthesized;
  const account = o.account ?? synthesized.account;
  const region = o.region ?? synthesized.region;
  if (!account || !ACCOUNT.test(account))
    throw new InvalidInputError(
      '--account',
      account,
      `${account === undefined ? 'the template names no account' : `--account ${account} is not 12 digits`}: ` +
        'pass --account with the account you will deploy to (aws sts get-caller-identity --query Account)',
    );
  if (!region || !REGION.test(region))
    throw new InvalidInputError(
      '--region',
      region,
      `${region === undefined ? 'the template names no Region' : `--region ${region} is not a Region`}: ` +
        'pass --region with the Region you will deploy to (eu-west-1, say)',
    );
  const values = plannedValues(synthesized, account, region);
  const fields = Object.entries(OUTPUT_KEYS).map(([field, key]) => {
    const value = template.Outputs?.[key]?.Value;
    if (value === undefined)
      throw new InvalidInputError(
        '--template',
        o.template,
        `the template has no output ${key}: synthesize this version`,
      );
    return [field, values.resolveString(value, `$.Outputs.${key}`)] as const;
  });
  const generated = fields.filter(([, v]) => isGeneratedName(v)).map(([field]) => field as keyof typeof OUTPUT_KEYS);
  return {
    stackName,
    region,
    account,
    ...(Object.fromEntries(fields) as Pick<StackOutputs, keyof typeof OUTPUT_KEYS>),
    generated,
  };
}
