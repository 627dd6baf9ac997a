// An agent driven by a workflow prompt version (engine/workflow/): the runner decides which step runs; this agent
// holds the turn's conversation and makes each step's model call (the observation first, then per step the previous
// tool results with the step's prompt, offering only its tools). Several calls may make one reply, their tokens and
// latency summed and the steps recorded with it; the runner's memory goes back to the engine with the turn.
import type { Agent, AgentReply, CallDeadline, Observation, TokenUsage } from '../../engine/agent.ts';
import type { ToolSpec } from '../../engine/tools.ts';
import type { PromptContext } from '../../engine/agent.ts';
import type { ExperimentConfig } from '../../config/experiment-config.ts';
import { contextWindow, fitToWindow, replyReserve } from './context-guard.ts';
import { promptWasCut } from './prompt-cut.ts';
import { estimatePromptTokens } from './token-estimate.ts';
import type { ChatMessage, ChatModel, ModelToolCall } from './chat-model.ts';
import { withRetry, type Failure, type RetryPolicy } from './retry.ts';
import { parseTextToolCalls } from './text-tool-calls.ts';
import { renderObservation, renderResult } from './observations/index.ts';
import type { ObservationFormat } from '../../config/experiment-config.ts';
import type { LoadedWorkflow } from '../../engine/workflow/definition.ts';
import { WorkflowRunner, initialMemory, type StepAsk, type WorkflowMemory } from '../../engine/workflow/runner.ts';

export interface WorkflowAgentOptions {
  workflow: LoadedWorkflow;
  model: ChatModel;
  system: string;
  policy: RetryPolicy;
  classify: (err: unknown) => Failure;
  maxMoves: number;
  /** What the model is shown (config.observation). */
  observation: ObservationFormat;
  /** The tools the experiment offers (offeredTools: recall_all only when config.recall_tool). */
  tools: ToolSpec[];
  /** The experiment's config: the context guard's window and policy. */
  config: ExperimentConfig;
  /** What the runner remembered after the previous turn; null on the first. */
  memory: unknown;
}

export function workflowAgent(opts: WorkflowAgentOptions): Agent {
  const memory = (opts.memory as WorkflowMemory | null) ?? initialMemory(opts.workflow);
  let runner = new WorkflowRunner(opts.workflow, structuredClone(memory));
  const messages: ChatMessage[] = [];
  let lastCalls: ModelToolCall[] = [];
  let lastFromText = false;
  return {
    callsModel: true,
    memory: () => runner.memory,
    async act(obs: Observation, deadline?: CallDeadline): Promise<AgentReply> {
      // what a reply that never came (the turn's deadline stopped a step's call) must leave as it was
      const before = { messages: messages.length, memory: structuredClone(runner.memory), lastCalls, lastFromText };
      let pending: string | null =
        messages.length === 0 ? renderObservation(opts.observation, obs, opts.maxMoves) : null;
      if (messages.length > 0 && lastCalls.length > 0) {
        const results = lastCalls.map((c, i) => ({
          id: c.id,
          name: c.name,
          content: renderResult(opts.observation, obs.results[i], obs),
          ok: obs.results[i].success,
        }));
        if (lastFromText) pending = results.map((r) => `${r.name}: ${r.content}`).join('\n');
        else messages.push({ role: 'tool', results });
      }
      lastCalls = [];
      const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
      let reported = false,
        latencyMs = 0,
        stopReason: string | null = null,
        // any step's reply cut by the output cap; the steps' reasoning, in order
        truncated = false,
        // any step's prompt cut to the window; the simulator that answered any step
        promptTruncated = false,
        simulator: string | null = null;
      const reasoning: string[] = [];
      const retries: Array<Record<string, unknown>> = [];
      // the largest prompt among the reply's calls (a workflow carries nothing to trim: it fits, or it is refused)
      let context: PromptContext | null = null;

      const ask = async (a: StepAsk) => {
        messages.push({ role: 'user', text: pending ? `${pending}\n\n${a.prompt}` : a.prompt });
        pending = null;
        const tools = a.tools === null ? opts.tools : opts.tools.filter((t) => a.tools!.includes(t.name));
        const fit = fitToWindow({
          provider: opts.model.provider,
          model: opts.model.model,
          window: contextWindow(opts.model.provider, opts.model.model, opts.config),
          reserve: replyReserve(opts.model.provider, opts.config),
          policy: opts.config.context_policy,
          estimate: () => estimatePromptTokens(opts.system, messages, tools),
          trimOldest: () => 0,
        });
        if (context === null || fit.estimate > context.estimate) context = fit;
        const t0 = performance.now();
        const { value: reply, retries: r } = await withRetry(
          (signal) => opts.model.complete(opts.system, messages, tools, signal),
          {
            policy: opts.policy,
            classify: opts.classify,
            provider: opts.model.provider,
            model: opts.model.model,
            deadline,
          },
        );
        latencyMs += performance.now() - t0;
        retries.push(...r.map((x) => ({ ...x, step: a.step })));
        if (reply.usage) {
          reported = true;
          usage.inputTokens += reply.usage.inputTokens;
          usage.outputTokens += reply.usage.outputTokens;
          addCacheTokens(usage, reply.usage);
        }
        stopReason = reply.stopReason;
        truncated ||= reply.truncated === true;
        promptTruncated ||= promptWasCut(fit.window, reply);
        simulator ??= reply.simulator ?? null;
        if (reply.reasoning) reasoning.push(reply.reasoning.text);
        let calls = tools.length > 0 ? reply.calls : [];
        let fromText = false;
        if (calls.length === 0 && reply.text && tools.length > 0) {
          calls = parseTextToolCalls(reply.text);
          fromText = calls.length > 0;
        }
        messages.push({ role: 'assistant', text: reply.text, calls: fromText ? [] : calls });
        lastCalls = calls;
        lastFromText = fromText;
        return {
          text: reply.text,
          calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments, parsedFromText: fromText })),
        };
      };

      const out = await runner
        .reply(
          {
            turn: obs.turnNumber,
            actionsTaken: obs.actionsTaken,
            actionsLeftInTurn: obs.actionsLeftInTurn,
            tilesSeen: obs.tilesSeen,
            phase: obs.phase,
            results: obs.results,
          },
          ask,
        )
        .catch((err: unknown) => {
          // The steps this reply took are undone: the memory persisted with the turn is the last whole reply's.
          messages.length = before.messages;
          runner = new WorkflowRunner(opts.workflow, before.memory);
          ({ lastCalls, lastFromText } = before);
          throw err;
        });
      return {
        calls: out.calls,
        text: out.text,
        usage: reported ? usage : null,
        latencyMs,
        stopReason,
        truncated,
        promptTruncated,
        simulator,
        reasoning:
          reasoning.length > 0
            ? { text: reasoning.join('\n\n'), tokens: Math.ceil(reasoning.join('\n\n').length / 4) }
            : null,
        retries,
        context,
        workflow: { steps: out.steps, moves: out.moves },
      };
    },
  };
}

/** Sums a step's prompt-cache tokens into the reply's, leaving them absent while no step reported any. */
function addCacheTokens(sum: TokenUsage, step: TokenUsage): void {
  if (step.cacheReadInputTokens !== undefined)
    sum.cacheReadInputTokens = (sum.cacheReadInputTokens ?? 0) + step.cacheReadInputTokens;
  if (step.cacheWriteInputTokens !== undefined)
    sum.cacheWriteInputTokens = (sum.cacheWriteInputTokens ?? 0) + step.cacheWriteInputTokens;
}
