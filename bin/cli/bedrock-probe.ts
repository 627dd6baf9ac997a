// The one-token Converse call that tells whether a Bedrock model answers this caller (the preflight of `run` and
// `sweep`, and `doctor --aws --bedrock`, which is also a new account's activation: bin/cli/doctor-bedrock.ts).
import type { BedrockRuntimeClient, ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';

export async function probeBedrockModel(
  client: BedrockRuntimeClient,
  model: string,
  abortSignal?: AbortSignal,
): Promise<ConverseCommandOutput> {
  const { ConverseCommand } = await import('@aws-sdk/client-bedrock-runtime');
  return client.send(
    new ConverseCommand({
      modelId: model,
      messages: [{ role: 'user', content: [{ text: 'Reply with one word: ready' }] }],
      inferenceConfig: { maxTokens: 1 },
    }),
    { abortSignal },
  );
}

/** Over a quota right now: the model is there and answers this caller, so not a failure of the probe. */
export const throttled = (err: { name?: string }): boolean =>
  err.name === 'ThrottlingException' || err.name === 'ServiceQuotaExceededException';
