// Amazon Bedrock over Converse (@aws-sdk/client-bedrock-runtime) with a toolConfig; tool results go back as toolResult
// blocks in a user message; the SDK's retries are off (ours log every retry). Converse has no seed (provenance says).
// Wire formats: stopReason (aws-facts: bedrock.converse-stop-reasons); reasoning sent back unmodified, text and
// signature (aws-facts: bedrock.reasoning-signature-unmodified);
// Claude's thinking in additionalModelRequestFields.thinking (aws-facts: bedrock.thinking-min-budget-tokens).
import type {
  BedrockRuntimeClient,
  ConverseCommand,
  ContentBlock,
  ConverseCommandOutput,
  TokenUsage as TokenUsageWire,
  Message,
  Tool,
} from '@aws-sdk/client-bedrock-runtime';
import { announcedSimulator, isTruncation, type ChatMessage, type ChatModel, type ModelReply } from './chat-model.ts';
import { baseModelId, inferenceProfileOf } from '../../config/model-table.ts';
import type { BedrockInference } from './sampling.ts';
import type { ToolSpec } from '../../engine/tools.ts';
import { isTransientStatus, networkFailure, type Failure } from './retry.ts';
import { withCachePoints } from './bedrock-caching.ts';
import { diagnoseBedrockAccess, type FixContext } from './bedrock-access.ts';

export interface BedrockSettings {
  region: string;
  endpoint?: string;
  max_tokens?: number;
  temperature?: number;
  /** Cache points after the tools and the system prompt, for models that take them (bedrock-caching.ts). */
  prompt_caching: boolean;
}

function toWire(messages: ChatMessage[], toolsOffered: boolean): Message[] {
  const out: Message[] = [];
  // Converse refuses toolUse/toolResult blocks without a toolConfig, and a toolConfig needs a tool:
  // a call that offers none (a workflow's thinking step) carries the earlier tool traffic as text.
  const wire = toolsOffered ? toWireMessage : toTextMessage;
  // Converse wants user and assistant to alternate: a workflow step's prompt right after
  // tool results joins them in one user message.
  for (const m of messages.map(wire)) {
    const prev = out.at(-1);
    if (prev && prev.role === m.role) prev.content = [...(prev.content ?? []), ...(m.content ?? [])];
    else out.push(m);
  }
  return out;
}

/**
 * A user message's text, then its pictures as image blocks (ImageBlock: format "png", source.bytes; the SDK
 * base64-encodes the bytes on the wire).
 */
function userContent(m: Extract<ChatMessage, { role: 'user' }>): ContentBlock[] {
  return [
    { text: m.text },
    ...(m.images ?? []).map((i) => ({ image: { format: 'png' as const, source: { bytes: i.png } } })),
  ];
}

function toWireMessage(m: ChatMessage): Message {
  if (m.role === 'user') return { role: 'user', content: userContent(m) };
  if (m.role === 'assistant') {
    const content: ContentBlock[] = [];
    // the reasoning goes back first and unmodified, as the model gave it (ReasoningTextBlock: "include the text
    // and its signature unmodified")
    if (m.reasoning)
      content.push({
        reasoningContent: { reasoningText: { text: m.reasoning.text, signature: m.reasoning.signature } },
      });
    if (m.text) content.push({ text: m.text });
    for (const c of m.calls)
      content.push({ toolUse: { toolUseId: c.id, name: c.name, input: (c.arguments ?? {}) as never } });
    return { role: 'assistant', content };
  }
  return {
    role: 'user',
    content: m.results.map((r) => ({
      toolResult: { toolUseId: r.id, content: [{ text: r.content }], status: r.ok ? 'success' : 'error' },
    })),
  };
}

function toTextMessage(m: ChatMessage): Message {
  if (m.role === 'user') return { role: 'user', content: userContent(m) };
  if (m.role === 'assistant') {
    const calls = m.calls.map((c) => `${c.name} ${JSON.stringify(c.arguments ?? {})}`).join('\n');
    return { role: 'assistant', content: [{ text: [m.text, calls].filter(Boolean).join('\n') || '(no text)' }] };
  }
  return { role: 'user', content: [{ text: m.results.map((r) => `${r.name}: ${r.content}`).join('\n') }] };
}

