// Checks a model host before an experiment is written, so a model that is not
// there (exit 2) or an unreachable host (exit 3) is a clear error, not a failed
// experiment row.
import { createConnection } from 'node:net';
import { InvalidInputError } from '../../core/errors.ts';
import { EnvironmentError } from './exit-codes.ts';
import { commandPrefix } from './invocation.ts';
import {
  effectiveOllamaHost,
  effectiveOpenAIBaseUrl,
  mergeConfig,
  type ExperimentConfigInput,
} from '../../core/config/experiment-config.ts';
import { resolveConfig } from '../../core/engine/experiment.ts';
import { diagnoseBedrockAccess } from '../../core/providers/llm/bedrock-access.ts';
import { envString } from '../../core/config/environment.ts';
import { probeBedrockModel, throttled } from './bedrock-probe.ts';
import { openaiSdk } from '../../core/providers/llm/openai-model.ts';

/** The innermost code or message of a chain of causes (fetch wraps the socket error). */
function rootCause(err: unknown): string {
  type Chain = { code?: string; message?: string; cause?: unknown; errors?: unknown[] };
  let cur = err as Chain | undefined;
  let found = (err as Error)?.message ?? String(err);
  let code: string | undefined;
  // the innermost code: the AWS SDK's HTTP/2 handler wraps a refused connection as ERR_HTTP2_STREAM_CANCEL
  for (let depth = 0; cur && depth < 5; depth++) {
    if (cur.code) code = cur.code;
    else if (cur.message && !code) found = cur.message;
    cur = (cur.cause ?? cur.errors?.[0]) as Chain | undefined;
  }
  return code ?? found;
}

/** How the messages name the host and the model: the run's options, or a sweep file's agent. */
interface Labels {
  /** The setting that gives the host: an option, or a sweep file's YAML key (config.ollama.host). */
  host: string;
  model: string;
  /** Whose host it is, when not the run's own: ` for sweep agent "qwen2.5:7b"`. */
  of?: string;
}
const RUN_LABELS: Labels = { host: '--ollama-host', model: '--model' };

/**
 * Pictures for a model that cannot see them would be a run of noise: refused when the server's /api/show lists
 * capabilities without "vision" (a server too old to list them is given the benefit of the doubt).
 */
function refuseBlindOllama(host: string, model: string, capabilities: string[] | undefined, labels: Labels) {
  if (!capabilities || capabilities.includes('vision')) return;
  throw new InvalidInputError(
    'config.observation',
    'image',
    `config.observation "image": ${labels.model} "${model}" on the Ollama server at ${host} has no "vision" ` +
      `capability (it lists: ${capabilities.join(', ') || 'none'}); use a vision model (e.g. qwen2.5vl:7b, ` +
      'gemma3) or a text observation format (local_grid shows the same square as text)',
  );
}

async function checkOllama(
  host: string,
  model: string,
  labels: Labels = RUN_LABELS,
  observation?: string,
  apiKey = envString('OLLAMA_API_KEY'),
): Promise<void> {
  const { Ollama } = await import('ollama');
  const client = new Ollama({
    host,
    headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : undefined,
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(10_000) }),
  });
  let capabilities: string[] | undefined;
  try {
    ({ capabilities } = (await client.show({ model })) as { capabilities?: string[] });
  } catch (err) {
    const e = err as { status_code?: number; error?: string; message?: string };
    if (e.status_code === 404)
      throw new InvalidInputError(
        labels.model,
        model,
        `${labels.model} "${model}" is not on the Ollama server at ${host} (${e.error ?? e.message}); ` +
          `pull it with: ollama pull ${model}`,
      );
    if (typeof e.status_code === 'number')
      throw new EnvironmentError(
        labels.host,
        `the Ollama server at ${host} answered ${e.status_code}: ${e.error ?? e.message}`,
      );
    throw new EnvironmentError(
      labels.host,
      `cannot reach Ollama at ${labels.host} ${host}${labels.of ?? ''} (${rootCause(err)}); ` +
        `start it (ollama serve, or: ${commandPrefix()} sim ollama) or set ${labels.host} to the server's URL`,
    );
  }
  if (observation === 'image') refuseBlindOllama(host, model, capabilities, labels);
}

