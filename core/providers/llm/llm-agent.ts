// An agent backed by a chat model. Within a turn it keeps the conversation (observation, replies, tool results)
// until the engine ends the turn; between turns, each a fresh Lambda, it keeps what config.memory says (memory.ts:
// nothing, the last actions, or the conversation) through Agent.memory(). Before every call the context guard fits the
// prompt to the model's window.
import type { Agent, AgentReply, CallDeadline, Observation, ProbeReply } from '../../engine/agent.ts';
import type { ActionResult } from '../../engine/game.ts';
import { offeredTools } from '../../engine/tools.ts';
import type { ExperimentConfig } from '../../config/experiment-config.ts';
import { isTruncation, type ChatMessage, type ChatModel, type ModelImage, type ModelToolCall } from './chat-model.ts';
import { withRetry, type Failure, type RetryPolicy } from './retry.ts';
import { parseTextToolCalls } from './text-tool-calls.ts';
import {
  observationPicture,
  renderObservation,
  renderResult,
  resultPictures,
  showsPictures,
} from './observations/index.ts';
import {
  boundConversation,
  boundHistory,
  describeHistory,
  dropOldestExchange,
  historyEntries,
  readMemory,
} from './memory.ts';
import { contextWindow, fitToWindow, replyReserve } from './context-guard.ts';
import { estimatePromptTokens } from './token-estimate.ts';
import { TokenCalibration, estimateIsOff } from './calibration.ts';
import { promptWasCut, reportedPromptTokens } from './prompt-cut.ts';

export interface LlmAgentOptions {
  model: ChatModel;
  system: string;
  policy: RetryPolicy;
  classify: (err: unknown) => Failure;
  config: ExperimentConfig;
  /** What memory() returned after the previous turn (null before the first). */
  memory?: unknown;
  /** The run's token calibration from an earlier turn; null before the run has one. */
  tokenCalibration?: number | null;
  /**
   * Who answers the belief probe after `turn` (agents.ts: the model's server, past the flight recorder and a fork's
   * prefix, or a replayed run's record); without it, `model`.
   */
  probeModel?: (turn: number) => ChatModel;
}

export function llmAgent(opts: LlmAgentOptions): Agent {
  const chat = new ChatAgent(opts);
  const agent: Agent = {
    callsModel: true,
    act: (obs, deadline) => chat.act(obs, deadline),
    tokenCalibration: () => chat.calibration.ratio,
    probe: (question, turn, lastResults, deadline) => chat.probe(question, turn, lastResults, deadline),
  };
  if (opts.config.memory === 'history') agent.memory = (lastResults) => chat.historyMemory(lastResults);
  else if (opts.config.memory === 'conversation') agent.memory = (lastResults) => chat.conversationMemory(lastResults);
  return agent;
}

/** One turn's conversation with the model, and what it carries in from the turns before. */
class ChatAgent {
  readonly calibration: TokenCalibration;
  private readonly config: ExperimentConfig;
  private readonly tools: ReturnType<typeof offeredTools>;
  private readonly carried: ReturnType<typeof readMemory>;
  /** Conversation mode: the earlier turns' messages. */
  private earlier: ChatMessage[];
  /** History mode: the entries shown this turn. */
  private readonly shown: ReturnType<typeof readMemory>['history'];
  private readonly seen: ActionResult[] = [];
  private observation = '';
  private readonly pictures: boolean;
  /** The image format: the turn's first picture, and the pictures not yet sent in a call (recorded with the call). */
  private firstPicture: ModelImage | null = null;
  private unsent: ModelImage[] = [];
  /** This turn's messages after its first (the observation). */
  private readonly turn: ChatMessage[] = [];
  private lastCalls: ModelToolCall[] = [];
  private lastFromText = false;
  /** What a result is rendered against (vision range, known extent, the grid): the same all turn. */
  private lastObs: Observation | null = null;

