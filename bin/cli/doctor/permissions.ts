// The researcher's own permissions, checked without doing anything: IAM's policy simulator
// (SimulatePrincipalPolicy) evaluates the caller's identity policies for every action `ariadne policy researcher`
// grants, on a resource of each kind the commands use. Only the actions are simulated, so a launch is checked
// without starting an execution. The caller is found with STS GetCallerIdentity, which needs no permission.
import type { StackOutputs } from '../../../lib/stack-outputs.ts';
import type { Check } from './check.ts';
import { commandPrefix } from '../invocation.ts';
import { researcherPolicy } from '../../../lib/researcher-policy.ts';

/**
 * The IAM identity whose policies a caller ARN carries: a user as is; an assumed role's session
 * (arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION) as its role, arn:aws:iam::ACCOUNT:role/ROLE. The session ARN
 * does not carry the role's path, so a role with a path (IAM Identity Center's aws-reserved/...) is not found.
 */
export function policySourceOf(callerArn: string): string | null {
  const role = /^arn:([a-z-]+):sts::(\d{12}):assumed-role\/([^/]+)\/.+$/.exec(callerArn);
  if (role) return `arn:${role[1]}:iam::${role[2]}:role/${role[3]}`;
  return /^arn:[a-z-]+:iam::\d{12}:user\//.test(callerArn) ? callerArn : null;
}

/**
 * A resource of each statement's kind: a wildcard ARN made concrete with a name no deployment uses. "*" stays: it is
 * the resource of an action that has no resource type (lambda:GetAccountSettings), which matches nothing else.
 */
const concrete = (arn: string) => (arn === '*' ? arn : arn.replace(/\*/g, 'doctor-probe'));

export async function permissionsCheck(outputs: StackOutputs): Promise<Check> {
  const check = 'your permissions';
  const { GetCallerIdentityCommand, STSClient } = await import('@aws-sdk/client-sts');
  const { IAMClient, SimulatePrincipalPolicyCommand } = await import('@aws-sdk/client-iam');
  const sts = new STSClient({ region: outputs.region, maxAttempts: 2 });
  const iam = new IAMClient({ region: outputs.region, maxAttempts: 2 });
  try {
    const { Arn: caller } = await sts.send(new GetCallerIdentityCommand({}));
    const source = caller && policySourceOf(caller);
    if (!source)
      return {
        check,
        ok: true,
        skipped: true,
        detail: `not simulated: ${caller} is neither an IAM user nor a role session`,
      };
    const denied: string[] = [];
    let evaluated = 0;
    // Bedrock's statement (only with --bedrock) is left to the Bedrock check, which calls the models; the
    // simulator's own grant (a policy variable, no concrete ARN) has just been used.
    for (const st of researcherPolicy(outputs).Statement.filter(
      (x) => !x.Action.includes('iam:SimulatePrincipalPolicy'),
    )) {
      const reply = await iam.send(
        new SimulatePrincipalPolicyCommand({
          PolicySourceArn: source,
          ActionNames: st.Action,
          ResourceArns: st.Resource.map(concrete),
        }),
      );
      for (const r of reply.EvaluationResults ?? []) {
        evaluated++;
        if (r.EvalDecision !== 'allowed')
          denied.push(`${r.EvalActionName} on ${r.EvalResourceName} (${r.EvalDecision})`);
      }
    }
    if (denied.length)
      return {
        check,
        ok: false,
        detail: `${source} may not call ${denied.length} of ${evaluated}: ${denied.join('; ')}`,
        fix: `attach the policy ${commandPrefix()} policy researcher prints to ${source}`,
      };
    return {
      check,
      ok: true,
      detail:
        `${source} may call all ${evaluated} action-resource pairs the researcher policy grants ` +
        '(IAM policy simulator)',
    };
  } catch (err) {
    const e = err as Error;
    // Reading one's own policies is itself a permission; without it the check is skipped, not failed: the
    // checks above already called what they need.
    if (e.name === 'AccessDenied' || e.name === 'NoSuchEntity' || e.name === 'NoSuchEntityException')
      return {
        check,
        ok: true,
        skipped: true,
        detail: `not simulated (${e.name}: ${e.message})`,
        fix:
          e.name === 'AccessDenied'
            ? 'allow iam:SimulatePrincipalPolicy on your own identity ' +
              `(${commandPrefix()} policy researcher does, for IAM users)`
            : 'for a role with a path (such as an IAM Identity Center role), run ' +
              'aws iam simulate-principal-policy with its full ARN',
      };
    return { check, ok: false, detail: `${e.name}: ${e.message}`, fix: 'check your credentials and network' };
  } finally {
    sts.destroy();
    iam.destroy();
  }
}