/**
 * GET {base_url}/models through the openai client, as `ariadne run` reaches the server: a model the server does not
 * list is bad input (exit 2), naming what it serves; no server, a refused key or a base URL that serves no model
 * list is the environment (exit 3), each with its fix.
 */
async function checkOpenAI(baseUrl: string, model: string, labels: Labels, apiKey = envString('OPENAI_API_KEY')) {
  const { default: OpenAI, APIError } = await openaiSdk();
  const client = new OpenAI({ baseURL: baseUrl, apiKey: apiKey || 'none', maxRetries: 1, timeout: 10_000 });
  const host = labels === RUN_LABELS ? '--openai-base-url' : labels.host;
  const of = labels.of ?? '';
  let ids: string[];
  try {
    ids = [];
    for await (const m of client.models.list()) ids.push(m.id);
  } catch (err) {
    if (err instanceof APIError && err.status === 401)
      throw new EnvironmentError(
        'OPENAI_API_KEY',
        `the server at ${baseUrl} refused the key (401: ${err.message}); set $OPENAI_API_KEY (or ` +
          '/ariadne-secrets/openai_api_key in the parameters file) to a key it accepts',
      );
    if (err instanceof APIError && typeof err.status === 'number')
      throw new EnvironmentError(
        host,
        `GET ${baseUrl}/models (${host}${of}) answered ${err.status} (${err.message}); an OpenAI-compatible ` +
          'base URL ends in /v1 (e.g. http://127.0.0.1:8000/v1): check it',
      );
    throw new EnvironmentError(
      host,
      `cannot reach the OpenAI-compatible server at ${host} ${baseUrl}${of} (${rootCause(err)}); start it (vllm ` +
        `serve MODEL, or: ${commandPrefix()} sim openai) or set ${host} to the server's URL`,
    );
  }
  if (!ids.includes(model))
    throw new InvalidInputError(
      labels.model,
      model,
      `${labels.model} "${model}" is not among the models the server at ${baseUrl} serves ` +
        `(${ids.slice(0, 8).join(', ') || 'none'}${ids.length > 8 ? `, ... ${ids.length} in all` : ''}); ` +
        'use one of its ids exactly as GET /v1/models lists it',
    );
}

/** An explicit endpoint (a simulator, a VPC endpoint) must accept connections; the regional one is AWS's. */
async function checkEndpoint(option: string, url: string): Promise<void> {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  await new Promise<void>((resolve, reject) => {
    const socket = createConnection({ host: u.hostname, port, timeout: 5_000 }, () => {
      socket.end();
      resolve();
    });
    socket.on('timeout', () => {
      socket.destroy();
      reject(new EnvironmentError(option, `cannot reach ${option} ${url}: no answer within 5 s`));
    });
    socket.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        new EnvironmentError(
          option,
          `cannot reach ${option} ${url} (${err.code ?? err.message}); ` +
            `check the URL or start the server (${commandPrefix()} sim bedrock)`,
        ),
      ),
    );
  });
}

/** Bedrock signs every call: credentials that cannot be found would fail every turn, so they are looked up first. */
async function checkAwsCredentials(region: string): Promise<void> {
  const { BedrockRuntimeClient } = await import('@aws-sdk/client-bedrock-runtime');
  const client = new BedrockRuntimeClient({ region });
  try {
    await client.config.credentials();
  } catch (err) {
    throw new EnvironmentError(
      'AWS credentials',
      `Bedrock needs AWS credentials and none were found (${(err as Error).message.split('\n')[0]}); ` +
        'configure them (aws configure, AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)',
    );
  } finally {
    client.destroy();
  }
}

/**
 * The model answers a one-token Converse call from here (as the doctor's check): a wrong or retired model id, or
 * one that needs an inference profile, is bad input (exit 2); an endpoint that cannot be reached, or an account
 * that may not call the model yet (no Marketplace subscription, no use case form, no grant), is the environment
 * (exit 3). Each names its fix (bedrock-access.ts). Throttling means the model is there: not an error.
 */
