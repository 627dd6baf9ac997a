// An agent backed by a chat model. Within one turn it keeps the conversation:
// the observation, then each reply and the results of its tool calls, until
// the engine ends the turn. Between turns (each one a fresh Lambda) it keeps
// what config.memory says (memory.ts): nothing (fresh), the last actions
// (history), or the conversation (conversation), through Agent.memory().
// Before every call the context guard fits the prompt to the model's window.
import type { Agent, AgentReply, CallDeadline, Observation } from '../../engine/agent.ts';
import type { ActionResult } from '../../engine/game.ts';
import { offeredTools } from '../../engine/tools.ts';
import type { ExperimentConfig } from '../../config/experiment-config.ts';
import type { ChatMessage, ChatModel, ModelImage, ModelToolCall } from './chat-model.ts';
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
}

export function llmAgent(opts: LlmAgentOptions): Agent {
  const { config, model } = opts;
  const tools = offeredTools(config);
  const carried = readMemory(opts.memory ?? null);
  // conversation mode: the earlier turns' messages; history mode: the entries shown this turn
  let earlier = config.memory === 'conversation' ? carried.conversation : [];
  const shown = config.memory === 'history' ? carried.history.slice(-config.memory_history_actions) : [];
  const seen: ActionResult[] = [];
  let observation = '';
  // the image format: the turn's first picture, and the pictures not yet sent in a call (recorded with the call)
  let firstPicture: ModelImage | null = null;
  let unsent: ModelImage[] = [];
  const pictures = showsPictures(config.observation);
  const turn: ChatMessage[] = []; // this turn's messages after its first (the observation)
  let lastCalls: ModelToolCall[] = [];
  let lastFromText = false;
  // what a result is rendered against (vision range, known extent, the grid): the same all turn
  let lastObs: Observation | null = null;
  const calibration = new TokenCalibration(opts.tokenCalibration ?? null);
  const scale = (n: number) => calibration.scale(n);

  const firstMessage = (): ChatMessage => ({
    role: 'user',
    text: [describeHistory(shown), observation].filter(Boolean).join('\n\n'),
    ...(firstPicture ? { images: [firstPicture] } : {}),
  });
  const prompt = (): ChatMessage[] => [...earlier, firstMessage(), ...turn];
  const answer = (results: ActionResult[]): ChatMessage[] => {
    const rs = lastCalls.map((c, i) => ({
      id: c.id,
      name: c.name,
      content: renderResult(config.observation, results[i], lastObs!),
      ok: results[i].success,
    }));
    // Calls the model wrote as text have no tool-call ids the service knows: answer them as text.
    const answered: ChatMessage[] = [
      lastFromText
        ? { role: 'user', text: rs.map((r) => `${r.name}: ${r.content}`).join('\n') }
        : { role: 'tool', results: rs },
    ];
    // the image format: each executed action's picture, in a message of its own after the results
    const shot = pictures ? resultPictures(results.slice(0, lastCalls.length), lastObs!) : [];
    if (shot.length > 0) {
      const images = shot.map((p) => p.image);
      unsent.push(...images);
      answered.push({ role: 'user', text: shot.map((p) => p.caption).join('\n'), images });
    }
    return answered;
  };
  const trimOldest = (): number => {
    if (earlier.length > 0) {
      const before = earlier.length;
      earlier = dropOldestExchange(earlier);
      return before - earlier.length;
    }
    return shown.shift() ? 1 : 0;
  };

  const agent: Agent = {
    callsModel: true,
    async act(obs: Observation, deadline?: CallDeadline): Promise<AgentReply> {
      const before = { seen: seen.length, turn: turn.length };
      lastObs = obs;
      if (observation === '') {
        observation = renderObservation(config.observation, obs, config.max_moves);
        if (pictures) {
          firstPicture = observationPicture(obs);
          unsent = [firstPicture];
        }
      } else {
        seen.push(...obs.results);
        turn.push(...answer(obs.results));
      }
      const context = fitToWindow({
        provider: model.provider,
        model: model.model,
        window: contextWindow(model.provider, model.model, config),
        reserve: replyReserve(model.provider, config),
        policy: config.context_policy,
        estimate: () => estimatePromptTokens(opts.system, prompt(), tools),
        scale,
        trimOldest,
      });
      const messages = prompt();
      const sentEstimate = context.calibrated ?? context.estimate;
      let latencyMs = 0;
      const { value: reply, retries } = await withRetry(
        async (signal) => {
          const t = performance.now();
          const r = await model.complete(opts.system, messages, tools, signal);
          latencyMs = performance.now() - t;
          return r;
        },
        { policy: opts.policy, classify: opts.classify, provider: model.provider, model: model.model, deadline },
      ).catch((err: unknown) => {
        // No reply (the turn's deadline came, say): the results stay unanswered, for memory() to close the exchange.
        seen.length = before.seen;
        turn.length = before.turn;
        throw err;
      });
      const shownNow = unsent.map((i) => i.sha256);
      unsent = [];

      let calls = reply.calls;
      lastFromText = false;
      if (calls.length === 0 && reply.text) {
        calls = parseTextToolCalls(reply.text);
        lastFromText = calls.length > 0;
      }
      // Bedrock wants the reasoning back with the reply it came with, unmodified (bedrock-model.ts)
      turn.push({ role: 'assistant', text: reply.text, calls: lastFromText ? [] : calls, reasoning: reply.reasoning });
      lastCalls = calls;
      const reported = reportedPromptTokens(reply.usage);
      const estimateOff = estimateIsOff(sentEstimate, reported);
      calibration.observe(context.estimate, reported, context.window);
      return {
        calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments, parsedFromText: lastFromText })),
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
          ? { text: reply.reasoning.text, tokens: scale(Math.ceil(reply.reasoning.text.length / 4)) }
          : null,
        estimateOff,
        ...(pictures ? { images: shownNow } : {}),
      };
    },
    tokenCalibration: () => calibration.ratio,
  };
  if (config.memory === 'history')
    agent.memory = (lastResults) => ({
      history: boundHistory(
        [...carried.history, ...historyEntries([...seen, ...lastResults])].slice(-config.memory_history_actions),
      ),
    });
  else if (config.memory === 'conversation')
    agent.memory = (lastResults) => {
      // The turn's last calls were executed but never answered: their results close the exchange.
      const closing = lastCalls.length > 0 && lastResults.length === lastCalls.length ? answer(lastResults) : [];
      const all = observation === '' ? earlier : [...earlier, firstMessage(), ...turn, ...closing];
      return { conversation: boundConversation(all, config.memory_conversation_tokens, scale) };
    };
  return agent;
}
