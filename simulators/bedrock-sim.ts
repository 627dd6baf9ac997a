// A local server speaking the Bedrock Runtime Converse API (POST /model/{modelId}/converse, REST-JSON) with a
// simulated model that plays, reached by the real @aws-sdk/client-bedrock-runtime through `endpoint`. Errors carry
// x-amzn-ErrorType and {"message"}; maxTokens cuts a reply (aws-facts: bedrock.converse-stop-reasons); Claude's
// extended thinking is checked (aws-facts: bedrock.thinking-min-budget-tokens), its reasoning and signature verified
// when sent back. Claude models from Opus 4.7 on follow their own rules (bedrock-model-rules.ts).
import { pictureBytes, withPicturesRead } from './picture-reader.ts';

const MAX_IMAGES = fact('bedrock.converse-max-images-per-message').value;
const STOP_REASONS = fact('bedrock.converse-stop-reasons').value;
type StopReason = (typeof STOP_REASONS)[number];
/** A stop reason Converse documents: a name outside the list fails typecheck, and here if it came in by a cast. */
const stopReason = (reason: StopReason): StopReason => {
  if (!STOP_REASONS.includes(reason)) throw new Error(`not a Converse stopReason: ${String(reason)}`);
  return reason;
};
/** Reasoning must come back as it was given, text and signature both. */
const REASONING_UNMODIFIED = fact('bedrock.reasoning-signature-unmodified').value;
const LIFECYCLE_STATUS = fact('bedrock.foundation-model-lifecycle-status').value;
const MAX_IMAGE_PX = fact('bedrock.converse-max-image-px').value;
/** 3.75 MB, as the same sentence of Message.content gives it, read as 3,750,000 bytes: the stricter reading. */
const MAX_IMAGE_BYTES = 3_750_000;
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimServer, type Fault, type LoggedRequest, type ModelTurn, type SimOptions } from './sim-server.ts';
import type { RequestAuthorization } from './authorization.ts';
import { tokensOf } from './sim-player.ts';
import { SimPromptCache } from './bedrock-prompt-cache.ts';
import { fact } from '../aws-facts/facts.ts';
import { claudeRequestRules, claudeRuleViolation } from './bedrock-model-rules.ts';
import {
  accountRefusal,
  needsProfile,
  simBaseModel,
  setUpSimAccount,
  SIM_DEFAULT_MODELS,
  simModelLifecycle,
  type SimModelLifecycle,
  type SimAccount,
} from './bedrock-catalog.ts';

const MIN_THINKING_BUDGET = fact('bedrock.thinking-min-budget-tokens').value;

const ERROR_TYPES: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

function awsError(
  res: ServerResponse,
  status: number,
  message: string,
  type = ERROR_TYPES[status] ?? 'InternalServerException',
) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': randomBytes(16).toString('hex'),
  });
  res.end(JSON.stringify({ message }));
}

type Block = {
  cachePoint?: { type: string };
  reasoningContent?: { reasoningText?: { text: string; signature?: string } };
  text?: string;
  toolUse?: { toolUseId: string; name: string; input: unknown };
  toolResult?: { toolUseId: string; content: Array<{ text?: string }>; status?: string };
  image?: { format: string; source: { bytes: string } };
};

export class BedrockSim extends SimServer {
  protected override readonly http2 = true;
  private readonly authorizer?: RequestAuthorization;
  /** What the service keeps between calls for prompt caching; its clock can be moved by tests. */
  readonly promptCache = new SimPromptCache();
  /** The reasoning this simulator gave, text by signature: only those come back valid. */
  private readonly signatures = new Map<string, string>();

  /** The calling account: use case, Marketplace subscriptions, Legacy access (bedrock-catalog.ts). */
  account: SimAccount;

  /**
   * Lifecycles that differ from the catalog's, by base model id: a model AWS moves to Legacy (or past its end of
   * life) after the catalog was written, for its calls and GetFoundationModel alike.
   */
  readonly lifecycles = new Map<string, SimModelLifecycle>();

