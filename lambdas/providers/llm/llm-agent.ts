// An agent backed by a chat model. Within one turn it keeps the conversation:
// the observation, then each reply and the results of its tool calls, until
// the engine ends the turn. Each turn starts a fresh conversation from the
// system prompt and the current observation (the Lambda holds no memory).
import type { Agent, AgentReply, Observation } from '../../engine/agent.ts';
import { TOOL_SPECS } from '../../engine/tools.ts';
import type { ChatMessage, ChatModel, ModelToolCall } from './chat-model.ts';
import { withRetry, type Failure, type RetryPolicy } from './retry.ts';
import { parseTextToolCalls } from './text-tool-calls.ts';
import { renderObservation, renderResult } from './observations/index.ts';
import type { ObservationFormat } from '../../config/experiment-config.ts';

export interface LlmAgentOptions {
  model: ChatModel;
  system: string;
  policy: RetryPolicy;
  classify: (err: unknown) => Failure;
  maxMoves: number;
  /** What the model is shown (config.observation). */
  observation: ObservationFormat;
}

export function llmAgent(opts: LlmAgentOptions): Agent {
  const messages: ChatMessage[] = [];
  let lastCalls: ModelToolCall[] = [];
  let lastFromText = false;
  return {
    callsModel: true,
    async act(obs: Observation): Promise<AgentReply> {
      if (messages.length === 0) {
        messages.push({ role: 'user', text: renderObservation(opts.observation, obs, opts.maxMoves) });
      } else {
        const results = lastCalls.map((c, i) => ({
          id: c.id,
          name: c.name,
          content: renderResult(opts.observation, obs.results[i], obs),
          ok: obs.results[i].success,
        }));
        // Calls the model wrote as text have no tool-call ids the service knows: answer them as text.
        messages.push(
          lastFromText
            ? { role: 'user', text: results.map((r) => `${r.name}: ${r.content}`).join('\n') }
            : { role: 'tool', results },
        );
      }
      let latencyMs = 0;
      const { value: reply, retries } = await withRetry(
        async (signal) => {
          const t = performance.now();
          const r = await opts.model.complete(opts.system, messages, TOOL_SPECS, signal);
          latencyMs = performance.now() - t;
          return r;
        },
        { policy: opts.policy, classify: opts.classify, provider: opts.model.provider, model: opts.model.model },
      );

      let calls = reply.calls;
      lastFromText = false;
      if (calls.length === 0 && reply.text) {
        calls = parseTextToolCalls(reply.text);
        lastFromText = calls.length > 0;
      }
      messages.push({ role: 'assistant', text: reply.text, calls: lastFromText ? [] : calls });
      lastCalls = calls;
      return {
        calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments, parsedFromText: lastFromText })),
        text: reply.text,
        usage: reply.usage,
        latencyMs,
        stopReason: reply.stopReason,
        retries,
      };
    },
  };
}