function bedrockTools(tools: ToolSpec[]): Tool[] {
  return tools.map((t) => ({
    toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.parameters as never } },
  }));
}

/**
 * `inference`: what sampling.ts settles for the experiment; left out (tools and tests that build a model alone),
 * the section's own max_tokens (default 1024) and temperature are sent as given.
 */
export function bedrockModel(
  model: string,
  settings: BedrockSettings,
  credentials?: { accessKeyId: string; secretAccessKey: string },
  inference?: BedrockInference,
): ChatModel {
  const sent: BedrockInference = inference ?? {
    maxTokens: settings.max_tokens ?? 1024,
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
  };
  let client: BedrockRuntimeClient | undefined;
  return {
    provider: 'bedrock',
    model,
    async complete(system, messages, tools, signal): Promise<ModelReply> {
      const sdk = await bedrockRuntime();
      client ??= new sdk.BedrockRuntimeClient({
        region: settings.region,
        maxAttempts: 1,
        ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
        ...(credentials ? { credentials } : {}),
      });
      const command = converseCommand(sdk.ConverseCommand, model, settings, sent, { system, messages, tools });
      const simulator = listenForSimulator(command);
      const res = await client.send(command, { abortSignal: signal });
      return readReply(res, simulator());
    },
    // Nothing to ask the service: the model or profile, the Region and what is sent are what identifies the answers.
    provenance: () => Promise.resolve(bedrockProvenance(model, settings, sent)),
  };
}

/** The SDK, loaded once, by the first call: the CLI imports this, and most runs never call Bedrock. */
let runtimeModule: Promise<typeof import('@aws-sdk/client-bedrock-runtime')> | undefined;
const bedrockRuntime = () => (runtimeModule ??= import('@aws-sdk/client-bedrock-runtime'));

/** The Converse request: cache points where the model takes them, thinking when a budget is set. */
function converseCommand(
  Converse: typeof ConverseCommand,
  model: string,
  settings: BedrockSettings,
  sent: BedrockInference,
  { system, messages, tools }: { system: string; messages: ChatMessage[]; tools: ToolSpec[] },
): ConverseCommand {
  const { reasoningBudgetTokens, notSent: _notSent, thinksByDefault: _thinks, ...inferenceConfig } = sent;
  const cached = withCachePoints(model, settings.prompt_caching, [{ text: system }], bedrockTools(tools));
  return new Converse({
    modelId: model,
    system: cached.system,
    messages: toWire(messages, tools.length > 0),
    ...(tools.length > 0 ? { toolConfig: { tools: cached.tools } } : {}),
    inferenceConfig,
    ...(reasoningBudgetTokens !== undefined
      ? {
          additionalModelRequestFields: {
            thinking: { type: 'enabled', budget_tokens: reasoningBudgetTokens },
          },
        }
      : {}),
  });
}

/**
 * The simulator a reply came from, read from the raw response's headers (SIMULATOR_HEADER) by a middleware of this
 * command; the returned function gives it once the command was sent.
 */
function listenForSimulator(command: ConverseCommand): () => string | null {
  let simulator: string | null = null;
  command.middlewareStack.add(
    (next) => async (args) => {
      const out = await next(args);
      simulator = announcedSimulator((out.response as { headers?: Record<string, string> }).headers);
      return out;
    },
    { step: 'deserialize', name: 'ariadneSimulatorAnnouncement' },
  );
  return () => simulator;
}