  private lifecycleOf(id: string): SimModelLifecycle {
    return this.lifecycles.get(simBaseModel(id)) ?? simModelLifecycle(id);
  }

  /**
   * `authorizer`: the rehearsal's IAM check of each signed request (bedrock:InvokeModel, RequestAuthorization).
   * `account`: a new account's state (newSimAccount) instead of one already set up.
   */
  constructor(opts: SimOptions & { authorizer?: RequestAuthorization; account?: SimAccount } = {}) {
    super(opts);
    this.authorizer = opts.authorizer;
    this.account = opts.account ?? setUpSimAccount();
  }
  protected readonly simulatorName = 'bedrock';

  protected defaultModels() {
    return [...SIM_DEFAULT_MODELS];
  }
  /**
   * GetFoundationModel (control plane, GET /foundation-models/{modelIdentifier}): modelLifecycle.status is ACTIVE or
   * LEGACY (aws-facts: bedrock.foundation-model-lifecycle-status); a model past its end of life, or unknown, is not
   * found. Authorized as bedrock:GetFoundationModel on the foundation-model ARN (Service Authorization Reference).
   */
  private async getFoundationModel(req: LoggedRequest, res: ServerResponse, id: string): Promise<void> {
    if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256'))
      return awsError(res, 403, 'Missing Authentication Token', 'AccessDeniedException');
    if (this.authorizer) {
      const result = await this.authorizer.check(req.headers, 'rest-json', (s) => [
        {
          action: 'bedrock:GetFoundationModel',
          resource: `arn:${s.partition}:bedrock:${s.region}::foundation-model/${id}`,
        },
      ]);
      if (!result.ok) {
        res.writeHead(result.reply.status, result.reply.headers);
        res.end(result.reply.body);
        return;
      }
    }
    const { status: lifecycle, ...dates } = this.lifecycleOf(id);
    if (!this.models.some((m) => simBaseModel(m) === id) || lifecycle === 'end-of-life')
      return awsError(res, 404, 'The requested model was not found.', 'ResourceNotFoundException');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        modelDetails: {
          modelId: id,
          modelArn: `arn:aws:bedrock:us-east-1::foundation-model/${id}`,
          providerName: id.split('.')[0],
          inferenceTypesSupported: needsProfile(id) ? ['INFERENCE_PROFILE'] : ['ON_DEMAND'],
          modelLifecycle: {
            status: LIFECYCLE_STATUS.find((s) => s.toLowerCase() === lifecycle),
            // timestamps as Bedrock's API model has them: RFC 3339 strings (the SDK refuses epoch seconds here)
            ...(dates.legacy ? { legacyTime: new Date(dates.legacy).toISOString() } : {}),
            ...(dates.endOfLife ? { endOfLifeTime: new Date(dates.endOfLife).toISOString() } : {}),
          },
        },
      }),
    );
  }

  private controlPlane: Server | null = null;
  /** Where the control plane (GetFoundationModel) answers once listening: AWS_ENDPOINT_URL_BEDROCK. */
  controlPlaneUrl = '';

  /**
   * The runtime over HTTP/2 (what its client speaks), and the control plane on a second port over HTTP/1.1 (what
   * @aws-sdk/client-bedrock speaks): Bedrock's two endpoints, bedrock-runtime.REGION and bedrock.REGION.
   */
  override async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    const url = await super.listen(port, host);
    const control = createServer((req, res) => {
      req.resume();
      this.announceOn(res);
      const path = decodeURIComponent((req.url ?? '/').split('?')[0]);
      const fm = /^\/foundation-models\/([^/]+)$/.exec(path);
      const logged = { method: req.method ?? 'GET', path, headers: req.headers, body: null };
      if (req.method !== 'GET' || !fm)
        return awsError(res, 404, `no route ${req.method} ${path}`, 'UnknownOperationException');
      this.getFoundationModel(logged, res, fm[1]).catch((err: unknown) => awsError(res, 500, String(err)));
    });
    await new Promise<void>((resolve) => control.listen(0, host, resolve));
    this.controlPlane = control;
    const u = new URL(url);
    u.port = String((control.address() as AddressInfo).port);
    this.controlPlaneUrl = u.origin;
    return url;
  }

  override async close(): Promise<void> {
    this.controlPlane?.closeAllConnections();
    await new Promise<void>((resolve) => (this.controlPlane ? this.controlPlane.close(() => resolve()) : resolve()));
    await super.close();
  }

  /** Converse: route -> authorize -> the account's refusals and quotas -> faults -> validate -> answer -> write. */
  protected async handle(req: LoggedRequest, res: ServerResponse): Promise<void> {
    const m = /^\/model\/(.+)\/converse$/.exec(req.path);
    if (req.method !== 'POST' || !m)
      return awsError(res, 404, `no route ${req.method} ${req.path}`, 'UnknownOperationException');
    const model = m[1];
    if (!(await this.authorized(req, res, model))) return;
    if (!this.models.includes(model)) return awsError(res, 400, 'The provided model identifier is invalid.');
    // lifecycle, inference profiles and the account's model access, before any quota or model work
    const accessKey = /Credential=([^/]+)\//.exec(req.headers.authorization ?? '')?.[1];
    const refused = accountRefusal(this.account, model, accessKey, this.lifecycleOf(model).status);
    if (refused) return awsError(res, refused[0], refused[2], refused[1]);
    const body = req.body ?? {};
    const allInput = this.promptTokens(
      JSON.stringify(body.system ?? []) + JSON.stringify(body.messages ?? []) + JSON.stringify(body.toolConfig ?? {}),
    );
    const admitted = this.admit(model, allInput);
    // Converse past a quota: HTTP 429 ThrottlingException, with the service's own messages.
    if (typeof admitted === 'string')
      return awsError(res, 429, `Too many ${admitted}, please wait before trying again.`, 'ThrottlingException');
    const fault = this.faultFor(body);
    if (!(await this.transport(fault, res))) return;
    if (fault?.kind === 'status')
      return awsError(
        res,
        fault.status,
        fault.status === 429
          ? 'Too many requests, please wait before trying again.'
          : 'The system encountered an unexpected error during processing. Try your request again.',
      );
    const invalid = this.converseRequestError(model, body);
    if (invalid) return awsError(res, 400, invalid);
    const cache = this.promptCache.apply(model, body);
    if ('error' in cache) return awsError(res, 400, cache.error);
    const maxTokens: number | undefined = body.inferenceConfig?.maxTokens;
    const { content, truncated, calls, plannedFault } = this.answer(converseTurn(model, body), body, fault);
    // With caching, inputTokens is only the input neither read from nor written to the cache (User Guide).
    const cacheUsage = cache.used ? { cacheReadInputTokens: cache.read, cacheWriteInputTokens: cache.write } : {};
    const inputTokens = allInput - (cache.used ? cache.read + cache.write : 0);
    const outputTokens = truncated ? maxTokens! : tokensOf(JSON.stringify(content));
    admitted.tokens += outputTokens;
    this.replies.push({ model, inputTokens, outputTokens, fault: plannedFault, ...cacheUsage });
    res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': randomBytes(16).toString('hex') });
    res.end(
      JSON.stringify({
        output: { message: { role: 'assistant', content } },
        stopReason: stopReason(truncated ? 'max_tokens' : calls > 0 ? 'tool_use' : 'end_turn'),
        usage: { inputTokens, outputTokens, totalTokens: allInput + outputTokens, ...cacheUsage },
        metrics: { latencyMs: 350 },
      }),
    );
  }

  /** SigV4 present and, with an authorizer, allowing bedrock:InvokeModel on the model; false once refused. */
  private async authorized(req: LoggedRequest, res: ServerResponse, model: string): Promise<boolean> {
    if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256')) {
      awsError(res, 403, 'Missing Authentication Token', 'AccessDeniedException');
      return false;
    }
    if (this.authorizer) {
      const authorizer = this.authorizer;
      const result = await authorizer.check(req.headers, 'rest-json', (s) => authorizer.bedrockInvokeCalls(model, s));
      if (!result.ok) {
        res.writeHead(result.reply.status, result.reply.headers);
        res.end(result.reply.body);
        return false;
      }
    }
    return true;
  }

  /**
   * Converse's own request rules (a ValidationException's message, or undefined), so an adapter that breaks them
   * fails here as it would on AWS.
   */
  private converseRequestError(model: string, body: LoggedRequest['body']): string | undefined {
    const messages = (body.messages ?? []) as Array<{ role: string; content: Block[] }>;
    if (messages.some((msg, i) => i > 0 && messages[i - 1].role === msg.role))
      return (
        'A conversation must alternate between user and assistant roles. Make sure the conversation ' +
        'alternates between user and assistant roles and try again.'
      );
    const imageError = imageRuleViolation(messages);
    if (imageError) return imageError;
    if (!body.toolConfig && messages.some((msg) => msg.content.some((b) => b.toolUse || b.toolResult)))
      return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
    if (body.toolConfig && (body.toolConfig.tools ?? []).length === 0)
      return (
        "1 validation error detected: Value at 'toolConfig.tools' failed to satisfy constraint: Member " +
        'must have length greater than or equal to 1'
      );
    const thinkingError = thinkingRuleViolation(model, body);
    if (thinkingError) return thinkingError;
    const signed = (r: { text: string; signature?: string } | undefined) => {
      const given = this.signatures.get(r?.signature ?? '');
      return given !== undefined && (!REASONING_UNMODIFIED || given === r?.text);
    };
    const unsigned = messages.some((msg) =>
      msg.content.some((b) => b.reasoningContent && !signed(b.reasoningContent.reasoningText)),
    );
    if (unsigned) return 'Invalid `signature` in `thinking` block.';
    return undefined;
  }

  /**
   * The reply's content blocks: signed reasoning when the model thinks, the planned text and tool calls; cut to
   * maxTokens (what fits is kept, reasoning first, no tool call is complete).
   */
  private answer(
    turn: ModelTurn,
    body: LoggedRequest['body'],
    fault: Fault | null,
  ): { content: Block[]; truncated: boolean; calls: number; plannedFault: Fault['kind'] | null } {
    const planned = this.plan(turn, fault);
    const content: Block[] = [];
    if (thinksOn(turn.model, body)) {
      const signature = randomBytes(24).toString('base64');
      const text = this.thinkingFor(turn);
      this.signatures.set(signature, text);
      content.push({ reasoningContent: { reasoningText: { text, signature } } });
    }
    if (planned.text) content.push({ text: planned.text });
    for (const c of planned.calls)
      content.push({
        toolUse: { toolUseId: `tooluse_${randomBytes(9).toString('base64url')}`, name: c.name, input: c.arguments },
      });
    const maxTokens: number | undefined = body.inferenceConfig?.maxTokens;
    const truncated = maxTokens !== undefined && tokensOf(JSON.stringify(content)) > maxTokens;
    return {
      content: truncated ? cutToMaxTokens(content, maxTokens) : content,
      truncated,
      calls: planned.calls.length,
      plannedFault: planned.fault,
    };
  }
}

