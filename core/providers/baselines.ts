// Registry of the built-in agents that need no model.
import type { AgentFactory } from '../engine/agent.ts';
import { InvalidInputError } from '../errors.ts';
import { frontierAgent } from './frontier-agent.ts';
import { randomAgent } from './random-agent.ts';

export const BASELINE_AGENTS = {
  random: 'seeded random walk among moves not blocked by a visible wall (the floor)',
  frontier: 'walks to the nearest unexplored frontier using only what it has seen (the ceiling for a map-less agent)',
} as const;
export type BaselineAgent = keyof typeof BASELINE_AGENTS;
export const BASELINE_NAMES = Object.keys(BASELINE_AGENTS) as BaselineAgent[];

/**
 * Baselines whose play does not depend on their seed: their repeats on one maze are one observation. The same
 * list as agent_ignores_seed() in migration 007 (test/repeats.test.ts checks that list against real play).
 */
export const SEEDLESS_BASELINES: readonly BaselineAgent[] = ['frontier'];

export function isBaseline(name: string): name is BaselineAgent {
  return Object.hasOwn(BASELINE_AGENTS, name);
}

export const baselineAgents: AgentFactory = (identity) => {
  switch (identity.agent) {
    case 'random':
      return randomAgent(identity.seed);
    case 'frontier':
      return frontierAgent();
    default:
      throw new InvalidInputError(
        'agent',
        identity.agent,
        `unknown agent "${identity.agent}"; choose one of: ${BASELINE_NAMES.join(', ')}`,
      );
  }
};
