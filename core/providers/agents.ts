// Every agent Ariadne can run, behind one factory: the baselines and the
// chat models. Model settings come from the experiment's config snapshot.
import type { AgentFactory } from '../engine/agent.ts';
import { InvalidInputError } from '../errors.ts';
import { baselineAgents, isBaseline } from './baselines.ts';
import { isHuman } from './human.ts';
import { llmAgent } from './llm/llm-agent.ts';
import { classifyOllamaError, ollamaModel } from './llm/ollama-model.ts';
import { bedrockModel, classifyBedrockError } from './llm/bedrock-model.ts';
import { classifyOpenAIError, openaiModel } from './llm/openai-model.ts';
import { workflowAgent } from './llm/workflow-agent.ts';
import { isWorkflowText, loadWorkflow } from '../engine/workflow/definition.ts';
import type { ChatModel } from './llm/chat-model.ts';
import { offeredTools } from '../engine/tools.ts';
import type { Failure } from './llm/retry.ts';
import { RateLimitWaitError, rateLimitedModel, rateLimitFor, type RateLimitStore } from './llm/rate-limiter.ts';
import type { ExperimentConfig } from '../config/experiment-config.ts';
import { bedrockInference, ollamaOptions, openaiRequest, outputCap } from './llm/sampling.ts';
import { withProvenance } from './llm/provenance.ts';
import {
  forkingModel,
  modelVersionOf,
  recordingModel,
  replayedProbeModel,
  replayingModel,
} from './llm/recorded-model.ts';
import { ReplayDivergenceError } from './llm/recorded-model.ts';
import type { CacheUse, ExchangeCache, ForkPrefix, ReplayScript } from './llm/recorded-model.ts';
import { envString } from '../config/environment.ts';

/**
 * A wait for the shared rate limit that ran out is transient: backed off and retried like a 429. A replay that
 * diverged is final: asking again asks the same thing.
 */
const withRateLimitWaits =
  (classify: (err: unknown) => Failure) =>
  (err: unknown): Failure => {
    if (err instanceof RateLimitWaitError) return { transient: true, status: 'rate-limit', message: err.message };
    if (err instanceof ReplayDivergenceError)
      return { transient: false, status: 'replay-diverged', message: err.message };
    return classify(err);
  };

/** The model as called: behind its shared rate limit when config.rate_limits has one for it. */
function limited(model: ChatModel, config: ExperimentConfig, store: RateLimitStore | undefined): ChatModel {
  const limit = rateLimitFor(config.rate_limits, model.provider, model.model);
  if (!limit) return model;
  if (!store)
    throw new InvalidInputError(
      'rate_limits',
      config.rate_limits,
      `rate_limits has a limit for ${model.provider}:${model.model}, but this run has no database to share it ` +
        'through; run it with the store (agentsWith({ rateLimits })) or remove the limit',
    );
  return rateLimitedModel(model, {
    store,
    limit,
    // the reply's cap (max_output_tokens) until it reports its usage; an old Ollama snapshot sent none: 1,024
    maxOutputTokens: outputCap(model.provider, config) ?? 1024,
    // Waiting happens inside the attempt's timeout, so the call keeps at least half of it and the whole stays within
    // modelCallWorstCaseMs, which the config already fits in the turn's budget.
    maxWaitMs: config.retry.timeout_ms / 2,
  });
}

/** config.cache's lookup for a run, or undefined when it is off. */
function cacheUse(config: ExperimentConfig, experimentId: string, store?: ExchangeCache): CacheUse | undefined {
  if (config.cache === 'off') return undefined;
  if (!store)
    throw new InvalidInputError(
      'cache',
      config.cache,
      `cache "${config.cache}" answers from the runs in a database, and this run has none to ask; run it with the ` +
        'store (agentsWith({ cache })) or leave cache off',
    );
  return { store, query: { scope: config.cache, maxAgeHours: config.cache_max_age_hours, experimentId } };
}

export interface AgentDeps {
  /** The database's shared buckets for config.rate_limits; without it, a run with a limit is refused. */
  rateLimits?: RateLimitStore;
  /**
   * Answer every call of a run from the recorded run this gives for its turn, instead of the model's server
   * (`ariadne rerun --replay`, `ariadne sweep --replay-from`).
   */
  replayFrom?: (experimentId: string) => Promise<ReplayScript>;
  /** A fork's prefix for its turn: the parent's replies up to the fork point, past those it already had. */
  forkFrom?: (experimentId: string, fork: { parent: string; atStep: number }) => Promise<ForkPrefix>;
  /** Where config.cache finds recorded replies; without it a run with the cache on is refused. */
  cache?: ExchangeCache;
}

