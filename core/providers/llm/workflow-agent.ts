// An agent driven by a workflow prompt version (engine/workflow/): the runner decides which step runs; this agent
// holds the turn's conversation and makes each step's model call (the observation first, then per step the previous
// tool results with the step's prompt, offering only its tools). Several calls may make one reply, their tokens and
// latency summed and the steps recorded with it; the runner's memory goes back to the engine with the turn.
import type { Agent, AgentReply, CallDeadline, ExchangeRecord, Observation, TokenUsage } from '../../engine/agent.ts';
import type { ToolSpec } from '../../engine/tools.ts';
import type { PromptContext } from '../../engine/agent.ts';
import type { ExperimentConfig } from '../../config/experiment-config.ts';
import { contextWindow, fitToWindow, replyReserve } from './context-guard.ts';
import { promptWasCut } from './prompt-cut.ts';
import { estimatePromptTokens } from './token-estimate.ts';
import type { ChatMessage, ChatModel, ModelReply, ModelToolCall } from './chat-model.ts';
import { withRetry, type Failure, type RetryPolicy, type RetryRecord } from './retry.ts';
import { parseTextToolCalls } from './text-tool-calls.ts';
import { renderObservation, renderResult } from './observations/index.ts';
import type { ObservationFormat } from '../../config/experiment-config.ts';
import type { LoadedWorkflow } from '../../engine/workflow/definition.ts';
import {
  WorkflowRunner,
  initialMemory,
  type StepAsk,
  type WorkflowFacts,
  type WorkflowMemory,
  type WorkflowReply,
} from '../../engine/workflow/runner.ts';

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
  const agent = new WorkflowAgent(opts);
  return {
    callsModel: true,
    memory: () => agent.memory,
    act: (obs, deadline) => agent.act(obs, deadline),
  };
}

/** The turn's conversation across the workflow's steps, and the runner that walks them. */
class WorkflowAgent {
  private runner: WorkflowRunner;
  private readonly messages: ChatMessage[] = [];
  private lastCalls: ModelToolCall[] = [];
  private lastFromText = false;
  /** Text for the next step's prompt to follow: the observation, or the results of calls written as text. */
  private pending: string | null = null;

  constructor(private readonly opts: WorkflowAgentOptions) {
    const memory = (opts.memory as WorkflowMemory | null) ?? initialMemory(opts.workflow);
    this.runner = new WorkflowRunner(opts.workflow, structuredClone(memory));
  }

  get memory(): WorkflowMemory {
    return this.runner.memory;
  }

  async act(obs: Observation, deadline?: CallDeadline): Promise<AgentReply> {
    // what a reply that never came (the turn's deadline stopped a step's call) must leave as it was
    const before = {
      messages: this.messages.length,
      memory: structuredClone(this.runner.memory),
      lastCalls: this.lastCalls,
      lastFromText: this.lastFromText,
    };
    this.pending = this.see(obs);
    this.lastCalls = [];
    const tally = new ReplyTally();
    const out = await this.runner
      .reply(workflowFacts(obs), (a) => this.ask(a, tally, deadline))
      .catch((err: unknown) => {
        // The steps this reply took are undone: the memory persisted with the turn is the last whole reply's.
        this.messages.length = before.messages;
        this.runner = new WorkflowRunner(this.opts.workflow, before.memory);
        ({ lastCalls: this.lastCalls, lastFromText: this.lastFromText } = before);
        throw err;
      });
    return tally.reply(out);
  }

  /** The observation at the turn's start; later, the results of the last calls (as tool results, or as text). */
  private see(obs: Observation): string | null {
    if (this.messages.length === 0) return renderObservation(this.opts.observation, obs, this.opts.maxMoves);
    if (this.lastCalls.length === 0) return null;
    const results = this.lastCalls.map((c, i) => ({
      id: c.id,
      name: c.name,
      content: renderResult(this.opts.observation, obs.results[i], obs),
      ok: obs.results[i].success,
    }));
    if (this.lastFromText) return results.map((r) => `${r.name}: ${r.content}`).join('\n');
    this.messages.push({ role: 'tool', results });
    return null;
  }

