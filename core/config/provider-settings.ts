// The config's sections for the model providers: each server's settings, the retry rule of a model call, prices and
// rate limits. Each setting is described where it is declared (setting-meta.ts); experiment-config.ts assembles them.
import { z } from 'zod';
import { defaultPrices } from './model-table.ts';
import { setting } from './setting-meta.ts';

const perMtok = (what: string) =>
  setting(z.number().min(0).max(10_000), { description: `USD per million ${what} tokens` });

const tokenPrices = {
  input_per_mtok: perMtok('input'),
  output_per_mtok: perMtok('output (reasoning included)'),
  cache_read_per_mtok: perMtok('prompt-cache read').optional(),
  cache_write_per_mtok: perMtok('prompt-cache write').optional(),
};

// A price left out for cache reads or writes is charged at input_per_mtok; unknown models cost null, not a guess.
const priceSchema = z
  .object({
    ...tokenPrices,
    // a request whose input, cache read and write tokens together pass above_prompt_tokens is billed wholly here
    long_prompt: z
      .object({ above_prompt_tokens: z.number().int().min(1), ...tokenPrices })
      .strict()
      .optional(),
  })
  .strict();

export const pricesSchema = setting(z.record(z.string().min(1).max(200), priceSchema).default(defaultPrices()), {
  description:
    'USD per million tokens by model id: input_per_mtok, output_per_mtok, cache_read_per_mtok, cache_write_per_mtok ' +
    '(a cache price left out is charged at input_per_mtok; a model without a price costs null)',
  why: "your contract prices; the defaults are the model table's list prices (agents-and-providers.md)",
  defaultText: 'the model table',
});

export const retrySchema = setting(
  z
    .object({
      max_attempts: setting(z.number().int().min(1).max(20).default(5), {
        description: 'tries of one model call, the first included',
      }),
      base_delay_ms: setting(z.number().int().min(0).max(60_000).default(500), {
        description: 'the first backoff delay; each next one doubles (full jitter)',
      }),
      max_delay_ms: setting(z.number().int().min(0).max(600_000).default(20_000), {
        description: 'the longest backoff delay',
      }),
      max_total_ms: setting(z.number().int().min(0).max(3_600_000).default(120_000), {
        description: 'give up (ProviderTransientError) once retrying has taken this long',
      }),
      timeout_ms: setting(z.number().int().min(10).max(3_600_000).default(120_000), {
        description: 'one attempt may take this long; with the retries it must fit the model turn (refused otherwise)',
      }),
    })
    .strict(),
  { description: 'how a model call that fails for a passing reason is tried again inside one turn' },
);

export const ollamaSchema = setting(
  z
    .object({
      host: setting(z.string().url().default('http://127.0.0.1:11434'), {
        description: 'the Ollama server (host:port or a URL); hosted Ollama reads its key from $OLLAMA_API_KEY',
        flag: '--ollama-host',
        placeholder: 'url',
        env: 'OLLAMA_HOST',
        fromFlag: (raw) => (raw.includes('://') ? raw : `http://${raw}`),
      }),
      num_ctx: setting(z.number().int().min(256).max(1_048_576).default(32_768), {
        description: "Ollama's context window (options.num_ctx)",
        why:
          'Ollama cuts a longer prompt silently: the call is flagged prompt_truncated; the guard keeps ' +
          'max_output_tokens of it free for the reply, so a cap at or above it is refused at start',
      }),
      temperature: setting(z.number().min(0).max(2).optional(), {
        description: 'overrides the shared temperature for Ollama; left out, the shared one is sent',
      }),
      repeat_penalty: setting(z.number().min(0).max(10).optional(), {
        description: "options.repeat_penalty, sent only when set (Ollama's own default is 1.1)",
      }),
      think: setting(z.union([z.boolean(), z.enum(['low', 'medium', 'high'])]).optional(), {
        description: "Ollama's think field: true, false, or a level (gpt-oss); left out, the model's default",
        why: 'reasoning as a factor',
      }),
      stream: setting(z.boolean().default(false), {
        description: 'ask Ollama (NDJSON) or the OpenAI-compatible server (server-sent events) to stream replies',
        flag: '--stream',
      }),
    })
    .strict(),
  { description: 'the Ollama server and what it is sent' },
);

/** Chat completions' reasoning_effort values (the openai client's Shared.ReasoningEffort, v6.49). */
const OPENAI_REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

