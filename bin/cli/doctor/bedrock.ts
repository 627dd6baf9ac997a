// Bedrock model access from the researcher's side, per model the deployment grants (<prefix>/deployment/
// bedrock_models): its lifecycle, read live (GetFoundationModel: Legacy, or Active but labelled Legacy by its vendor,
// is a warning naming the replacement; not found, a failure), then a one-token Converse call, which on a new account
// also starts the Marketplace subscription when the caller may subscribe: an administrator runs this once for the
// whole account. What each refusal means is core/providers/llm/bedrock-access.ts's.
import { probeBedrockModel, throttled } from '../bedrock-probe.ts';
import type { Check } from './check.ts';
import { commandPrefix } from '../invocation.ts';
import { diagnoseBedrockAccess } from '../../../core/providers/llm/bedrock-access.ts';
import {
  baseModelId,
  inferenceProfileOf,
  lookupModel,
  MODEL_TABLE,
  type ModelEntry,
} from '../../../core/config/model-table.ts';
import { bedrockQuotaChecks } from '../bedrock-quotas.ts';

const fallbackFix = (err: Error, model: string, region: string, prefix: string): string =>
  err.name === 'ResourceNotFoundException'
    ? `${model} is not offered in ${region}: set ${prefix}/config/bedrock/region, or deploy another model`
    : 'try again later; if it persists, see the AWS Health Dashboard for Bedrock in that Region';

/**
 * The id to deploy instead of `model`: its table row's replacement, through the same kind of profile where the table
 * lists one for it (else a global one, else the model id); undefined when the table names none.
 */
function replacementOf(model: string, entry: ModelEntry | undefined): string | undefined {
  const next = entry?.replacement;
  if (!next) return undefined;
  const prefix = inferenceProfileOf(model);
  const profiles = MODEL_TABLE[next]?.profiles ?? [];
  if (prefix && profiles.includes(prefix)) return `${prefix}.${next}`;
  return profiles.includes('global') ? `global.${next}` : next;
}

const day = (d: Date | undefined): string | undefined => d?.toISOString().slice(0, 10);

/** The fix for a model on its way out: deploy its replacement (or an Active model) and start new studies there. */
function moveFix(replacement: string | undefined): string {
  return replacement
    ? `deploy ${replacement}, its replacement (-c bedrockModelIds=${replacement}), and start new studies on it`
    : 'deploy an Active model (-c bedrockModelIds=...) and start new studies on it';
}

/** GetFoundationModel for the model behind `model` (a profile's base model): its lifecycle check. */
async function lifecycleCheck(model: string, region: string): Promise<Check> {
  const { BedrockClient, GetFoundationModelCommand } = await import('@aws-sdk/client-bedrock');
  const client = new BedrockClient({ region, maxAttempts: 2 });
  const base = baseModelId(model);
  const check = `Bedrock ${model} lifecycle`;
  try {
    const out = await client.send(new GetFoundationModelCommand({ modelIdentifier: base }));
    const lifecycle = out.modelDetails?.modelLifecycle;
    const status = lifecycle?.status ?? 'unknown';
    const entry = lookupModel(MODEL_TABLE, base);
    const replacement = replacementOf(model, entry);
    if (status === 'LEGACY') {
      const since = day(lifecycle?.legacyTime);
      const eol = day(lifecycle?.endOfLifeTime) ?? entry?.eol;
      return {
        check,
        ok: true,
        warning: true,
        detail:
          `${base} is LEGACY${since ? ` since ${since}` : ''} in ${region}, ` +
          `${eol ? `end of life ${eol}` : 'its end of life not yet announced'}: new accounts cannot use it, and ` +
          'an account idle on it for 15 days loses it',
        fix: moveFix(replacement),
      };
    }
    if (status === 'ACTIVE' && entry?.status === 'legacy')
      return {
        check,
        ok: true,
        warning: true,
        detail:
          `${base} is ACTIVE in ${region}, but its vendor labels it Legacy (${entry.status_source ?? entry.source}, ` +
          `read ${entry.read}): Bedrock may follow`,
        fix: moveFix(replacement),
      };
    return { check, ok: true, detail: `${base} is ${status} in ${region}` };
  } catch (err) {
    const e = err as Error;
    return {
      check,
      ok: e.name === 'AccessDeniedException',
      skipped: e.name === 'AccessDeniedException',
      detail: `${e.name}: ${e.message}`,
      fix:
        e.name === 'AccessDeniedException'
          ? `allow bedrock:GetFoundationModel to your identity (${commandPrefix()} policy researcher --bedrock)`
          : `${base} is not offered in ${region} (or past its end of life): deploy an Active model`,
    };
  } finally {
    client.destroy();
  }
}

export async function bedrockChecks(models: string[], region: string, prefix: string): Promise<Check[]> {
  if (models.length === 0)
    return [{ check: 'Bedrock models', ok: true, skipped: true, detail: 'the deployment names no Bedrock model' }];
  const { BedrockRuntimeClient } = await import('@aws-sdk/client-bedrock-runtime');
  const client = new BedrockRuntimeClient({ region, maxAttempts: 2 });
  try {
    const checks: Check[] = [];
    for (const model of models) {
      checks.push(await lifecycleCheck(model, region));
      const check = `Bedrock ${model}`;
      try {
        const reply = await probeBedrockModel(client, model);
        checks.push({ check, ok: true, detail: `answers in ${region} (${reply.usage?.totalTokens ?? '?'} tokens)` });
      } catch (err) {
        const e = err as Error;
        const over = throttled(e);
        const access = diagnoseBedrockAccess(e, { model, region, command: commandPrefix() });
        checks.push({
          check,
          ok: over,
          detail: `${e.name}: ${e.message}`,
          fix: over ? undefined : (access?.fix ?? fallbackFix(e, model, region, prefix)),
        });
      }
    }
    // each model's tokens- and requests-per-minute quotas in this Region (what sweeps default rate_limits to)
    checks.push(...(await bedrockQuotaChecks(models, region)));
    return checks;
  } finally {
    client.destroy();
  }
}