  /** One step's model call: its prompt after anything pending, only its tools offered. */
  private async ask(a: StepAsk, tally: ReplyTally, deadline?: CallDeadline) {
    this.messages.push({ role: 'user', text: this.pending ? `${this.pending}\n\n${a.prompt}` : a.prompt });
    this.pending = null;
    const tools = a.tools === null ? this.opts.tools : this.opts.tools.filter((t) => a.tools!.includes(t.name));
    const fit = this.fit(tools);
    const t0 = performance.now();
    const { value: reply, retries } = await withRetry(
      (signal) => this.opts.model.complete(this.opts.system, this.messages, tools, signal),
      {
        policy: this.opts.policy,
        classify: this.opts.classify,
        provider: this.opts.model.provider,
        model: this.opts.model.model,
        deadline,
      },
    );
    tally.add(a.step, fit, reply, retries, performance.now() - t0);
    const { calls, fromText } = this.keepReply(reply, tools);
    return {
      text: reply.text,
      calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments, parsedFromText: fromText })),
    };
  }

  /** The context guard's verdict on the prompt (a workflow carries nothing to trim: it fits, or it is refused). */
  private fit(tools: ToolSpec[]): PromptContext {
    const { model, config, system } = this.opts;
    return fitToWindow({
      provider: model.provider,
      model: model.model,
      window: contextWindow(model.provider, model.model, config),
      reserve: replyReserve(model.provider, config),
      policy: config.context_policy,
      estimate: () => estimatePromptTokens(system, this.messages, tools),
      trimOldest: () => 0,
    });
  }

  /** The reply kept in the conversation; its tool calls, or the ones it wrote as text. */
  private keepReply(reply: ModelReply, tools: ToolSpec[]): { calls: ModelToolCall[]; fromText: boolean } {
    let calls = tools.length > 0 ? reply.calls : [];
    let fromText = false;
    if (calls.length === 0 && reply.text && tools.length > 0) {
      calls = parseTextToolCalls(reply.text);
      fromText = calls.length > 0;
    }
    this.messages.push({ role: 'assistant', text: reply.text, calls: fromText ? [] : calls });
    this.lastCalls = calls;
    this.lastFromText = fromText;
    return { calls, fromText };
  }
}

/** What the runner is told of the game: the observation without coordinates. */
function workflowFacts(obs: Observation): WorkflowFacts {
  return {
    turn: obs.turnNumber,
    actionsTaken: obs.actionsTaken,
    actionsLeftInTurn: obs.actionsLeftInTurn,
    tilesSeen: obs.tilesSeen,
    phase: obs.phase,
    results: obs.results,
  };
}

/** One reply's steps summed: tokens and latency added, any step's cut or simulator kept, the reasoning in order. */
class ReplyTally {
  private readonly usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  private reported = false;
  private latencyMs = 0;
  private stopReason: string | null = null;
  private truncated = false;
  private promptTruncated = false;
  private simulator: string | null = null;
  private readonly reasoning: string[] = [];
  private readonly retries: Array<Record<string, unknown>> = [];
  private readonly exchanges: ExchangeRecord[] = [];
  /** The largest prompt among the reply's calls. */
  private context: PromptContext | null = null;

  add(step: string, fit: PromptContext, reply: ModelReply, retries: RetryRecord[], latencyMs: number): void {
    if (this.context === null || fit.estimate > this.context.estimate) this.context = fit;
    this.latencyMs += latencyMs;
    this.retries.push(...retries.map((x) => ({ ...x, step })));
    if (reply.usage) {
      this.reported = true;
      this.usage.inputTokens += reply.usage.inputTokens;
      this.usage.outputTokens += reply.usage.outputTokens;
      addCacheTokens(this.usage, reply.usage);
    }
    this.stopReason = reply.stopReason;
    this.truncated ||= reply.truncated === true;
    this.promptTruncated ||= promptWasCut(fit.window, reply);
    this.simulator ??= reply.simulator ?? null;
    if (reply.reasoning) this.reasoning.push(reply.reasoning.text);
    if (reply.exchange) this.exchanges.push(reply.exchange);
  }

  reply(out: WorkflowReply): AgentReply {
    const reasoning = this.reasoning.join('\n\n');
    return {
      calls: out.calls,
      text: out.text,
      usage: this.reported ? this.usage : null,
      latencyMs: this.latencyMs,
      stopReason: this.stopReason,
      truncated: this.truncated,
      promptTruncated: this.promptTruncated,
      simulator: this.simulator,
      reasoning: this.reasoning.length > 0 ? { text: reasoning, tokens: Math.ceil(reasoning.length / 4) } : null,
      retries: this.retries,
      context: this.context,
      workflow: { steps: out.steps, moves: out.moves },
      ...(this.exchanges.length > 0 ? { exchanges: this.exchanges } : {}),
    };
  }
}

/** Sums a step's prompt-cache tokens into the reply's, leaving them absent while no step reported any. */
function addCacheTokens(sum: TokenUsage, step: TokenUsage): void {
  if (step.cacheReadInputTokens !== undefined)
    sum.cacheReadInputTokens = (sum.cacheReadInputTokens ?? 0) + step.cacheReadInputTokens;
  if (step.cacheWriteInputTokens !== undefined)
    sum.cacheWriteInputTokens = (sum.cacheWriteInputTokens ?? 0) + step.cacheWriteInputTokens;
}
