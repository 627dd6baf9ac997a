// An agent that replies from a script: each reply is a list of tool names.
// `words`, when given, is the reply's text and every move's reasoning.
import type { Agent, AgentFactory, Observation } from '../../core/engine/agent.ts';

export function scriptedAgents(
  replies: string[][],
  seenObservations: Observation[] = [],
  words?: string,
): AgentFactory {
  let next = 0;
  const agent: Agent = {
    callsModel: true, // stands in for a model in tests of the turn loop
    act(obs) {
      seenObservations.push(obs);
      const reply = replies[next++] ?? [];
      return Promise.resolve({
        calls: reply.map((name) => ({
          name,
          arguments: name.startsWith('move_') ? { reasoning: words ?? `scripted ${name}` } : {},
        })),
        text: words ?? `reply ${next}`,
      });
    },
  };
  return () => agent;
}
