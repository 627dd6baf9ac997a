// Every agent Ariadne can run, behind one factory: the baselines and the
// chat models. Model settings come from the experiment's config snapshot.
import type { AgentFactory } from '../engine/agent.ts';
import { InvalidInputError } from '../engine/errors.ts';
import { baselineAgents, isBaseline } from './baselines.ts';
import { llmAgent } from './llm/llm-agent.ts';
import { classifyOllamaError, ollamaModel } from './llm/ollama-model.ts';
import { bedrockModel, classifyBedrockError } from './llm/bedrock-model.ts';
import { workflowAgent } from './llm/workflow-agent.ts';
import { isWorkflowText, loadWorkflow } from '../engine/workflow/definition.ts';
import type { ChatModel } from './llm/chat-model.ts';
import { offeredTools } from '../engine/tools.ts';
import type { Failure } from './llm/retry.ts';

export const LLM_AGENTS = ['ollama', 'bedrock'] as const;
export type LlmAgent = (typeof LLM_AGENTS)[number];

export const agents: AgentFactory = (identity) => {
  if (isBaseline(identity.agent)) return baselineAgents(identity);
  if (!identity.model) throw new InvalidInputError('model', identity.model, `agent "${identity.agent}" needs a model`);
  const { config } = identity;
  const system = identity.promptText ?? '';
  const chat = (model: ChatModel, classify: (err: unknown) => Failure) => {
    const common = { model, policy: config.retry, classify };
    if (!isWorkflowText(system)) return llmAgent({ ...common, system, config, memory: identity.memory ?? null });
    // A workflow prompt version: stored whole at start, its system prompt already filled in.
    const workflow = loadWorkflow(system, `"${config.prompt_version}"`);
    return workflowAgent({
      ...common,
      maxMoves: config.max_moves,
      config,
      tools: offeredTools(config),
      workflow,
      system: workflow.definition.system,
      memory: identity.memory ?? null,
    });
  };
  switch (identity.agent) {
    case 'ollama':
      return chat(
        ollamaModel(identity.model, config.ollama, identity.secrets?.ollama_api_key ?? process.env.OLLAMA_API_KEY),
        classifyOllamaError,
      );
    case 'bedrock':
      return chat(bedrockModel(identity.model, config.bedrock), classifyBedrockError);
    default:
      throw new InvalidInputError('agent', identity.agent, `unknown agent "${identity.agent}"`);
  }
};