/** Message.content (API reference): at most 20 images, each at most 3.75 MB and 8000 px a side, in user messages. */
function imageRuleViolation(messages: Array<{ role: string; content: Block[] }>): string | undefined {
  const images = (msg: { content: Block[] }) => msg.content.filter((b) => b.image);
  if (messages.some((msg) => images(msg).length > MAX_IMAGES))
    return `A message may include up to ${MAX_IMAGES} images.`;
  if (messages.some((msg) => msg.role !== 'user' && images(msg).length > 0))
    return 'Images can only be included in user messages.';
  for (const b of messages.flatMap(images)) {
    const bytes = Buffer.from(b.image!.source.bytes, 'base64');
    const px = bytes.length >= 24 ? Math.max(bytes.readUInt32BE(16), bytes.readUInt32BE(20)) : 0;
    if (bytes.length > MAX_IMAGE_BYTES || px > MAX_IMAGE_PX)
      return `An image exceeds ${MAX_IMAGE_BYTES} bytes or ${MAX_IMAGE_PX} px a side.`;
  }
  return undefined;
}

type Thinking = { type?: string; budget_tokens?: number } | undefined;

/**
 * The newer Claude models' own rules (bedrock-model-rules.ts: sampling refused, adaptive thinking only), then
 * extended thinking's.
 */
