// An agent that replies from a script: each reply is a list of tool names.
import type { Agent, AgentFactory, Observation } from '../../lambdas/engine/agent.ts';

export function scriptedAgents(replies: string[][], seenObservations: Observation[] = []): AgentFactory {
  let next = 0;
  const agent: Agent = {
    callsModel: true, // stands in for a model in tests of the turn loop
    async act(obs) {
      seenObservations.push(obs);
      const reply = replies[next++] ?? [];
      return { calls: reply.map((name) => ({ name, arguments: name.startsWith('move_') ? { reasoning: `scripted ${name}` } : {} })), text: `reply ${next}` };
    },
  };
  return () => agent;
}
