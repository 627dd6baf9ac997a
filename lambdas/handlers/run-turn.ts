// InvokeBaselineAgent / InvokeOllamaAgent / InvokeOpenAIAgent / InvokeBedrockAgent: one turn of
// the agent through the shared engine, with a deadline for its model calls
// taken from the time this invocation has left.
import { runTurn } from '../engine/turn.ts';
import { TurnDeadline } from '../engine/turn-deadline.ts';
import type { TurnSummary } from '../engine/store.ts';
import { parseOrThrow } from '../config/zod-errors.ts';
import { TURN_COMMIT_MARGIN_MS } from '../config/budgets.ts';
import { loopStateSchema } from '../machine/contracts.ts';
import { turnTimeoutSeconds } from '../machine/tasks.ts';
import type { AgentFactory } from '../engine/agent.ts';
import { secretOf } from '../config/secrets.ts';
import { lambdaEntry, type HandlerDeps, type InvocationContext } from './deps.ts';

export const runTurnHandler =
  (deps: HandlerDeps) =>
  async (event: unknown, context?: InvocationContext): Promise<TurnSummary> => {
    const state = parseOrThrow(loopStateSchema, event);
    // "Timeout is the maximum amount of time in seconds that a Lambda function can run" ("Configure Lambda function
    // timeout", https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html): a turn stopped there loses
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
    return runTurn(state.experimentId, state.turnNumber, {
      ...deps,
      agents,
      deadline,
      providerWait: { waits, seconds },
    });
  };

export const handler = lambdaEntry(runTurnHandler);
