// Bedrock prompt caching: which models take cache points, where, and from how many tokens on, and the cache points a
// Converse request gets. The figures are the facts table's (aws-facts: bedrock.prompt-cache-models and the other
// bedrock.prompt-cache-* facts), which the Bedrock simulator reads too. With caching, inputTokens counts only tokens
// neither read from nor written to the cache; a cache point sent to a model without caching is refused with a 400
// (reported in github.com/cline/cline/issues/2064, not in AWS's docs).
import type { SystemContentBlock, Tool } from '@aws-sdk/client-bedrock-runtime';
import { fact } from '../../../aws-facts/facts.ts';
import { baseModelId } from '../../config/model-table.ts';

type CacheField = 'system' | 'messages' | 'tools';

export interface PromptCacheSupport {
  /** Tokens a checkpoint's prefix needs; the n-th checkpoint needs n times as many. */
  minTokens: number;
  maxCheckpoints: number;
  fields: readonly CacheField[];
}

/** The default and only TTL we use (1 hour exists for a few models, not asked for here). */
export const PROMPT_CACHE_TTL_MS = fact('bedrock.prompt-cache-default-ttl-ms').value;

/**
 * Base model id -> support: the page's table, and the models of its earlier table (Claude Opus 4.1, Sonnet 4, 3.5
 * Haiku, Amazon Nova) that the current page leaves to their model cards. Claude 3.5 Sonnet v2 is left out: its
 * caching stayed a preview for few accounts.
 */
const SUPPORT: Record<string, PromptCacheSupport> = {
  ...fact('bedrock.prompt-cache-models-earlier').value,
  ...fact('bedrock.prompt-cache-models').value,
};

export { baseModelId };

export function promptCacheSupport(model: string): PromptCacheSupport | null {
  return SUPPORT[baseModelId(model)] ?? null;
}

/**
 * The system blocks and tools of a request, with a cache point after the tools and after the system prompt where
 * caching is on and the model takes one there. Both are static for a whole experiment, so every call after the
 * first reads them from the cache (within the TTL); the conversation itself changes every turn and gets none.
 */
export function withCachePoints(
  model: string,
  enabled: boolean,
  system: SystemContentBlock[],
  tools: Tool[],
): { system: SystemContentBlock[]; tools: Tool[] } {
  const support = enabled ? promptCacheSupport(model) : null;
  if (!support) return { system, tools };
  const point = { cachePoint: { type: 'default' as const } };
  return {
    system: support.fields.includes('system') ? [...system, point] : system,
    tools: support.fields.includes('tools') && tools.length > 0 ? [...tools, point] : tools,
  };
}