async function checkBedrockModel(model: string, region: string, endpoint: string | undefined, labels: Labels) {
  const { BedrockRuntimeClient } = await import('@aws-sdk/client-bedrock-runtime');
  const client = new BedrockRuntimeClient({ region, endpoint, maxAttempts: 2 });
  try {
    await probeBedrockModel(client, model, AbortSignal.timeout(30_000));
  } catch (err) {
    const e = err as Error & { $metadata?: { httpStatusCode?: number } };
    if (throttled(e)) return;
    const access = diagnoseBedrockAccess(e, { model, region, command: commandPrefix() });
    const said = `Bedrock answered ${e.name}: ${e.message}`;
    if (access && ['invalid-model', 'needs-profile', 'legacy', 'end-of-life'].includes(access.problem))
      throw new InvalidInputError(labels.model, model, `${labels.model} "${model}": ${said}; ${access.fix}`);
    if (access) throw new EnvironmentError(labels.model, `${labels.model} "${model}": ${said}; ${access.fix}`);
    if (e.$metadata?.httpStatusCode === undefined)
      throw new EnvironmentError(
        'Bedrock',
        `cannot reach Bedrock in ${region}${endpoint ? ` at ${endpoint}` : ''} (${rootCause(err)}); check the ` +
          'network and the Region (--region), or the endpoint',
      );
    throw new EnvironmentError(labels.model, `${labels.model} "${model}": ${said}`);
  } finally {
    client.destroy();
  }
}

/** One LLM agent an experiment will run: what was sent for it (the run's options, a sweep cell's config). */
export interface PlannedAgent {
  agent: string;
  model: string | null;
  config: ExperimentConfigInput;
  /** How messages name it, e.g. a sweep's agent label; the run's own options when absent. */
  labels?: Labels;
}

/**
 * Checks every distinct model host before anything is written, as the experiments will reach them: the Ollama
 * host from what was sent, else the parameters, else $OLLAMA_HOST, else the default (StartExperiment's order),
 * and the OpenAI-compatible base URL likewise ($OPENAI_BASE_URL); Bedrock's credentials and an explicit endpoint.
 */
export async function preflightAgents(planned: PlannedAgent[], parameters?: ExperimentConfigInput): Promise<void> {
  const seen = new Set<string>();
  for (const p of planned) {
    if (p.agent === 'ollama') {
      const host = effectiveOllamaHost(p.config, parameters);
      const observation = resolveConfig(mergeConfig(parameters, p.config)).observation;
      const key = `ollama ${host} ${p.model} ${observation}`;
      if (seen.has(key)) continue;
      seen.add(key);
      await checkOllama(host, p.model ?? '', p.labels, observation);
    } else if (p.agent === 'openai') {
      // Bedrock and OpenAI-compatible models: the model table (model-table.ts) records no vision, and GET /models
      // says nothing of it, so no model is refused "image" here; a model that cannot see is the provider's 400.

      const baseUrl = effectiveOpenAIBaseUrl(p.config, parameters);
      const key = `openai ${baseUrl} ${p.model}`;
      if (seen.has(key)) continue;
      seen.add(key);
      await checkOpenAI(baseUrl, p.model ?? '', p.labels ?? RUN_LABELS);
    } else if (p.agent === 'bedrock') {
      // resolved only here: a sweep's baseline cells, most of them, need no config read for this
      const resolved = resolveConfig(mergeConfig(parameters, p.config));
      const key = `bedrock ${resolved.bedrock.region} ${resolved.bedrock.endpoint ?? ''}`;
      if (!seen.has(key)) {
        seen.add(key);
        if (resolved.bedrock.endpoint) await checkEndpoint('--bedrock-endpoint', resolved.bedrock.endpoint);
        await checkAwsCredentials(resolved.bedrock.region);
      }
      const modelKey = `${key} ${p.model}`;
      if (seen.has(modelKey)) continue;
      seen.add(modelKey);
      await checkBedrockModel(
        p.model ?? '',
        resolved.bedrock.region,
        resolved.bedrock.endpoint,
        p.labels ?? RUN_LABELS,
      );
    }
  }
}