export const agentsWith =
  (deps: AgentDeps): AgentFactory =>
  (identity) => {
    if (isBaseline(identity.agent)) return baselineAgents(identity);
    if (isHuman(identity.agent))
      throw new InvalidInputError(
        'agent',
        identity.agent,
        'agent "human" is a person, and this run has no seat for one: a person plays through ariadne play or the ' +
          'play page of ariadne view --play (providers/human-agent.ts withHumanSeat)',
      );
    if (!identity.model)
      throw new InvalidInputError('model', identity.model, `agent "${identity.agent}" needs a model`);
    return chatAgent(identity, identity.model, deps);
  };

/** Without rate limits: for tools and tests whose configs set none. */
export const agents: AgentFactory = agentsWith({});

/**
 * Who answers a run's belief probes (engine/belief-probe.ts): the model's server behind the run's rate limit, but
 * not through the flight recorder (a probe is no call of the turn's: a replay or fork's prefix would take it for
 * one), the cache or a fork's prefix; in a replay, the replayed run's answer after the same turn.
 */
function probeModelOf(
  server: ChatModel,
  who: { provider: ChatModel['provider']; model: string; parameters: unknown },
  config: ExperimentConfig,
  deps: AgentDeps,
  script: Promise<ReplayScript> | undefined,
): ((turn: number) => ChatModel) | undefined {
  if (config.belief_probe_every === 0) return undefined;
  if (script) return (turn) => replayedProbeModel(script, who, turn);
  const live = limited(server, config, deps.rateLimits);
  return () => live;
}

function chatAgent(identity: Parameters<AgentFactory>[0], modelName: string, deps: AgentDeps) {
  const { config } = identity;
  const system = identity.promptText ?? '';
  const chat = (server: ChatModel, baseClassify: (err: unknown) => Failure, parameters: unknown) => {
    const who = { provider: server.provider, model: server.model, parameters };
    const stored = identity.provenance == null ? undefined : modelVersionOf(identity.provenance);
    const script = deps.replayFrom?.(identity.experimentId);
    const unlimited = script
      ? replayingModel(script, who)
      : recordingModel(server, who, stored, cacheUse(config, identity.experimentId, deps.cache));
    const served = script ? unlimited : limited(unlimited, config, deps.rateLimits);
    const prefix = identity.fork && deps.forkFrom ? deps.forkFrom(identity.experimentId, identity.fork) : undefined;
    const model = prefix ? forkingModel(prefix, served, who) : served;
    const classify = withRateLimitWaits(baseClassify);
    const common = { model, policy: config.retry, classify };
    if (!isWorkflowText(system))
      return withProvenance(
        llmAgent({
          ...common,
          system,
          config,
          memory: identity.memory ?? null,
          tokenCalibration: identity.tokenCalibration ?? null,
          probeModel: probeModelOf(server, who, config, deps, script),
        }),
        unlimited,
      );
    // A workflow prompt version: stored whole at start, its system prompt already filled in.
    const workflow = loadWorkflow(system, `"${config.prompt_version}"`);
    const agent = workflowAgent({
      ...common,
      maxMoves: config.max_moves,
      observation: config.observation,
      config,
      tools: offeredTools(config),
      workflow,
      system: workflow.definition.system,
      memory: identity.memory ?? null,
    });
    return withProvenance(agent, unlimited);
  };
  switch (identity.agent) {
    case 'ollama': {
      const options = ollamaOptions(config, identity.seed);
      const key = identity.secrets?.ollama_api_key ?? envString('OLLAMA_API_KEY');
      return chat(ollamaModel(modelName, config.ollama, key, options), classifyOllamaError, options);
    }
    case 'bedrock': {
      const inference = bedrockInference(config, modelName);
      const classify = (err: unknown) => classifyBedrockError(err, { model: modelName, region: config.bedrock.region });
      return chat(bedrockModel(modelName, config.bedrock, undefined, inference), classify, inference);
    }
    case 'openai': {
      const baseUrl = config.openai.base_url;
      const request = openaiRequest(config, identity.seed, modelName);
      const key = identity.secrets?.openai_api_key ?? envString('OPENAI_API_KEY');
      const classify = (err: unknown) => classifyOpenAIError(err, { model: modelName, baseUrl });
      return chat(openaiModel(modelName, config.openai, key, request), classify, request);
    }
    default:
      throw new InvalidInputError('agent', identity.agent, `unknown agent "${identity.agent}"`);
  }
}
