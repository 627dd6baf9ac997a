// Bedrock's per-model quotas for this account and Region, read from Service Quotas (ListServiceQuotas, service code
// "bedrock", aws-facts: service-quotas.list-max-results), so a sweep's shared rate limits default to what the account
// may really send, and `ariadne doctor --aws --bedrock` prints them. Quotas name models by display name, matched to ids
// by their words and numbers. Bedrock counts some models' tokens at a higher rate than it bills them, which a quota
// does not show (aws-facts: bedrock.quota-token-burndown).
import type { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { baseModelId, inferenceProfileOf } from '../../core/config/model-table.ts';
import type { Check } from './doctor/check.ts';
import { commandPrefix } from './invocation.ts';
import { fact } from '../../aws-facts/facts.ts';

/** How a model id is called, which decides the quotas that apply to it. */
export type QuotaScope = 'on-demand' | 'cross-region' | 'global';

export interface ServiceQuota {
  name: string;
  code: string;
  value: number;
}

export interface ModelQuotas {
  model: string;
  scope: QuotaScope;
  tokensPerMinute?: ServiceQuota;
}

/** A shared rate limit (config.rate_limits' shape) from a model's quotas; null when no quota of its kind is listed. */
export interface QuotaRateLimit {
  tokens_per_minute: number;
}

/** Every applied Bedrock quota of the account in the client's Region, page by page. */
export async function listBedrockQuotas(client: ServiceQuotasClient): Promise<ServiceQuota[]> {
  const { ListServiceQuotasCommand } = await import('@aws-sdk/client-service-quotas');
  const out: ServiceQuota[] = [];
  let NextToken: string | undefined;
  do {
    const page = await client.send(
      new ListServiceQuotasCommand({
        ServiceCode: 'bedrock',
        MaxResults: fact('service-quotas.list-max-results').value,
        NextToken,
      }),
    );
    for (const q of page.Quotas ?? [])
      if (q.QuotaName && q.QuotaCode && typeof q.Value === 'number')
        out.push({ name: q.QuotaName, code: q.QuotaCode, value: q.Value });
    NextToken = page.NextToken;
  } while (NextToken);
  return out;
}

/**
 * Which quota applies to a model id depends on how it is called: a base id is on-demand in the Region it is called
 * in, a geographic profile (us., eu., ...) counts against the Cross-Region quota of the Region it is called from, a
 * global profile against the Global cross-Region quota. A quota of another kind is never used in its place.
 */
export function quotaScopeOf(model: string): QuotaScope {
  const profile = inferenceProfileOf(model);
  return profile === null ? 'on-demand' : profile === 'global' ? 'global' : 'cross-region';
}

const SCOPE_WORDS: Record<QuotaScope, string> = {
  'on-demand': 'on-demand',
  'cross-region': 'cross-region',
  global: 'global cross-region',
};

/**
 * "<scope> (model inference | InvokeModel) (tokens | requests) per minute for <model>", lower-cased: AWS's names
 * ("Cross-Region InvokeModel tokens per minute for ${model}", "On-demand InvokeModel ...",
 * the page of aws-facts: bedrock.runtime-quotas-tokens-only) and older accounts' ("On-demand model inference ...").
 * Only tokens per minute is a rate limit: Bedrock "no longer enforces requests-per-minute (RPM) quotas".
 */
const QUOTA_NAME = new RegExp(
  '^(on-demand|cross-region|global cross-region) (?:model inference|invokemodel) (tokens|requests) ' +
    'per minute for (.+)$',
);

/**
 * A model's words and numbers: "anthropic.claude-haiku-4-5-20251001-v1:0" and "Anthropic Claude Haiku 4.5 V1" are
 * both anthropic claude haiku 4 5 (a date and ":0" dropped, letters and digits split, a trailing v1 dropped).
 */
function modelWords(text: string): string {
  const words = text
    .toLowerCase()
    .replace(/:\d+$/, '')
    .split(/[^a-z0-9]+/)
    .filter((w) => w && !/^\d{8}$/.test(w))
    .flatMap((w) => (/^v\d+$/.test(w) ? [w] : (w.match(/[a-z]+|\d+/g) ?? [])));
  if (words.at(-1) === 'v1') words.pop();
  return words.join(' ');
}

/** The quotas of `model`'s own kind, matched by name from Service Quotas' list. */
export function modelQuotas(model: string, quotas: readonly ServiceQuota[]): ModelQuotas {
  const scope = quotaScopeOf(model);
  const wanted = modelWords(baseModelId(model));
  const found: ModelQuotas = { model, scope };
  for (const q of quotas) {
    const m = QUOTA_NAME.exec(q.name.toLowerCase());
    if (!m || m[1] !== SCOPE_WORDS[scope] || modelWords(m[3]) !== wanted) continue;
    // a requests-per-minute quota an account still lists is not enforced (bedrock.runtime-quotas-tokens-only)
    if (m[2] === 'tokens') found.tokensPerMinute ??= q;
  }
  return found;
}

/** The rate limit the quota gives: a whole number, at least 1; null when no tokens-per-minute quota was found. */
export function rateLimitOf(q: ModelQuotas): QuotaRateLimit | null {
  const quota = q.tokensPerMinute;
  return quota && quota.value >= 1 ? { tokens_per_minute: Math.min(Math.floor(quota.value), 1_000_000_000) } : null;
}

const SCOPE_TEXT: Record<QuotaScope, string> = {
  'on-demand': 'called on demand in the Region',
  'cross-region': 'called through a geographic cross-Region inference profile',
  global: 'called through a global cross-Region inference profile',
};

const fmt = (n: number) => n.toLocaleString('en-US');

/** What was found for a model, in a sentence. */
export function quotaNote(q: ModelQuotas, region: string): string {
  const quota = q.tokensPerMinute;
  const tokens = quota ? `${fmt(quota.value)} tokens/min ("${quota.name}")` : 'no tokens-per-minute quota listed';
  return `${tokens} in ${region}, ${SCOPE_TEXT[q.scope]} (requests per minute are not enforced)`;
}

/** doctor --bedrock: each model's quotas, read once for all of them (one line each). */
export async function bedrockQuotaChecks(
  models: string[],
  region: string,
  given?: ServiceQuotasClient,
): Promise<Check[]> {
  const client =
    given ?? new (await import('@aws-sdk/client-service-quotas')).ServiceQuotasClient({ region, maxAttempts: 2 });
  let quotas: ServiceQuota[];
  try {
    quotas = await listBedrockQuotas(client);
  } catch (err) {
    const e = err as Error;
    const denied = /AccessDenied|not authorized/i.test(`${e.name} ${e.message}`);
    return [
      {
        check: 'Bedrock quotas',
        ok: true,
        skipped: true,
        detail: `not read from Service Quotas in ${region}: ${e.name}: ${e.message}`,
        fix: denied
          ? `allow servicequotas:ListServiceQuotas to your identity (${commandPrefix()} policy researcher)`
          : 'try again later',
      },
    ];
  } finally {
    client.destroy();
  }
  return models.map((model) => {
    const q = modelQuotas(model, quotas);
    const found = rateLimitOf(q) !== null;
    return {
      check: `Bedrock ${model} quotas`,
      ok: true,
      warning: !found,
      detail: `${quotaNote(q, region)}${found ? '; sweeps default their rate_limits to these' : ''}`,
      fix: found
        ? undefined
        : `look the model up in the Service Quotas console (Amazon Bedrock, ${region}) and set ` +
          `config.rate_limits["bedrock:${model}"] yourself`,
    };
  });
}
