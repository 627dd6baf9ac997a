// StartExperiment: validate the StartExecution input, write the maze and the
// experiment (once, keyed by the execution), hand the loop its state.
import type { z } from 'zod';
import { startExperiment, type MazeSource } from '../core/engine/experiment.ts';
import { NO_OUTAGE } from '../core/engine/provider-outage.ts';
import { parseOrThrow } from '../core/config/zod-errors.ts';
import {
  outageSchema,
  loopLimits,
  providerOf,
  resumeInputSchema,
  startRequestSchema,
  startTaskInputSchema,
  type LoopState,
} from '../core/machine/contracts.ts';
import { lambdaEntry, type HandlerDeps } from './deps.ts';
import {
  effectiveOllamaHost,
  effectiveOpenAIBaseUrl,
  isLoopbackHost,
  type ExperimentConfigInput,
} from '../core/config/experiment-config.ts';
import { InvalidInputError } from '../core/errors.ts';
import { envString } from '../core/config/environment.ts';
import { HUMAN_AGENT, isHuman } from '../core/providers/human.ts';

/**
 * In Lambda (AWS_LAMBDA_FUNCTION_NAME is set by the runtime) a loopback model server is the function itself, where
 * none runs: every turn would fail after its retries. Refused before anything is written, naming the setting.
 */
function refuseLoopbackHost(provider: 'ollama' | 'openai', url: string): void {
  if (!envString('AWS_LAMBDA_FUNCTION_NAME') || !isLoopbackHost(url)) return;
  const [field, server, example] =
    provider === 'ollama'
      ? ['ollama/host', 'no Ollama runs', 'a hosted Ollama with its key set by ariadne secret set ollama_api_key']
      : [
          'openai/base_url',
          'no model server runs',
          'https://api.openai.com/v1 with its key set by ariadne secret set openai_api_key',
        ];
  const setting = `config.${field.replace('/', '.')}`;
  throw new InvalidInputError(
    setting,
    url,
    `${setting} ${url} is this Lambda function itself, where ${server}; set /ariadne/config/${field} (or ` +
      `${setting} in the input) to a server the function can reach over the internet, e.g. ${example}`,
  );
}

/**
 * In Lambda no person sits at the keyboard: a human run would wait for moves no one can make. Refused before anything
 * is written, naming where a person plays.
 */
function refuseHumanInLambda(agent: string): void {
  if (!envString('AWS_LAMBDA_FUNCTION_NAME') || !isHuman(agent)) return;
  throw new InvalidInputError(
    'agent',
    agent,
    'agent "human" is a person at the keyboard, and a deployed stack has none: play on your machine with ' +
      'ariadne play, or on the play page of ariadne view --play',
  );
}

/**
 * In a deployment the stack records the Bedrock models it grants (<prefix>/deployment/bedrock_models, written from
 * -c bedrockModelIds); a model outside that list would be denied at every turn by IAM. Refused before anything is
 * written, naming the context that grants it. Outside a deployment (no such parameter) nothing is checked.
 */
function refuseUngrantedModel(model: string | undefined, deployment: Record<string, string> | undefined): void {
  if (!envString('AWS_LAMBDA_FUNCTION_NAME') || !deployment) return;
  const granted = (deployment.bedrock_models ?? '').split(',').filter(Boolean);
  if (model && granted.includes(model)) return;
  throw new InvalidInputError(
    'model',
    model,
    `model "${model}" is not granted by this deployment (it grants ${
      granted.length ? granted.join(', ') : 'no ' + 'Bedrock model'
    }); redeploy with cdk deploy -c bedrockModelIds=${[...granted, model].join(',')} (the grant is ` +
      "IAM on the Bedrock function's role; /ariadne/deployment/bedrock_models lists it), or choose a granted model",
  );
}

export const startExperimentHandler =
  (deps: HandlerDeps) =>
  async (event: unknown): Promise<LoopState> => {
    const { request, executionArn, execution } = parseOrThrow(startTaskInputSchema, event, '');
    const state =
      request && typeof request === 'object' && 'resume' in request
        ? await continueExperiment(deps, request, executionArn)
        : await beginExperiment(deps, request, executionArn);
    // the chunks this execution starts decide continue-as-new by its clock
    return execution ? { ...state, clock: execution } : state;
  };