  constructor(private readonly opts: LlmAgentOptions) {
    this.config = opts.config;
    this.tools = offeredTools(opts.config);
    this.carried = readMemory(opts.memory ?? null);
    this.earlier = opts.config.memory === 'conversation' ? this.carried.conversation : [];
    this.shown =
      opts.config.memory === 'history' ? this.carried.history.slice(-opts.config.memory_history_actions) : [];
    this.pictures = showsPictures(opts.config.observation);
    this.calibration = new TokenCalibration(opts.tokenCalibration ?? null);
  }

  private scale = (n: number) => this.calibration.scale(n);

  private firstMessage(): ChatMessage {
    return {
      role: 'user',
      text: [describeHistory(this.shown), this.observation].filter(Boolean).join('\n\n'),
      ...(this.firstPicture ? { images: [this.firstPicture] } : {}),
    };
  }

  private prompt(): ChatMessage[] {
    return [...this.earlier, this.firstMessage(), ...this.turn];
  }

  /** The results of the last calls, as the model is answered: tool results, or text for calls written as text. */
  private answer(results: ActionResult[]): ChatMessage[] {
    const rs = this.lastCalls.map((c, i) => ({
      id: c.id,
      name: c.name,
      content: renderResult(this.config.observation, results[i], this.lastObs!),
      ok: results[i].success,
    }));
    // Calls the model wrote as text have no tool-call ids the service knows: answer them as text.
    const answered: ChatMessage[] = [
      this.lastFromText
        ? { role: 'user', text: rs.map((r) => `${r.name}: ${r.content}`).join('\n') }
        : { role: 'tool', results: rs },
    ];
    // the image format: each executed action's picture, in a message of its own after the results
    const shot = this.pictures ? resultPictures(results.slice(0, this.lastCalls.length), this.lastObs!) : [];
    if (shot.length > 0) {
      const images = shot.map((p) => p.image);
      this.unsent.push(...images);
      answered.push({ role: 'user', text: shot.map((p) => p.caption).join('\n'), images });
    }
    return answered;
  }

  private trimOldest = (): number => {
    if (this.earlier.length > 0) {
      const before = this.earlier.length;
      this.earlier = dropOldestExchange(this.earlier);
      return before - this.earlier.length;
    }
    return this.shown.shift() ? 1 : 0;
  };

  /** The observation at the turn's start; later, the results of the last reply's calls. */
  private see(obs: Observation): void {
    this.lastObs = obs;
    if (this.observation === '') {
      this.observation = renderObservation(this.config.observation, obs, this.config.max_moves);
      if (this.pictures) {
        this.firstPicture = observationPicture(obs);
        this.unsent = [this.firstPicture];
      }
    } else {
      this.seen.push(...obs.results);
      this.turn.push(...this.answer(obs.results));
    }
  }

