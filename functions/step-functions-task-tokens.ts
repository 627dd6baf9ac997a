// SendTaskSuccess through the Step Functions API: the notifier the Lambda
// handlers inject (the engine never imports the AWS SDK).
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { TaskTokenNotifier } from '../core/engine/task-tokens.ts';

/** The SDK retries throttling and 5xx itself: more tries than its default 3, as a lost token stalls a sweep slot. */
const MAX_ATTEMPTS = 6;

export function stepFunctionsTaskTokens(given?: SFNClient): TaskTokenNotifier {
  let client = given;
  return {
    async succeed(taskToken, output) {
      const { SendTaskSuccessCommand, SFNClient } = await import('@aws-sdk/client-sfn');
      client ??= new SFNClient({ maxAttempts: MAX_ATTEMPTS });
      await client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }));
    },
  };
}
