// InvokeBaselineAgent / InvokeOllamaAgent / InvokeBedrockAgent: one turn of
// the agent through the shared engine.
import { runTurn } from '../engine/turn.ts';
import type { TurnSummary } from '../engine/store.ts';
import { parseOrThrow } from '../config/zod-errors.ts';
import { loopStateSchema } from '../../state-machine/contracts.ts';
import { lambdaEntry, type HandlerDeps } from './deps.ts';

export const runTurnHandler = (deps: HandlerDeps) => async (event: unknown): Promise<TurnSummary> => {
  const state = parseOrThrow(loopStateSchema, event);
  return runTurn(state.experimentId, state.turnNumber, deps);
};

export const handler = lambdaEntry(runTurnHandler);
