// Per-model request rules of the Claude models from Opus 4.7 on, as their own pages state them (AWS's adaptive
// thinking page, aws-facts: bedrock.adaptive-thinking-only-models, and Anthropic's migration guides and model cards,
// listed above RULES), kept apart from core/config/model-table.ts so that a mistake there fails against these. The
// sampling message is reported third-party: "`temperature` is deprecated for this model." (cline/cline issue 10572).

import { simBaseModel } from './bedrock-catalog.ts';
import { fact } from '../aws-facts/facts.ts';

export interface ClaudeRequestRules {
  /** temperature / topP in inferenceConfig answered with a 400. */
  refusesSampling: boolean;
  /** thinking {type: "enabled", budget_tokens} answered with a 400. */
  refusesManualThinking: boolean;
  /** thinking {type: "disabled"} answered with a 400. */
  refusesDisabledThinking: boolean;
  /** With no thinking field, the reply starts with a reasoning block (and maxTokens counts it). */
  thinksByDefault: boolean;
}

// - AWS's adaptive thinking page: its adaptive-only models refuse manual and disabled thinking with a 400; applied
//   over the rows below (ADAPTIVE_ONLY).
// - Anthropic's Sonnet 5 migration guide: adaptive thinking on by default, manual thinking a 400, temperature, top_p
//   or top_k at non-default values a 400, as on Opus 4.7 and Opus 4.8; Opus 5 and Sonnet 5.5 think by default (their
//   "what's new" pages); Fable 5.1 "adaptive (always on)" (Anthropic's models overview).
// - AWS's Opus 5.5 model card: adaptive thinking always on, not to be disabled. Anthropic's Haiku 5.5 migration
//   guide: no temperature, top_p or top_k; adaptive budgets; thinking can still be disabled (third-party: vercel/ai's
//   Bedrock provider, 2026-10-07).
const RULES: Array<[RegExp, ClaudeRequestRules]> = [
  [
    /^anthropic\.claude-opus-4-[78]\b/,
    { refusesSampling: true, refusesManualThinking: true, refusesDisabledThinking: false, thinksByDefault: false },
  ],
  [
    /^anthropic\.claude-opus-5-5\b/,
    { refusesSampling: true, refusesManualThinking: true, refusesDisabledThinking: true, thinksByDefault: true },
  ],
  [
    /^anthropic\.claude-(sonnet-5|opus-5|haiku-5)(-\d+)?\b/,
    { refusesSampling: true, refusesManualThinking: true, refusesDisabledThinking: false, thinksByDefault: true },
  ],
  [
    /^anthropic\.claude-(fable|mythos)-5(-\d+)?\b/,
    { refusesSampling: true, refusesManualThinking: true, refusesDisabledThinking: true, thinksByDefault: true },
  ],
];

const NO_RULES: ClaudeRequestRules = {
  refusesSampling: false,
  refusesManualThinking: false,
  refusesDisabledThinking: false,
  thinksByDefault: false,
};
const ADAPTIVE_ONLY: readonly string[] = fact('bedrock.adaptive-thinking-only-models').value;
/** A base model id is one of the page's ids, or a version of one (anthropic.claude-opus-4-7-v1:0). */
const adaptiveOnly = (base: string) =>
  ADAPTIVE_ONLY.some((id) => base === id || base.startsWith(`${id}-v`) || base.startsWith(`${id}:`));

/** The rules for a model id or inference profile id (us.anthropic..., global.anthropic...); null: none apply. */
export function claudeRequestRules(modelId: string): ClaudeRequestRules | null {
  const base = simBaseModel(modelId);
  const rules = RULES.find(([re]) => re.test(base))?.[1] ?? null;
  if (!adaptiveOnly(base)) return rules;
  return { ...(rules ?? NO_RULES), refusesManualThinking: true, refusesDisabledThinking: true };
}

/** The 400 a request breaking the model's rules gets, or null. */
export function claudeRuleViolation(
  rules: ClaudeRequestRules | null,
  inference: { temperature?: number; topP?: number } | undefined,
  thinking: { type?: string } | undefined,
): string | null {
  if (!rules) return null;
  if (rules.refusesSampling && inference?.temperature !== undefined)
    return '`temperature` is deprecated for this model.';
  if (rules.refusesSampling && inference?.topP !== undefined) return '`top_p` is deprecated for this model.';
  if (rules.refusesManualThinking && thinking?.type === 'enabled')
    return '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" instead.';
  if (rules.refusesDisabledThinking && thinking?.type === 'disabled')
    return '"thinking.type.disabled" is not supported for this model.';
  return null;
}
