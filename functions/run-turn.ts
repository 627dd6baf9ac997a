// InvokeBaselineAgent / InvokeOllamaAgent / InvokeOpenAIAgent / InvokeBedrockAgent: one turn of
// the agent through the shared engine, with a deadline for its model calls
// taken from the time this invocation has left; one log line for the turn.
import { runTurn } from '../core/engine/turn.ts';
import { TurnDeadline } from '../core/engine/turn-deadline.ts';
import type { TurnSummary } from '../core/engine/store.ts';
import { parseOrThrow } from '../core/config/zod-errors.ts';
import { TURN_COMMIT_MARGIN_MS } from '../core/config/budgets.ts';
import { loopStateSchema } from '../core/machine/contracts.ts';
import { INVOKE_STATE, turnTimeoutSeconds } from '../core/machine/tasks.ts';
import { providerTrySchedule } from '../core/machine/states.ts';
import { ProviderTransientError } from '../core/providers/llm/retry.ts';
import type { AgentFactory } from '../core/engine/agent.ts';
import { secretOf } from '../core/config/secrets.ts';
import { lambdaEntry, type HandlerDeps, type InvocationContext } from './deps.ts';

export const runTurnHandler =
  (deps: HandlerDeps) =>
  async (event: unknown, context?: InvocationContext): Promise<TurnSummary> => {
    const state = parseOrThrow(loopStateSchema, event);
    // "Timeout is the maximum amount of time in seconds that a Lambda function can run" ("Configure Lambda function
    // timeout"; aws-facts: lambda.max-timeout-seconds): a turn stopped there loses
    // its work, so its model calls stop early enough for the commit to fit (TURN_COMMIT_MARGIN_MS). In-process there
    // is no context: the turn function's own timeout.
    const remainingMs = context?.getRemainingTimeInMillis() ?? turnTimeoutSeconds(state.llmProvider) * 1000;
    const deadline = TurnDeadline.after(remainingMs - TURN_COMMIT_MARGIN_MS);
    // Only the providers that send a key read one, their own (the stack grants each function its key's name only).
    const name = secretOf(state.llmProvider);
    const key = name && (await deps.parameters?.secret(name));
    const agents: AgentFactory = key
      ? (identity) => deps.agents({ ...identity, secrets: { [name]: key } })
      : deps.agents;
    const { waits, seconds } = state.outage;
    const where = { state: INVOKE_STATE[state.llmProvider], provider: state.llmProvider };
    const waited = { outageWaits: waits, outageWaitSeconds: seconds };
    const summary = await runTurn(state.experimentId, state.turnNumber, {
      ...deps,
      agents,
      deadline,
      providerWait: { waits, seconds },
      onCommitted: (usage) => deps.telemetry?.turn({ ...usage, ...where, ...waited, replayed: false }),
    }).catch(async (err: unknown) => {
      if (err instanceof ProviderTransientError)
        // for status, while the outage lasts; best effort: the turn's error decides what happens to the run
        await deps.store
          .recordProviderDown({
            experimentId: state.experimentId,
            turnNumber: state.turnNumber,
            waits,
            nextTrySeconds: providerTrySchedule(waits),
          })
          .catch(() => undefined);
      throw err;
    });
    // a retried invocation that found its turn committed: said once, counted nowhere
    if (summary.replayed)
      deps.telemetry?.event('turn replayed', { experimentId: state.experimentId, turn: state.turnNumber, ...where });
    return summary;
  };

export const handler = lambdaEntry(runTurnHandler);
