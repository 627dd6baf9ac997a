// The providers of chat-model agents, apart from agents.ts so that the CLI's options can name them without
// loading the model clients (the AWS SDK, ollama) at start-up.
export const LLM_AGENTS = ['ollama', 'bedrock'] as const;
export type LlmAgent = (typeof LLM_AGENTS)[number];
