// What a Bedrock refusal means for the account, and the fix: the errors a new account, a Legacy or end-of-life model,
// or a wrong model id meet, in AWS's wording where AWS gives one and as users report it elsewhere (the sources are on
// diagnoseBedrockAccess). Shared by the Bedrock agent (the experiment ends with the fix as its reason, never retried
// as a provider fault), `ariadne doctor --aws --bedrock` and the CLI's preflight. Pure: no SDK here.

type BedrockAccessProblem =
  'marketplace' | 'use-case' | 'legacy' | 'end-of-life' | 'invalid-model' | 'needs-profile' | 'not-granted';

export interface BedrockAccessDiagnosis {
  problem: BedrockAccessProblem;
  /** One sentence a user can act on. */
  fix: string;
}

/** How the fix names the commands (the CLI's prefix; the Lambda handler says `ariadne`). */
export interface FixContext {
  model: string;
  region: string;
  command?: string;
}

/**
 * The problem a Bedrock error names, with its fix; null for errors that are not about access (throttling, 5xx).
 * - Model access (aws-facts: bedrock.first-call-subscribes): a third-party model's first call starts its Marketplace
 *   subscription, which fails, and calls after it with AccessDeniedException, without its prerequisites: the caller's
 *   aws-marketplace:Subscribe, Unsubscribe and ViewSubscriptions, and Anthropic's first-time use case form. Reported
 *   wording: AccessDeniedException "... not authorized to perform the required AWS Marketplace actions
 *   (aws-marketplace:ViewSubscriptions, aws-marketplace:Subscribe) ..."; ResourceNotFoundException "Model use case
 *   details have not been submitted for this account. ... try again in 15 minutes."
 * - Model lifecycle (aws-facts: bedrock.model-lifecycle-states): new customers can't use Legacy models and existing
 *   ones may lose them after days without a call (aws-facts: bedrock.legacy-inactivity-days); after EOL requests fail.
 *   Reported wording (github.com/awslabs/llmeter/issues/35,
 *   aws-solutions-library-samples/accelerated-intelligent-document-processing-on-aws/issues/708):
 *   ResourceNotFoundException "Access denied. This Model is marked by provider as Legacy and you have not been
 *   actively using the model in the last 15 days. ..." (30 days in later reports); "This model version has reached
 *   the end of its life."
 * - ValidationException "The provided model identifier is invalid."; "Invocation of model ID ... with on-demand
 *   throughput isn't supported. Retry your request with the ID or ARN of an inference profile that contains this
 *   model." (inference profiles: the page of aws-facts: bedrock.profile-destinations-us).
 */
export function diagnoseBedrockAccess(
  err: { name?: string; message?: string },
  ctx: FixContext,
): BedrockAccessDiagnosis | null {
  const name = err.name ?? '';
  const message = err.message ?? '';
  const cmd = ctx.command ?? 'ariadne';
  if (name === 'AccessDeniedException' && /aws-marketplace:/i.test(message))
    return {
      problem: 'marketplace',
      fix:
        `${ctx.model} has no AWS Marketplace subscription in this account yet, and the caller may not create one: ` +
        `run \`${cmd} doctor --aws --bedrock\` once as an identity allowed aws-marketplace:Subscribe, ` +
        'aws-marketplace:ViewSubscriptions and aws-marketplace:Unsubscribe (an administrator), with a payment method ' +
        'on the account; the subscription then serves every role of the account (allow up to 15 minutes)',
    };
  if (/use case details/i.test(message))
    return {
      problem: 'use-case',
      fix:
        'Anthropic requires first-time customers to submit use case details once per account: open the Bedrock ' +
        `console in ${ctx.region}, Model catalog, choose the Anthropic model and submit the form (or submit it ` +
        "once from the organization's management account), then wait up to 15 minutes",
    };
  if (/marked by provider as Legacy/i.test(message))
    return {
      problem: 'legacy',
      fix:
        `${ctx.model} is a Legacy model this account has not used recently, and Bedrock no longer serves it here: ` +
        `choose an Active model (\`${cmd} doctor --aws --bedrock\` lists the deployment's models with their status)`,
    };
  if (/end of its life/i.test(message))
    return {
      problem: 'end-of-life',
      fix: `${ctx.model} has reached its end of life on Bedrock: choose an Active model and deploy it`,
    };
  if (name === 'ValidationException' && /on-demand throughput/i.test(message))
    return {
      problem: 'needs-profile',
      fix:
        `${ctx.model} is served only through an inference profile: use global.${ctx.model} or us.${ctx.model} ` +
        "(or another geography's prefix: eu., apac., jp., au.; global. may route to any commercial Region)",
    };
  if (name === 'ValidationException' && /model identifier is invalid/i.test(message))
    return {
      problem: 'invalid-model',
      fix: `Bedrock knows no model "${ctx.model}" in ${ctx.region}: check the id against the model cards`,
    };
  if (name === 'AccessDeniedException')
    return {
      problem: 'not-granted',
      fix:
        `the caller may not invoke ${ctx.model}: for the deployed stack, deploy with -c bedrockModelIds=...,` +
        `${ctx.model}; for your own identity, allow bedrock:InvokeModel (${cmd} policy researcher --bedrock)`,
    };
  return null;
}
