// IAM policies for people using a deployed stack: `ariadne policy researcher` prints the least-privilege policy a
// researcher needs (researcher-policy.ts), for the stack's own ARNs, found with DescribeStacks (aws-stack.ts).
import { Argument, type Command } from 'commander';
import { resolveStack } from '../aws-stack.ts';
import { withExample } from '../help.ts';
import { endpointOption, jsonOption } from '../options.ts';
import { researcherPolicy } from '../researcher-policy.ts';

interface ResearcherOptions {
  stack: string;
  region?: string;
  endpoint?: string;
  bedrock?: boolean;
  json?: boolean;
}

async function researcher(o: ResearcherOptions): Promise<void> {
  const outputs = await resolveStack({ stack: o.stack, region: o.region, endpoint: o.endpoint });
  const policy = researcherPolicy(outputs, { bedrock: o.bedrock });
  // The document alone on stdout either way, so `> policy.json` gives a file put-user-policy takes.
  process.stdout.write(`${JSON.stringify(policy, null, 2)}\n`);
  if (!o.json)
    process.stderr.write(
      `\nthe policy for stack ${outputs.stackName} (${outputs.region}, account ${outputs.account}); attach it with\n` +
        '  aws iam put-user-policy --user-name NAME --policy-name ariadne-researcher --policy-document file://FILE\n' +
        'or as the inline policy of an IAM Identity Center permission set\n',
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
    .addOption(endpointOption('CloudFormation endpoint override (default: $AWS_ENDPOINT_URL_CLOUDFORMATION)'))
    .option('--bedrock', "also allow bedrock:InvokeModel on every model, for checks of a model's access")
    .addOption(jsonOption('the policy document only (the same JSON), no hint on stderr'))
    .action((_role: string, o: ResearcherOptions) => researcher(o));
  withExample(policyCommand, 'ariadne policy researcher --stack Ariadne --region eu-west-1');
}
