// `ariadne sweep FILE --aws` fits the sweep to the account before anything is uploaded: its width
// capped to the Lambda concurrency the account has free, its length checked against one Standard execution (both
// core/sweeps/sweep-capacity.ts, which RegisterSweep applies again at run time), and the shared rate limit of each
// Bedrock model it calls defaulted, where neither the file nor Parameter Store sets one, to the account's quotas for
// that model (bedrock-quotas.ts). Each decision is one line on stderr.
import { InvalidInputError } from '../../core/errors.ts';
import {
  experimentConfigSchema,
  mergeConfig,
  type ExperimentConfig,
  type ExperimentConfigInput,
} from '../../core/config/experiment-config.ts';
import { resolveParameters } from '../../core/config/parameters.ts';
import { ssmSource } from '../../core/config/ssm-source.ts';
import { rateLimitFor, type RateLimit } from '../../core/providers/llm/rate-limiter.ts';
import { lambdaAccountConcurrency, type AccountConcurrencyReader } from '../../functions/lambda-concurrency.ts';
import {
  durationNote,
  fitToAccount,
  SweepTooLongError,
  type ConcurrencyDecision,
  type SweepDuration,
} from '../../core/sweeps/sweep-capacity.ts';
import type { LoadedSweep } from '../../core/sweeps/sweep-spec.ts';
import { listBedrockQuotas, modelQuotas, quotaNote, rateLimitOf, type ServiceQuota } from './bedrock-quotas.ts';

interface RateLimitDefault {
  model: string;
  region: string;
  /** What the runs of this model get: the account's quotas, or nothing (kept as set, or none found). */
  limit: Partial<RateLimit> | null;
  note: string;
}

export interface SweepFit {
  /** The sweep as it is launched: its Bedrock runs' configs with the defaulted rate limits. */
  sweep: LoadedSweep;
  maxConcurrency: number;
  concurrency: ConcurrencyDecision;
  duration: SweepDuration;
  rateLimits: RateLimitDefault[];
  /** The decisions, one a line, for stderr. */
  lines: string[];
}

export interface FitOptions {
  /** The sweep machine's Region (its ARN's). */
  region: string;
  /** --concurrency, else the file's max_concurrency. */
  requested: number;
  parameterPrefix?: string;
  /** Injected by tests; by default the AWS SDK clients in `region`. */
  readAccount?: AccountConcurrencyReader;
  readQuotas?: (region: string) => Promise<ServiceQuota[]>;
  readConfig?: () => Promise<ExperimentConfig>;
}

const reason = (err: unknown) => `${(err as Error).name}: ${(err as Error).message.split('\n')[0]}`;

/** The deployed config defaults (<prefix>/config), as StartExperiment merges them under each run's config. */
async function deployedConfig(region: string, prefix: string): Promise<ExperimentConfig> {
  const { SSMClient } = await import('@aws-sdk/client-ssm');
  const client = new SSMClient({ region, maxAttempts: 2 });
  try {
    const raw = await ssmSource(client).readAll(`${prefix}/config`);
    return experimentConfigSchema.parse(resolveParameters(prefix, raw).config);
  } finally {
    client.destroy();
  }
}

async function serviceQuotas(region: string): Promise<ServiceQuota[]> {
  const { ServiceQuotasClient } = await import('@aws-sdk/client-service-quotas');
  const client = new ServiceQuotasClient({ region, maxAttempts: 2 });
  try {
    return await listBedrockQuotas(client);
  } finally {
    client.destroy();
  }
}

const limitText = (l: Partial<RateLimit>) =>
  [
    l.tokens_per_minute === undefined ? null : `${l.tokens_per_minute.toLocaleString('en-US')} tokens/min`,
    l.requests_per_minute === undefined ? null : `${l.requests_per_minute.toLocaleString('en-US')} requests/min`,
  ]
    .filter(Boolean)
    .join(', ');

