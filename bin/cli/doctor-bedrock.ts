// Bedrock model access from the researcher's side: a one-token Converse call per model the deployment grants (the
// stack writes them to <prefix>/deployment/bedrock_models), in the Region the parameters name. What each failure
// means is Bedrock's documented error: AccessDeniedException (no IAM grant, or model access not enabled),
// ResourceNotFoundException (not offered in the Region), ValidationException (e.g. a model only callable through an
// inference profile), ThrottlingException (reachable, but over a quota right now).
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import type { Check } from './doctor.ts';
import { commandPrefix } from './invocation.ts';

function fixFor(err: Error, model: string, region: string, prefix: string): string {
  switch (err.name) {
    case 'AccessDeniedException':
      return (
        `enable access to ${model} in the Bedrock console (Model access) in ${region}, and allow bedrock:InvokeModel ` +
        `to your identity (${commandPrefix()} policy researcher --bedrock)`
      );
    case 'ResourceNotFoundException':
      return `${model} is not offered in ${region}: set ${prefix}/config/bedrock/region, or deploy another model`;
    case 'ValidationException':
      return (
        'if the message says on-demand throughput is not supported, call it through an inference profile: ' +
        `deploy with -c bedrockModelIds=us.${model} (or eu., apac., global.)`
      );
    default:
      return 'try again later; if it persists, see the AWS Health Dashboard for Bedrock in that Region';
  }
}

export async function bedrockChecks(models: string[], region: string, prefix: string): Promise<Check[]> {
  if (models.length === 0)
    return [{ check: 'Bedrock models', ok: true, skipped: true, detail: 'the deployment names no Bedrock model' }];
  const client = new BedrockRuntimeClient({ region, maxAttempts: 2 });
  try {
    const checks: Check[] = [];
    for (const model of models) {
      const check = `Bedrock ${model}`;
      try {
        const reply = await client.send(
          new ConverseCommand({
            modelId: model,
            messages: [{ role: 'user', content: [{ text: 'Reply with one word: ready' }] }],
            inferenceConfig: { maxTokens: 1 },
          }),
        );
        checks.push({ check, ok: true, detail: `answers in ${region} (${reply.usage?.totalTokens ?? '?'} tokens)` });
      } catch (err) {
        const e = err as Error;
        const throttled = e.name === 'ThrottlingException' || e.name === 'ServiceQuotaExceededException';
        checks.push({
          check,
          ok: throttled,
          detail: `${e.name}: ${e.message}`,
          fix: throttled ? undefined : fixFor(e, model, region, prefix),
        });
      }
    }
    return checks;
  } finally {
    client.destroy();
  }
}
