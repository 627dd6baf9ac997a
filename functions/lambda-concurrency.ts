// The account's Lambda concurrency in this Region (aws-facts: lambda.default-concurrent-executions), read with
// GetAccountSettings (aws-facts: lambda.get-account-settings-request): ConcurrentExecutions and
// UnreservedConcurrentExecutions. IAM: lambda:GetAccountSettings, an action with no resource type, so granted on "*".
// RegisterSweep and `ariadne sweep --aws` read it to cap a sweep's width (core/sweeps/sweep-capacity.ts); the engine
// never imports the SDK.
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { AccountConcurrency } from '../core/sweeps/sweep-capacity.ts';

export type AccountConcurrencyReader = () => Promise<AccountConcurrency>;

/** GetAccountSettings answered without the concurrency figures. */
export class AccountSettingsError extends Error {
  override readonly name = 'AccountSettingsError';
}

/** The reader over a client (its Region: the caller's, or the one given to the client). */
export function lambdaAccountConcurrency(given?: LambdaClient): AccountConcurrencyReader {
  let client = given;
  return async () => {
    const { GetAccountSettingsCommand, LambdaClient } = await import('@aws-sdk/client-lambda');
    client ??= new LambdaClient({ maxAttempts: 4 });
    const { AccountLimit: limit } = await client.send(new GetAccountSettingsCommand({}));
    if (limit?.ConcurrentExecutions === undefined || limit.UnreservedConcurrentExecutions === undefined)
      throw new AccountSettingsError('GetAccountSettings returned no AccountLimit concurrency');
    return {
      concurrentExecutions: limit.ConcurrentExecutions,
      unreservedConcurrentExecutions: limit.UnreservedConcurrentExecutions,
    };
  };
}
