// The providers of chat-model agents, apart from agents.ts so that the CLI's options can name them without
// loading the model clients (the AWS SDK, ollama) at start-up.
export const LLM_AGENTS = ['ollama', 'bedrock', 'openai'] as const;
export type LlmAgent = (typeof LLM_AGENTS)[number];

/** A model id of each provider, for help texts and error messages. */
export const MODEL_EXAMPLES: Record<LlmAgent, string> = {
  ollama: 'qwen2.5:7b',
  bedrock: 'global.anthropic.claude-haiku-4-5-20251001-v1:0',
  openai: 'gpt-4.1-mini',
};

export const isLlmAgent = (agent: string): agent is LlmAgent => (LLM_AGENTS as readonly string[]).includes(agent);