  async act(obs: Observation, deadline?: CallDeadline): Promise<AgentReply> {
    const before = { seen: this.seen.length, turn: this.turn.length };
    this.see(obs);
    const { model } = this.opts;
    const context = fitToWindow({
      provider: model.provider,
      model: model.model,
      window: contextWindow(model.provider, model.model, this.config),
      reserve: replyReserve(model.provider, this.config),
      policy: this.config.context_policy,
      estimate: () => estimatePromptTokens(this.opts.system, this.prompt(), this.tools),
      scale: this.scale,
      trimOldest: this.trimOldest,
    });
    const { reply, retries, latencyMs } = await this.call(this.prompt(), deadline).catch((err: unknown) => {
      // No reply (the turn's deadline came, say): the results stay unanswered, for memory() to close the exchange.
      this.seen.length = before.seen;
      this.turn.length = before.turn;
      throw err;
    });
    const shownNow = this.unsent.map((i) => i.sha256);
    this.unsent = [];
    const calls = this.keepReply(reply);
    const reported = reportedPromptTokens(reply.usage);
    const estimateOff = estimateIsOff(context.calibrated ?? context.estimate, reported);
    this.calibration.observe(context.estimate, reported, context.window);
    return {
      calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments, parsedFromText: this.lastFromText })),
      text: reply.text,
      usage: reply.usage,
      latencyMs,
      stopReason: reply.stopReason,
      retries,
      context,
      timings: reply.timings ?? null,
      truncated: reply.truncated ?? null,
      promptTruncated: promptWasCut(context.window, reply),
      simulator: reply.simulator ?? null,
      // neither provider reports reasoning tokens apart (both count them in the output): estimated from the text
      reasoning: reply.reasoning
        ? { text: reply.reasoning.text, tokens: this.scale(Math.ceil(reply.reasoning.text.length / 4)) }
        : null,
      estimateOff,
      ...(this.pictures ? { images: shownNow } : {}),
      ...(reply.exchange ? { exchanges: [reply.exchange] } : {}),
    };
  }

  /**
   * The belief probe: the turn's conversation, the results of its last calls and `question`, sent as one call of its
   * own. Nothing of the conversation, the pictures not yet sent or the calibration changes: the next turn and the
   * memory carried are what they would be without it. Null when the turn asked the model nothing.
   */
  async probe(
    question: string,
    turn: number,
    lastResults: ActionResult[],
    deadline?: CallDeadline,
  ): Promise<ProbeReply | null> {
    if (this.observation === '') return null;
    const unsent = this.unsent.slice(); // answer() adds the closing results' pictures to it
    const messages: ChatMessage[] = [...this.prompt(), ...this.closing(lastResults), { role: 'user', text: question }];
    this.unsent = unsent;
    const model = this.opts.probeModel?.(turn) ?? this.opts.model;
    const { reply, latencyMs } = await this.call(messages, deadline, model);
    return {
      text: reply.text,
      usage: reply.usage,
      latencyMs,
      stopReason: reply.stopReason,
      truncated: reply.truncated ?? isTruncation(reply.stopReason),
      simulator: reply.simulator ?? null,
      answeredBy: reply.exchange?.answeredBy === 'replay' ? 'replay' : 'model',
    };
  }

  /** The results of the turn's last calls, executed but not yet answered (none when its last reply called none). */
  private closing(lastResults: ActionResult[]): ChatMessage[] {
    return this.lastCalls.length > 0 && lastResults.length === this.lastCalls.length ? this.answer(lastResults) : [];
  }

  /** One model call with its retries, timed. */
  private async call(messages: ChatMessage[], deadline?: CallDeadline, model = this.opts.model) {
    const { system, policy, classify } = this.opts;
    let latencyMs = 0;
    const { value: reply, retries } = await withRetry(
      async (signal) => {
        const t = performance.now();
        const r = await model.complete(system, messages, this.tools, signal);
        latencyMs = performance.now() - t;
        return r;
      },
      { policy, classify, provider: model.provider, model: model.model, deadline },
    );
    return { reply, retries, latencyMs };
  }

  /** The reply kept in the conversation; its tool calls, or the ones it wrote as text. */
  private keepReply(reply: Awaited<ReturnType<ChatModel['complete']>>): ModelToolCall[] {
    let calls = reply.calls;
    this.lastFromText = false;
    if (calls.length === 0 && reply.text) {
      calls = parseTextToolCalls(reply.text);
      this.lastFromText = calls.length > 0;
    }
    // Bedrock wants the reasoning back with the reply it came with, unmodified (bedrock-model.ts)
    this.turn.push({
      role: 'assistant',
      text: reply.text,
      calls: this.lastFromText ? [] : calls,
      reasoning: reply.reasoning,
    });
    this.lastCalls = calls;
    return calls;
  }

  historyMemory(lastResults: ActionResult[]) {
    const entries = historyEntries([...this.seen, ...lastResults]);
    return {
      history: boundHistory([...this.carried.history, ...entries].slice(-this.config.memory_history_actions)),
    };
  }

  conversationMemory(lastResults: ActionResult[]) {
    // The turn's last calls were executed but never answered: their results close the exchange.
    const closing = this.closing(lastResults);
    const all =
      this.observation === '' ? this.earlier : [...this.earlier, this.firstMessage(), ...this.turn, ...closing];
    return { conversation: boundConversation(all, this.config.memory_conversation_tokens, this.scale) };
  }
}
