// Scenarios of the model providers: an Ollama server a Lambda can reach, and a
// Bedrock that stops answering in time, once and then for good.
import { experiment, toGoal, type Scenario } from './run-experiment.ts';
import { FUNCTION_TIMEOUT_ERRORS, PROVIDER_RETRY, STATES } from '../lambdas/machine/states.ts';

/** The Retry waits of the provider Tasks, shortened (PROVIDER_RETRY waits 30 s, then 60 s, on AWS). */
const SHORT_RETRIES = { [STATES.InvokeBedrockAgent]: 50, [STATES.InvokeOllamaAgent]: 50 };
/** The outage's wait, shortened (15 s on AWS for the first). */
const SHORT_WAITS = { [STATES.OutageWait]: 50 };

interface LlmCallRow {
  retries: Array<{ status: string | number }>;
}

export const PROVIDER_SCENARIOS: Record<string, Scenario> = {
  async ollama(world) {
    // StartExperiment refuses a loopback host inside Lambda (the function itself): the server listens on an
    // address of this machine that is not loopback, as a researcher's Ollama host would be.
    if (!world.ollamaUrl)
      throw new Error('this machine has no network address but loopback, which a Lambda cannot use for Ollama');
    const model = world.sims.ollama.models[0];
    const before = world.sims.ollama.requests.length;
    const row = await experiment(world, 'ollama', {
      agent: 'ollama',
      model,
      maze: { generator: 'medium', size: 9, seed: 3 },
      config: { max_moves: 200, ollama: { host: world.ollamaUrl } },
    });
    toGoal(row);
    const chats = world.sims.ollama.requests.slice(before).filter((r) => r.path === '/api/chat').length;
    if (chats === 0) throw new Error('the Ollama server saw no /api/chat request');
    return `Ollama agent (${model} at ${world.ollamaUrl}) to the goal in ${row.actions_taken} actions, ${chats} chats`;
  },
  async 'provider-timeout'(world) {
    const bedrock = world.sims.bedrock;
    const request = (timeoutMs: number) => ({
      agent: 'bedrock',
      model: bedrock.models[0],
      maze: { generator: 'medium', size: 9, seed: 3 },
      // half a minute of outage waits: one wait (15 s), then the next (30 s) would pass it
      config: {
        max_moves: 200,
        retry: { timeout_ms: timeoutMs, max_attempts: 2, base_delay_ms: 10 },
        provider_outage_wait_minutes: 0.5,
      },
    });
    try {
      // Once: the first model call outlives its timeout, the retry answers, the experiment goes on.
      bedrock.faults = [{ kind: 'slow', ms: 2_000 }];
      const once = await experiment(world, 'slow-once', request(500));
      toGoal(once);
      const { rows } = await world.db.pool.query<LlmCallRow>(
        'SELECT retries FROM llm_calls WHERE experiment_id = $1 ORDER BY turn_number, call_index',
        [once.id],
      );
      if (!rows.some((r) => r.retries.some((x) => x.status === 'timeout')))
        throw new Error(`experiment ${once.id}: no model call recorded a retry after a timeout`);
      // For good: every attempt times out; the turn fails with ProviderTransientError, the state machine retries
      // the Task (PROVIDER_RETRY); the outage is waited out once (OutageWait), the turn tried again, and then
      // FinalizeFailure marks the experiment failed with the reason and what was waited.
      bedrock.faults = [];
      bedrock.always = { kind: 'slow', ms: 2_000 };
      const sent = bedrock.requests.length;
      const never = await experiment(world, 'slow-always', request(300), SHORT_RETRIES, undefined, SHORT_WAITS);
      if (
        never.status !== 'failed' ||
        !never.failure_reason?.startsWith('ProviderTransientError: the provider stayed unavailable, after 1 wait(s)')
      )
        throw new Error(
          `experiment ${never.id} ended ${never.status} (${never.failure_reason ?? 'no reason'}), ` +
            'expected failed with ProviderTransientError after one outage wait',
        );
      if (FUNCTION_TIMEOUT_ERRORS.includes(never.error?.name ?? ''))
        throw new Error('the Lambda timed out before the provider did');
      // each Task attempt tries the model max_attempts (2) times; the definition's Retry adds its attempts; the
      // turn is tried twice (before and after its wait)
      const expected = 2 * (1 + PROVIDER_RETRY.maxAttempts) * 2;
      if (bedrock.requests.length - sent !== expected)
        throw new Error(
          `${bedrock.requests.length - sent} model calls, expected ${expected} (Task Retry not applied?)`,
        );
      return (
        `a timed-out model call retried and the experiment reached the goal in ${once.actions_taken} actions; ` +
        `a model that never answers in time: one outage wait, then failed with ProviderTransientError ` +
        `(${expected} calls: the turn tried twice, its Task retried ${PROVIDER_RETRY.maxAttempts} times each, waits ` +
        'shortened to 50 ms)'
      );
    } finally {
      bedrock.faults = [];
      bedrock.always = undefined;
    }
  },
};
