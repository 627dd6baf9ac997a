// The Bedrock simulator's prompt cache: checks a Converse request's cache points against the facts table
// (aws-facts: bedrock.prompt-cache-*, read there and not from the project's bedrock-caching.ts, so the two cannot
// share a mistake) and counts what the service would read and write: each checkpoint caches the prefix up to it
// (tools -> system -> messages), the n-th needs n times the minimum (below it, no caching and no error), and a prefix
// lives for the TTL.
import { tokensOf } from './sim-player.ts';
import { simBaseModel } from './bedrock-catalog.ts';
import { fact } from '../aws-facts/facts.ts';

type Field = 'tools' | 'system' | 'messages';
interface Support {
  minTokens: number;
  maxCheckpoints: number;
  fields: readonly Field[];
}

/** Documented models, and those of the page's earlier table (unconfirmed there, kept as the service behaved). */
const MODELS: Record<string, Support> = {
  ...fact('bedrock.prompt-cache-models-earlier').value,
  ...fact('bedrock.prompt-cache-models').value,
};
const TTL_MS = fact('bedrock.prompt-cache-default-ttl-ms').value;
const ORDER = fact('bedrock.prompt-cache-checkpoint-order').value;

type Block = Record<string, unknown> & { cachePoint?: { type?: string } };
interface ConverseBody {
  system?: Block[];
  messages?: Array<{ role: string; content: Block[] }>;
  toolConfig?: { tools?: Block[] };
}

/** As observed from Bedrock (HTTP 400, github.com/cline/cline/issues/2064); the AWS docs do not quote it. */
export const UNSUPPORTED_CACHING =
  'You invoked an unsupported model or your request did not allow prompt caching. See the documentation for more ' +
  'information.';

export type CacheOutcome = { error: string } | { used: false } | { used: true; read: number; write: number };

interface Checkpoint {
  field: Field;
  prefix: string;
  tokens: number;
}

export class SimPromptCache {
  /** model + prefix -> when it expires (ms) */
  private readonly entries = new Map<string, number>();
  /** The clock; tests move it to expire entries. */
  now: () => number = () => Date.now();

  apply(model: string, body: ConverseBody): CacheOutcome {
    const points = checkpoints(body);
    if (points.length === 0) return { used: false };
    const support = MODELS[simBaseModel(model)];
    if (!support || points.some((p) => !support.fields.includes(p.field))) return { error: UNSUPPORTED_CACHING };
    if (points.length > support.maxCheckpoints)
      // wording not documented for Converse; the limit is (4 per request, the User Guide's table)
      return { error: `A maximum of ${support.maxCheckpoints} cache points may be provided. Found ${points.length}.` };
    // the n-th checkpoint that counts needs n times the minimum: fact('bedrock.prompt-cache-minimum-per-checkpoint')
    const effective: Checkpoint[] = [];
    for (const p of points) if (p.tokens >= (effective.length + 1) * support.minTokens) effective.push(p);
    const now = this.now();
    const key = (p: Checkpoint) => `${model}\n${p.prefix}`;
    const hit = effective.findLast((p) => (this.entries.get(key(p)) ?? 0) > now);
    const read = hit?.tokens ?? 0;
    const last = effective.at(-1);
    const write = last && last.tokens > read ? last.tokens - read : 0;
    // a hit restarts the TTL as a write does: fact('bedrock.prompt-cache-ttl-reset-on-hit')
    for (const p of effective) this.entries.set(key(p), now + TTL_MS);
    return { used: true, read, write };
  }
}

/** The request's cache points, each with the prefix before it (tools, then system, then messages). */
function checkpoints(body: ConverseBody): Checkpoint[] {
  const out: Checkpoint[] = [];
  let prefix = '';
  const walk = (field: Checkpoint['field'], blocks: Block[], head = '') => {
    prefix += head;
    for (const b of blocks) {
      if (b.cachePoint) out.push({ field, prefix, tokens: tokensOf(prefix) });
      else prefix += JSON.stringify(b);
    }
  };
  for (const field of ORDER)
    if (field === 'tools') walk('tools', body.toolConfig?.tools ?? []);
    else if (field === 'system') walk('system', body.system ?? []);
    else for (const m of body.messages ?? []) walk('messages', m.content ?? [], m.role);
  return out;
}