/** A continuation (ContinueAsNew): the experiment exists; record this execution and go on at its turn. */
async function continueExperiment(deps: HandlerDeps, request: object, executionArn: string): Promise<LoopState> {
  const { resume } = parseOrThrow(resumeInputSchema, request, 'input');
  await deps.store.attachExecution(resume.experimentId, executionArn);
  deps.telemetry?.event('experiment continued', {
    experimentId: resume.experimentId,
    turn: resume.turnNumber,
    state: 'StartExperiment',
    provider: resume.llmProvider,
    executionArn,
  });
  return {
    ...(resume as LoopState),
    taskToken: resume.taskToken ?? null,
    executionStartTurn: resume.turnNumber,
    // an outage's waits go on where they were (a hop at the same turn); none of them were in this execution
    outage: { ...parseOrThrow(outageSchema, resume.outage, 'input.resume.outage'), here: 0 },
  };
}

type StartRequest = z.output<typeof startRequestSchema>;
type Parameters = Awaited<ReturnType<NonNullable<HandlerDeps['parameters']>['get']>>;

async function beginExperiment(deps: HandlerDeps, request: unknown, executionArn: string): Promise<LoopState> {
  const input = parseOrThrow(startRequestSchema, request, 'input');
  refuseHumanInLambda(input.agent);
  const llmProvider = providerOf(input.agent);
  const parameters = await deps.parameters?.get();
  // Layer what was sent (validated above), not the parsed copy: zod fills in defaults, which would
  // silently override Parameter Store.
  const config = configToLayer(input, (request as { config?: ExperimentConfigInput }).config, parameters);
  const started = await startExperiment(
    {
      experimentId: input.experimentId,
      executionArn,
      agent: input.agent,
      // a person's turns run as a baseline's (no model call), but the run is recorded as a person's
      provider: isHuman(input.agent) ? HUMAN_AGENT : llmProvider,
      model: input.model ?? null,
      agentSeed: input.agentSeed,
      maze: mazeSource(input),
      config,
      sweep: input.sweep,
      taskToken: input.taskToken ?? null,
      fork: input.fork,
      player: input.player,
      suiteMaze: input.suiteMaze,
    },
    deps.store,
    parameters && { config: parameters.config, prompts: parameters.prompts },
  );
  deps.telemetry?.event('experiment started', {
    experimentId: started.experimentId,
    state: 'StartExperiment',
    provider: llmProvider,
    agent: input.agent,
    model: input.model ?? null,
    sweepId: input.sweep?.id,
    executionArn,
  });
  return {
    experimentId: started.experimentId,
    llmProvider,
    turnNumber: 1,
    executionStartTurn: 1,
    startedAt: started.startedAt.toISOString(),
    limits: loopLimits(started.config),
    taskToken: input.taskToken ?? null,
    outage: NO_OUTAGE,
  };
}

function mazeSource(input: StartRequest): MazeSource {
  return 'grid' in input.maze
    ? { kind: 'inline', grid: input.maze.grid, start: input.maze.start }
    : {
        kind: 'generated',
        spec: {
          generator: input.maze.generator,
          seed: input.maze.seed,
          width: input.maze.width ?? input.maze.size!,
          height: input.maze.height ?? input.maze.size!,
        },
      };
}

/**
 * The config as sent, with the prompt version and the model server's address; refuses a model or server the
 * deployment cannot reach.
 */
function configToLayer(
  input: StartRequest,
  sent: ExperimentConfigInput | undefined,
  parameters: Parameters | undefined,
): ExperimentConfigInput | undefined {
  let config: ExperimentConfigInput | undefined = input.promptVersion
    ? { ...sent, prompt_version: input.promptVersion }
    : sent;
  // The environment supplies the Ollama host (and the OpenAI base URL) when the input names none (zod has filled in
  // the default, so look at what was sent); either way the host lands in the snapshot.
  if (input.agent === 'bedrock') refuseUngrantedModel(input.model ?? undefined, parameters?.deployment);
  if (input.agent === 'ollama') {
    const host = effectiveOllamaHost(sent, parameters?.config);
    refuseLoopbackHost('ollama', host);
    // Only the host: mergeConfig layers sections key by key, so the other Ollama settings still come from parameters.
    if (sent?.ollama?.host === undefined && parameters?.config.ollama?.host === undefined && envString('OLLAMA_HOST'))
      config = { ...config, ollama: { ...config?.ollama, host } };
  }
  if (input.agent === 'openai') {
    const baseUrl = effectiveOpenAIBaseUrl(sent, parameters?.config);
    refuseLoopbackHost('openai', baseUrl);
    if (sent?.openai?.base_url === undefined && parameters?.config.openai?.base_url === undefined)
      config = { ...config, openai: { ...config?.openai, base_url: baseUrl } };
  }
  return config;
}

export const handler = lambdaEntry(startExperimentHandler);