export const openaiSchema = setting(
  z
    .object({
      base_url: setting(z.string().url().default('http://127.0.0.1:8000/v1'), {
        description: 'the OpenAI-compatible server, /v1 included; its key is read from $OPENAI_API_KEY',
        flag: '--openai-base-url',
        placeholder: 'url',
        env: 'OPENAI_BASE_URL',
      }),
      reasoning_effort: setting(z.enum(OPENAI_REASONING_EFFORTS).optional(), {
        description: "reasoning_effort, sent only when set (left out: the model's default)",
        why: 'reasoning as a factor',
      }),
      parallel_tool_calls: setting(z.boolean().optional(), {
        description: "parallel_tool_calls, sent only when set (left out: the server's default, true on OpenAI)",
      }),
      sampling: setting(z.boolean().optional(), {
        description:
          "whether temperature and top_p are sent; left out: sent, except to OpenAI's reasoning models, which " +
          'answer them with a 400',
      }),
      output_cap_field: setting(z.enum(['max_completion_tokens', 'max_tokens']).default('max_completion_tokens'), {
        description: 'the field that carries max_output_tokens (max_tokens for servers without the other)',
      }),
      stream: setting(z.boolean().default(false), {
        description: 'ask Ollama (NDJSON) or the OpenAI-compatible server (server-sent events) to stream replies',
        flag: '--stream',
      }),
    })
    .strict(),
  { description: 'any server that speaks chat completions (vLLM, llama.cpp, LM Studio, OpenAI, OpenRouter)' },
);

export const bedrockSchema = setting(
  z
    .object({
      region: setting(
        z
          .string()
          .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region such as us-east-1')
          .default('us-east-1'),
        { description: 'the AWS region for Bedrock', flag: '--region', placeholder: 'region' },
      ),
      endpoint: setting(z.string().url().optional(), {
        description: 'Bedrock Runtime endpoint override (a simulator or a VPC endpoint); left out, the regional one',
        flag: '--bedrock-endpoint',
        placeholder: 'url',
      }),
      max_tokens: setting(z.number().int().min(1).max(200_000).optional(), {
        description: 'overrides the shared max_output_tokens for Bedrock (maxTokens)',
      }),
      temperature: setting(z.number().min(0).max(1).optional(), {
        description: 'overrides the shared temperature for Bedrock',
      }),
      reasoning_budget_tokens: setting(z.number().int().min(1024).max(200_000).optional(), {
        description:
          "Claude's extended thinking (thinking.budget_tokens, below maxTokens); then no temperature or top_p is " +
          'sent, which Claude refuses beside thinking',
        why: 'reasoning as a factor',
      }),
      prompt_caching: setting(z.boolean().default(true), {
        description: 'cache points after the tools and the system prompt, for models that support prompt caching',
        why:
          'cached input is cheaper and reported apart (priced at cache_read_per_mtok and cache_write_per_mtok); ' +
          "below a model's minimum (1,024+ tokens) nothing is cached",
      }),
    })
    .strict(),
  { description: 'Amazon Bedrock (Converse)' },
);

const rateLimitSchema = z
  .object({
    requests_per_minute: z.number().int().min(1).max(10_000_000).optional(),
    tokens_per_minute: z.number().int().min(1).max(1_000_000_000).optional(),
    /** The provider's counting window: 60 for real services; lower only to scale a simulated limit down. */
    window_seconds: z.number().min(0.1).max(3_600).default(60),
  })
  .strict();

/** "provider:model" (exact) or "provider:*" (every model of the provider not listed). */
const RATE_LIMIT_KEY = /^(ollama|bedrock|openai):.{1,200}$/;

export const rateLimitsSchema = setting(
  z.record(z.string(), rateLimitSchema).superRefine((limits, ctx) => {
    for (const key of Object.keys(limits))
      if (!RATE_LIMIT_KEY.test(key))
        ctx.addIssue({
          code: 'custom',
          path: [key],
          input: key,
          message:
            `"${key}" is not a rate limit key: rename it "<provider>:<model>" or "<provider>:*" with provider ` +
            'ollama, bedrock or openai, e.g. "bedrock:amazon.nova-lite-v1:0"',
        });
  }),
  {
    description:
      'per "provider:model" or "provider:*": requests_per_minute, tokens_per_minute (window_seconds: 60), shared ' +
      'by every experiment running at once through the database',
    why: "your account's quotas, so a sweep runs near the limit instead of losing turns to throttling",
    defaultText: 'none',
  },
);
