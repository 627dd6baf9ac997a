// A deployed stack's outputs, found with CloudFormation DescribeStacks as `aws cloudformation describe-stacks` finds
// them, so commands need a stack name (default Ariadne), not six ARNs pasted from the console. Every failure says
// what to fix: credentials, a Region, the stack's name or status, a redeploy, or the caller's IAM policy.
import type { Stack } from '@aws-sdk/client-cloudformation';
import { InvalidInputError } from '../../core/errors.ts';
import { EnvironmentError, NotFoundError } from './exit-codes.ts';
import { OUTPUT_KEYS, type OutputField, type StackOutputs } from '../../lib/stack-outputs.ts';
import { commandPrefix } from './invocation.ts';
import { fact } from '../../aws-facts/facts.ts';

/**
 * Statuses whose outputs describe resources that exist and work (aws-facts: cloudformation.stable-stack-statuses):
 * a finished create, update or import; an update rolled back to the previous working stack; the cleanup after a
 * successful update (old resources being removed, the new ones in place). Everything else is in progress, failed,
 * deleted, or ROLLBACK_COMPLETE (a first deploy that failed: only deleting it helps).
 */
const USABLE = new Set<string>([
  ...fact('cloudformation.stable-stack-statuses').value,
  'UPDATE_COMPLETE_CLEANUP_IN_PROGRESS',
]);

/** What to do about a stack in a status that is not usable. */
function statusFix(stack: string, status: string): string {
  if (status === 'ROLLBACK_COMPLETE')
    return (
      'its first deploy failed and was rolled back, and such a stack can only be deleted: ' +
      `aws cloudformation delete-stack --stack-name ${stack}, then npx cdk deploy again`
    );
  if (status.endsWith('_IN_PROGRESS'))
    return 'an operation is still running on it: wait until it ends (aws cloudformation describe-stacks) and try again';
  return (
    `see why in its events (aws cloudformation describe-stack-events --stack-name ${stack}), fix that and ` +
    'deploy again (npx cdk deploy)'
  );
}

export interface ResolveStackOptions {
  /** The stack's name or id; default Ariadne (bin/app.ts). */
  stack?: string;
  /** Default: AWS_REGION, then the SDK's default chain (AWS_PROFILE's region, ~/.aws/config). */
  region?: string;
  /** CloudFormation endpoint; without it the SDK honours AWS_ENDPOINT_URL_CLOUDFORMATION by itself. */
  endpoint?: string;
}

type AwsError = Error & { $metadata?: unknown };

/** The deployed stack's outputs; typed errors (NotFoundError, EnvironmentError, InvalidInputError) otherwise. */
export async function resolveStack({
  stack = 'Ariadne',
  region,
  endpoint,
}: ResolveStackOptions): Promise<StackOutputs> {
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  const client = new CloudFormationClient({
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
    maxAttempts: 2,
  });
  let found: Stack | undefined;
  // The Region the SDK chose (--region, else its default chain), for messages; none when it found none.
  const chosen = () => client.config.region().catch(() => undefined);
  try {
    found = (await client.send(new DescribeStacksCommand({ StackName: stack }))).Stacks?.[0];
  } catch (err) {
    throw describeError(err as AwsError, stack, await chosen());
  } finally {
    client.destroy();
  }
  if (!found) throw new NotFoundError('--stack', stack, stackMissing(stack, await chosen()));
  const status = found.StackStatus ?? 'unknown';
  if (!USABLE.has(status))
    throw new EnvironmentError(
      'stack status',
      `stack ${stack} is ${status}, not a stack whose outputs can be used: ${statusFix(stack, status)}`,
    );
  // StackId: arn:PARTITION:cloudformation:REGION:ACCOUNT:stack/NAME/ID (API_Stack, CloudFormation API Reference).
  const [, , , stackRegion = '', account = ''] = (found.StackId ?? '').split(':');
  const outputs = new Map((found.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const values = {} as Record<OutputField, string>;
  for (const [field, key] of Object.entries(OUTPUT_KEYS) as Array<[OutputField, string]>) {
    const value = outputs.get(key);
    if (!value)
      throw new EnvironmentError(
        `output ${key}`,
        `stack ${stack} has no output ${key}: it was deployed by an older version of Ariadne; ` +
          'deploy this version (npx cdk deploy) and try again',
      );
    values[field] = value;
  }
  return { stackName: found.StackName ?? stack, region: stackRegion, account, ...values };
}

function stackMissing(stack: string, region: string | undefined): string {
  return (
    `no stack ${stack} in ${region ?? 'the Region of AWS_REGION or your AWS profile'}: ` +
    'deploy it (npx cdk deploy), or name the one you deployed with --stack and its Region with --region'
  );
}

/** DescribeStacks' failure as the CLI's typed error; an error this does not know is returned as it is. */
function describeError(err: AwsError, stack: string, region: string | undefined): Error {
  const name = err.name;
  // API_DescribeStacks: "If the stack doesn't exist, a ValidationError is returned" ("Stack with id X does not exist").
  if (name === 'ValidationError' && /does not exist/.test(err.message))
    return new NotFoundError('--stack', stack, stackMissing(stack, region));
  if (name === 'ValidationError')
    return new InvalidInputError('--stack', stack, `--stack "${stack}": CloudFormation refused it: ${err.message}`);
  if (name === 'CredentialsProviderError')
    return new EnvironmentError(
      'AWS credentials',
      'no AWS credentials were found (environment, ~/.aws, SSO or an instance role) to read stack ' +
        `${stack}'s outputs: configure them (aws configure, aws sso login, or AWS_PROFILE) and try again`,
    );
  // The SDK's message when neither --region nor the default chain gives a Region.
  if (/region is missing/i.test(err.message))
    return new EnvironmentError(
      '--region',
      `no AWS Region to find stack ${stack} in: pass --region (the Region you deployed to) or set AWS_REGION`,
    );
  // Query protocol services answer AccessDenied ("Common Errors", CloudFormation API Reference).
  if (name === 'AccessDenied' || name === 'AccessDeniedException')
    return new EnvironmentError(
      'cloudformation:DescribeStacks',
      `AWS refused cloudformation:DescribeStacks on stack ${stack} (${err.message}): your IAM identity needs it; ` +
        'an administrator can grant what researchers need with the policy ' +
        `\`${commandPrefix()} policy researcher\` prints`,
    );
  return err;
}
