// InvokeBaselineAgent / InvokeOllamaAgent / InvokeBedrockAgent: one turn of
// the agent through the shared engine.
import { runTurn } from '../engine/turn.ts';
import type { TurnSummary } from '../engine/store.ts';
import { parseOrThrow } from '../config/zod-errors.ts';
import { loopStateSchema } from '../../state-machine/contracts.ts';
import type { AgentFactory } from '../engine/agent.ts';
import { lambdaEntry, type HandlerDeps } from './deps.ts';

export const runTurnHandler =
  (deps: HandlerDeps) =>
  async (event: unknown): Promise<TurnSummary> => {
    const state = parseOrThrow(loopStateSchema, event);
    // Only model agents read parameters (their secrets): the baseline turn function is granted no SSM access.
    const secrets = state.llmProvider === 'baseline' ? undefined : (await deps.parameters?.get())?.secrets;
    const agents: AgentFactory = secrets ? (identity) => deps.agents({ ...identity, secrets }) : deps.agents;
    return runTurn(state.experimentId, state.turnNumber, { ...deps, agents });
  };

export const handler = lambdaEntry(runTurnHandler);
