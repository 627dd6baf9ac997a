// The model-calling function's Bedrock grant: lib/bedrock-arns.ts's ARNs (free of CDK, shared with the researcher
// policy) as IAM statements of the stack.
import { Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { bedrockInvokeArns } from './bedrock-arns.ts';

export { PROFILE_REGIONS, profilePrefix } from './bedrock-arns.ts';

/**
 * Two statements: the model ids (in the stack's Region) and the profiles, unconditionally; the
 * foundation models the profiles route to, only when reached through one of those profiles
 * (bedrock:InferenceProfileArn), so a routed Region's model cannot be called directly.
 */
export function bedrockInvokeStatements(stack: Stack, ids: string[], regions?: string[]): PolicyStatement[] {
  if (ids.length === 0) return [];
  const { direct, profiles, routed } = bedrockInvokeArns(ids, {
    partition: stack.partition,
    region: stack.region,
    account: stack.account,
    regions,
  });
  const statements = [new PolicyStatement({ actions: ['bedrock:InvokeModel'], resources: [...direct, ...profiles] })];
  if (routed.length > 0)
    statements.push(
      new PolicyStatement({
        actions: ['bedrock:InvokeModel'],
        resources: routed,
        conditions: { ArnLike: { 'bedrock:InferenceProfileArn': profiles } },
      }),
    );
  return statements;
}