function thinkingRuleViolation(model: string, body: LoggedRequest['body']): string | undefined {
  const thinking = body.additionalModelRequestFields?.thinking as Thinking;
  const maxTokens: number | undefined = body.inferenceConfig?.maxTokens;
  const violation = claudeRuleViolation(claudeRequestRules(model), body.inferenceConfig, thinking);
  if (violation) return violation;
  if (thinking?.type !== 'enabled') return undefined;
  const budget = thinking.budget_tokens ?? 0;
  if (budget < MIN_THINKING_BUDGET)
    return `thinking.budget_tokens: Input should be greater than or equal to ${MIN_THINKING_BUDGET}`;
  if (maxTokens !== undefined && budget >= maxTokens)
    return '`max_tokens` must be greater than `thinking.budget_tokens`.';
  if (body.inferenceConfig?.temperature !== undefined && body.inferenceConfig.temperature !== 1)
    return '`temperature` may only be set to 1 when thinking is enabled.';
  if (body.inferenceConfig?.topP !== undefined) return '`top_p` must be unset when thinking is enabled.';
  return undefined;
}

/** Whether the reply reasons: thinking asked for, or a model that thinks unless told otherwise. */
function thinksOn(model: string, body: LoggedRequest['body']): boolean {
  const thinking = body.additionalModelRequestFields?.thinking as Thinking;
  const rules = claudeRequestRules(model);
  return thinking?.type === 'enabled' || thinking?.type === 'adaptive' || (!thinking && !!rules?.thinksByDefault);
}