/** Each Bedrock model's shared rate limit: kept where set, else from the account's quotas for how it is called. */
async function defaultRateLimits(
  sweep: LoadedSweep,
  o: FitOptions,
  deployed: ExperimentConfig | { error: string },
): Promise<{ sweep: LoadedSweep; rateLimits: RateLimitDefault[]; lines: string[] }> {
  const bedrockCells = sweep.cells.filter((c) => c.agent === 'bedrock' && c.model);
  if (bedrockCells.length === 0) return { sweep, rateLimits: [], lines: [] };
  if ('error' in deployed)
    // without them a default could override a limit set in Parameter Store (the run's input wins there)
    return {
      sweep,
      rateLimits: [],
      lines: [`rate limits: none defaulted, the deployed parameters could not be read (${deployed.error})`],
    };
  const regionOf = (config: ExperimentConfigInput) => config.bedrock?.region ?? deployed.bedrock.region;
  const isSet = (config: ExperimentConfigInput, model: string) =>
    rateLimitFor(
      { ...deployed.rate_limits, ...(config.rate_limits as Record<string, RateLimit> | undefined) },
      'bedrock',
      model,
    ) !== null;
  const quotasByRegion = new Map<string, Promise<ServiceQuota[] | { error: string }>>();
  const decided = new Map<string, RateLimitDefault>();
  for (const cell of bedrockCells) {
    const model = cell.model!;
    const region = regionOf(cell.config);
    const key = `${model} ${region}`;
    if (decided.has(key) || isSet(cell.config, model)) continue;
    let read = quotasByRegion.get(region);
    if (!read) {
      read = (o.readQuotas ?? serviceQuotas)(region).catch((err: unknown) => ({ error: reason(err) }));
      quotasByRegion.set(region, read);
    }
    const quotas = await read;
    if ('error' in quotas) {
      decided.set(key, {
        model,
        region,
        limit: null,
        note: `rate limit bedrock:${model}: none, Service Quotas not read in ${region} (${quotas.error})`,
      });
      continue;
    }
    const q = modelQuotas(model, quotas);
    const limit = rateLimitOf(q);
    decided.set(key, {
      model,
      region,
      limit,
      note: limit
        ? `rate limit bedrock:${model}: ${limitText(limit)} shared by its runs, the account's quotas ` +
          `(${quotaNote(q, region)})`
        : `rate limit bedrock:${model}: none, ${quotaNote(q, region)}; set config.rate_limits to limit it`,
    });
  }
  const cells = sweep.cells.map((cell) => {
    const chosen = cell.model ? decided.get(`${cell.model} ${regionOf(cell.config)}`)?.limit : null;
    if (cell.agent !== 'bedrock' || !chosen || isSet(cell.config, cell.model!)) return cell;
    // the cell's own entries still win (mergeConfig: later layers win, key by key)
    return { ...cell, config: mergeConfig({ rate_limits: { [`bedrock:${cell.model}`]: chosen } }, cell.config) };
  });
  const rateLimits = [...decided.values()];
  return {
    sweep: { ...sweep, cells, runs: sweep.runs.map((r) => ({ cell: cells[r.cell.index], repeat: r.repeat })) },
    rateLimits,
    lines: rateLimits.map((r) => r.note),
  };
}

/** The sweep fitted to the account; a sweep that could not end within one Standard execution is refused (exit 2). */
export async function fitSweepToAccount(loaded: LoadedSweep, o: FitOptions): Promise<SweepFit> {
  const read =
    o.readAccount ??
    lambdaAccountConcurrency(
      new (await import('@aws-sdk/client-lambda')).LambdaClient({ region: o.region, maxAttempts: 2 }),
    );
  const account = await read().catch((err: unknown) => ({ error: reason(err) }));
  // the deployed default of a run without its own max_duration_minutes (unread: the code default counts)
  const readConfig = o.readConfig ?? (() => deployedConfig(o.region, o.parameterPrefix ?? '/ariadne'));
  const deployed = await readConfig().catch((err: unknown) => ({ error: reason(err) }));
  let fitted;
  try {
    fitted = fitToAccount(
      loaded.spec.sweep,
      loaded.runs.map((r) => r.cell.config),
      o.requested,
      account,
      o.region,
      'error' in deployed ? undefined : deployed.max_duration_minutes,
    );
  } catch (err) {
    if (!(err instanceof SweepTooLongError)) throw err;
    throw new InvalidInputError('max_concurrency', err.maxConcurrency, err.message);
  }
  const { concurrency, duration } = fitted;
  const limits = await defaultRateLimits(loaded, o, deployed);
  return {
    sweep: limits.sweep,
    maxConcurrency: concurrency.maxConcurrency,
    concurrency,
    duration,
    rateLimits: limits.rateLimits,
    lines: [concurrency.note, durationNote(duration, concurrency.maxConcurrency), ...limits.lines],
  };
}
