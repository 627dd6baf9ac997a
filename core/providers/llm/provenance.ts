// The provenance record an agent hands the engine at the first turn (Agent.provenance): what the chat model says
// about where its answers come from. Asking must never fail the run: an unreachable detail is recorded as an error.
import type { Agent } from '../../engine/agent.ts';
import type { ChatModel } from './chat-model.ts';

/** Long enough for /api/version, /api/tags and /api/show on a busy server; short against a turn's budget. */
const PROVENANCE_TIMEOUT_MS = 10_000;

export function withProvenance(agent: Agent, model: ChatModel): Agent {
  const ask = model.provenance?.bind(model);
  if (!ask) return agent;
  agent.provenance = async () => {
    try {
      return await ask(AbortSignal.timeout(PROVENANCE_TIMEOUT_MS));
    } catch (err) {
      return { provider: model.provider, model: model.model, errors: [String(err)] };
    }
  };
  return agent;
}
