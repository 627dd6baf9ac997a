// IAM policies for people using a stack: `ariadne policy researcher` prints the least-privilege policy a researcher
// needs (researcher-policy.ts), for a deployed stack's own ARNs, found with DescribeStacks (aws-stack.ts), or, with
// --template, for the stack a synthesized template will deploy, before it exists (template-stack.ts).
import { Argument, type Command } from 'commander';
import { withExample } from '../help.ts';
import { endpointOption, jsonOption } from '../options.ts';
import { InvalidInputError } from '../../../core/errors.ts';
import { resolveStack } from '../aws-stack.ts';
import { researcherPolicy, policySize } from '../../../lib/researcher-policy.ts';
import { fact } from '../../../aws-facts/facts.ts';
import { readSynthesizedStack, templateStackOutputs } from '../template-stack.ts';

interface ResearcherOptions {
  stack: string;
  region?: string;
  account?: string;
  template?: string;
  endpoint?: string;
  bedrock?: boolean;
  json?: boolean;
}

/**
 * The template's outputs; its account, when neither the template (synthesized without credentials) nor --account
 * names one, is the caller's own (STS GetCallerIdentity, which needs no permission): who reviews it deploys it.
 */
async function plannedOutputs(o: ResearcherOptions, template: string) {
  const plan = { template, stack: o.stack, region: o.region, account: o.account };
  const synthesized = readSynthesizedStack(plan);
  if (o.account === undefined && synthesized.account === undefined) {
    const region = o.region ?? synthesized.region;
    const { GetCallerIdentityCommand, STSClient } = await import('@aws-sdk/client-sts');
    const sts = new STSClient({ ...(region ? { region } : {}), maxAttempts: 2 });
    try {
      plan.account = (await sts.send(new GetCallerIdentityCommand({}))).Account;
    } catch (err) {
      throw new InvalidInputError(
        '--account',
        undefined,
        `the template names no account and your credentials could not say it (${(err as Error).name}): ` +
          'pass --account with the account you will deploy to',
      );
    } finally {
      sts.destroy();
    }
  }
  return templateStackOutputs(plan, synthesized);
}

async function researcher(o: ResearcherOptions): Promise<void> {
  // the CloudFormation client and the policy's code, when the command runs
  const fromTemplate = o.template ? await plannedOutputs(o, o.template) : undefined;
  const outputs = fromTemplate ?? (await resolveStack({ stack: o.stack, region: o.region, endpoint: o.endpoint }));
  const policy = researcherPolicy(outputs, { bedrock: o.bedrock });
  const size = policySize(policy);
  if (size > fact('iam.managed-policy-chars').value)
    throw new InvalidInputError(
      '--bedrock',
      o.bedrock ?? false,
      `the researcher policy is ${size} characters, over IAM's ${fact('iam.managed-policy-chars').value} for a ` +
        'managed policy: report this as a bug of Ariadne',
    );
  // The document alone on stdout either way, so `> policy.json` gives a file create-policy takes.
  process.stdout.write(`${JSON.stringify(policy, null, 2)}\n`);
  if (o.json) return;
  if (fromTemplate)
    process.stderr.write(
      `\nbefore the deploy, CloudFormation has not named ${fromTemplate.generated.join(', ')}: those statements ` +
        'name "*", held to this stack by a tag condition (the database and its secret) or to this account (the ' +
        `bucket's runs/); after the deploy, \`policy researcher --stack ${outputs.stackName}\` names each ARN\n`,
    );
  process.stderr.write(
    `\nthe policy for stack ${outputs.stackName} (${outputs.region}, account ${outputs.account}), ${size} ` +
      `characters as IAM counts them (a managed policy holds ${fact('iam.managed-policy-chars').value}, a user's ` +
      `inline policies ${fact('iam.user-inline-policy-chars').value} in all): make it a managed policy and attach ` +
      'it to each researcher (or their group, with attach-group-policy):\n' +
      '  aws iam create-policy --policy-name ariadne-researcher --policy-document file://FILE\n' +
      '  aws iam attach-user-policy --user-name NAME --policy-arn arn:aws:iam::ACCOUNT:policy/ariadne-researcher\n',
  );
}

export function registerPolicyCommands(program: Command): void {
  // One command with the role as its argument: more roles (an operator's) are more choices, not more commands.
  const policyCommand = program
    .command('policy')
    .description(
      "print the least-privilege IAM policy (JSON) a role needs on a deployed stack, for that stack's resources " +
        '(found with DescribeStacks); researcher: launch experiments and sweeps and read their results',
    )
    .addArgument(new Argument('<role>', 'who the policy is for').choices(['researcher']))
    .option('--stack <name>', 'the deployed stack', 'Ariadne')
    .option('--region <region>', 'the Region it is deployed in (default: AWS_REGION, then your AWS profile)')
    .option(
      '--template <path>',
      'before a deploy: the synthesized stack (cdk.out, or its .template.json) instead of the deployed one',
    )
    .option(
      '--account <id>',
      "with --template: the account you will deploy to (default: the template's, else your credentials')",
    )
    .addOption(endpointOption('CloudFormation endpoint override (default: $AWS_ENDPOINT_URL_CLOUDFORMATION)'))
    .option('--bedrock', "also allow bedrock:InvokeModel on every model, for checks of a model's access")
    .addOption(jsonOption('the policy document only (the same JSON), no hint on stderr'))
    .action((_role: string, o: ResearcherOptions) => researcher(o));
  withExample(policyCommand, 'ariadne policy researcher --template cdk.out --account 123456789012 --region eu-west-1');
}