/** The reply's text, tool calls, reasoning (with its signature, to send back) and usage. */
function readReply(res: ConverseCommandOutput, simulator: string | null): ModelReply {
  const blocks = res.output?.message?.content ?? [];
  const text = blocks.map((b) => b.text ?? '').join('');
  const reasoningBlocks = blocks.flatMap((b) =>
    b.reasoningContent?.reasoningText ? [b.reasoningContent.reasoningText] : [],
  );
  const signature = reasoningBlocks.find((r) => r.signature)?.signature;
  const calls = blocks
    .filter((b) => b.toolUse)
    .map((b) => ({ id: b.toolUse!.toolUseId ?? '', name: b.toolUse!.name ?? '', arguments: b.toolUse!.input }));
  const stopReason = res.stopReason ?? null;
  return {
    text,
    calls,
    usage: bedrockUsage(res.usage),
    stopReason,
    truncated: isTruncation(stopReason),
    reasoning:
      reasoningBlocks.length > 0
        ? { text: reasoningBlocks.map((r) => r.text ?? '').join('\n'), ...(signature ? { signature } : {}) }
        : null,
    simulator,
  };
}

function bedrockUsage(u: TokenUsageWire | undefined): ModelReply['usage'] {
  // inputTokens excludes what was read from or written to the cache (the User Guide's prompt caching page)
  return u
    ? {
        inputTokens: u.inputTokens ?? 0,
        outputTokens: u.outputTokens ?? 0,
        ...(u.cacheReadInputTokens !== undefined ? { cacheReadInputTokens: u.cacheReadInputTokens } : {}),
        ...(u.cacheWriteInputTokens !== undefined ? { cacheWriteInputTokens: u.cacheWriteInputTokens } : {}),
      }
    : null;
}

function bedrockProvenance(model: string, settings: BedrockSettings, sent: BedrockInference) {
  const { reasoningBudgetTokens, notSent, thinksByDefault, ...inferenceConfig } = sent;
  const profile = inferenceProfileOf(model);
  return {
    provider: 'bedrock',
    model_id: model,
    base_model_id: baseModelId(model),
    inference_profile: profile === null ? null : model,
    region: settings.region,
    endpoint: settings.endpoint ?? null,
    inference_config_sent: inferenceConfig,
    ...(reasoningBudgetTokens !== undefined
      ? {
          thinking_budget_tokens: reasoningBudgetTokens,
          sampling_note: 'temperature and top_p not sent with thinking',
        }
      : {}),
    // what the config holds but the model refuses, each with its reason (sampling.ts)
    ...(notSent ? { not_sent: notSent } : {}),
    ...(thinksByDefault
      ? {
          thinking: 'the model default (adaptive, no thinking field sent)',
          max_tokens_note: `maxTokens ${inferenceConfig.maxTokens} caps thinking plus reply text`,
        }
      : {}),
    seed: { sent: false, note: 'Converse takes no seed: repeats on Bedrock are not seeded' },
  };
}

/**
 * `ctx` (the model and Region called): an access problem (bedrock-access.ts: no marketplace subscription, use case
 * form, Legacy or end-of-life model, a base id that needs a profile, no grant) is permanent and its message carries
 * the fix, so the experiment ends naming it instead of being retried as a provider fault.
 */
export function classifyBedrockError(err: unknown, ctx?: FixContext): Failure {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode;
  const access = ctx && typeof status === 'number' ? diagnoseBedrockAccess(e, ctx) : null;
  if (access && typeof status === 'number')
    return {
      transient: false,
      status,
      message: `${e.name}: ${e.message ?? ''} (${access.problem}; fix: ${access.fix})`,
    };
  if (typeof status === 'number') {
    const transient =
      isTransientStatus(status) ||
      [
        'ThrottlingException',
        'ModelNotReadyException',
        'ServiceUnavailableException',
        'InternalServerException',
        'ModelTimeoutException',
      ].includes(e.name ?? '');
    return { transient, status, message: `${e.name ?? 'Error'}: ${e.message ?? ''}` };
  }
  const net = networkFailure(err);
  if (net) return net;
  if (e?.name === 'AbortError') return { transient: true, status: 'timeout', message: 'no reply within the timeout' };
  return { transient: false, status: 'error', message: `${e?.name ?? 'Error'}: ${e?.message ?? String(err)}` };
}
