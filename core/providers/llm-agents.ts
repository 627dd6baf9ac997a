// The providers of chat-model agents, apart from agents.ts so that what only names them (options, contracts, the
// baseline function's bundle) does not carry the model clients (the AWS SDK, ollama).
export const LLM_AGENTS = ['ollama', 'bedrock', 'openai'] as const;
export type LlmAgent = (typeof LLM_AGENTS)[number];

/** A model id of each provider, for help texts and error messages. */
export const MODEL_EXAMPLES: Record<LlmAgent, string> = {
  ollama: 'qwen2.5:7b',
  bedrock: 'global.anthropic.claude-haiku-4-5-20251001-v1:0',
  openai: 'gpt-4.1-mini',
};

export const isLlmAgent = (agent: string): agent is LlmAgent => (LLM_AGENTS as readonly string[]).includes(agent);

/**
 * Why `observation` cannot go with `agent`, or null: a baseline (frontier, random) reads the maze itself and never
 * looks at a picture, so "image" would be recorded as a format it never used. A person (agent human) is shown it.
 */
export function baselineObservationProblem(agent: string, observation: string | undefined): string | null {
  if (isLlmAgent(agent) || agent === 'human' || observation !== 'image') return null;
  return (
    `config.observation "image" is for model agents (${LLM_AGENTS.join(', ')}); the ${agent} baseline reads ` +
    'the maze itself and sees no picture: leave observation out for it, or use a model agent'
  );
}
