// Every agent Ariadne can run, behind one factory: the baselines and the
// chat models. Model settings come from the experiment's config snapshot.
import type { AgentFactory } from '../engine/agent.ts';
import { InvalidInputError } from '../engine/errors.ts';
import { baselineAgents, isBaseline } from './baselines.ts';
import { llmAgent } from './llm/llm-agent.ts';
import { classifyOllamaError, ollamaModel } from './llm/ollama-model.ts';
import { bedrockModel, classifyBedrockError } from './llm/bedrock-model.ts';

export const LLM_AGENTS = ['ollama', 'bedrock'] as const;
export type LlmAgent = (typeof LLM_AGENTS)[number];

export const agents: AgentFactory = (identity) => {
  if (isBaseline(identity.agent)) return baselineAgents(identity);
  if (!identity.model) throw new InvalidInputError('model', identity.model, `agent "${identity.agent}" needs a model`);
  const { config } = identity;
  const system = identity.promptText ?? '';
  switch (identity.agent) {
    case 'ollama':
      return llmAgent({ model: ollamaModel(identity.model, config.ollama, identity.secrets?.ollama_api_key ?? process.env.OLLAMA_API_KEY), system, policy: config.retry, classify: classifyOllamaError, maxMoves: config.max_moves });
    case 'bedrock':
      return llmAgent({ model: bedrockModel(identity.model, config.bedrock), system, policy: config.retry, classify: classifyBedrockError, maxMoves: config.max_moves });
    default:
      throw new InvalidInputError('agent', identity.agent, `unknown agent "${identity.agent}"`);
  }
};