/** What the model reads: the system text, the user's texts (pictures read with them) and tool results, the tools. */
function converseTurn(model: string, body: LoggedRequest['body']): ModelTurn {
  const system = (body.system ?? [])
    .filter((b: Block) => b.text !== undefined)
    .map((b: Block) => b.text)
    .join('\n');
  const texts: string[] = [];
  for (const msg of body.messages ?? []) {
    if (msg.role !== 'user') continue;
    // a text block's pictures are the image blocks after it (bytes base64 on the wire), read with it
    const blocks = msg.content as Block[];
    blocks.forEach((b, i) => {
      if (b.text) {
        const after = blocks.slice(i + 1);
        const until = after.findIndex((x) => !x.image);
        const images = (until < 0 ? after : after.slice(0, until)).map((x) => pictureBytes(x.image!.source.bytes));
        texts.push(withPicturesRead(b.text, images));
      }
      if (b.toolResult) texts.push(b.toolResult.content.map((c) => c.text ?? '').join('\n'));
    });
  }
  return {
    model,
    system,
    texts,
    tools: (body.toolConfig?.tools ?? [])
      .filter((t: { toolSpec?: unknown }) => t.toolSpec)
      .map((t: { toolSpec: { name: string } }) => t.toolSpec.name),
    requestChars: JSON.stringify(body).length,
  };
}

/** maxTokens caps the output: what fits is kept (reasoning first), no tool call is complete. */
function cutToMaxTokens(content: Block[], maxTokens: number): Block[] {
  let room = maxTokens * 4;
  const kept: Block[] = [];
  for (const b of content) {
    if (room <= 0 || b.toolUse) break;
    if (b.reasoningContent?.reasoningText) {
      const r = b.reasoningContent.reasoningText;
      kept.push({ reasoningContent: { reasoningText: { ...r, text: r.text.slice(0, room) } } });
      room -= r.text.length;
    } else if (b.text !== undefined) {
      kept.push({ text: b.text.slice(0, room) });
      room -= b.text.length;
    }
  }
  return kept;
}
