// The turn engine: one turn is up to max_actions_per_turn tool actions. The
// agent is asked, its calls run in order, results go back, until it stops
// calling tools, the turn's actions are used up, the goal is found, or
// max_moves is reached, or (halt policy) a stuck detector trips. The agent
// monitor watches every executed action. With a deadline (turn-deadline.ts)
// the turn also ends when one more model call would not end before it, or
// when the deadline stops a call: its actions so far are then a whole turn.
// The whole turn, with the monitor's transitions, signals and state, is
// committed at once, keyed by (experiment, turn number), so a retried
// invocation never doubles a row. A try of a turn that fails after the model
// answered keeps those calls apart, marked abandoned (keepAnsweredCalls): they
// were served and spent, so the run's totals and budgets count them.
import { randomUUID } from 'node:crypto';
import type { AgentFactory, AgentReply, Observation } from './agent.ts';
import { cellsEntered, executeCall, refuseCall, toSeen, visionOf, type ActionResult, type GameState } from './game.ts';
import type { Maze } from '../maze/maze.ts';
import type { ExperimentConfig } from '../config/experiment-config.ts';
import { visibleCells } from '../maze/vision.ts';
import type {
  AbandonedCall,
  EngineStore,
  Halt,
  LlmCallRecord,
  RecordedTransition,
  TurnStopReason,
  TurnSummary,
  TurnTotals,
} from './store.ts';
import { ExperimentClosedError, ModelCallDeadlineError, TurnOutOfOrderError } from './errors.ts';
import { AgentMonitor, type StuckSignal, type Transition } from './agent-monitor.ts';
import { frontierSearch } from './frontier.ts';
import { budgetReached, priceOf, reportedCostUsd, spentTokens, type SharedBudget } from './token-cost.ts';
import type { ToolCall } from './tools.ts';
import type { TurnDeadline } from './turn-deadline.ts';
import { isThrottle, type TurnUsage } from '../telemetry/telemetry.ts';

export interface TurnDeps {
  store: EngineStore;
  agents: AgentFactory;
  now?: () => Date;
  /** When the turn's model calls must have ended; none: they run as long as they take. */
  deadline?: TurnDeadline;
  /** What the state machine waited for the provider before this try of the turn (recorded with the turn). */
  providerWait?: { waits: number; seconds: number };
  /** A budget this run shares with others (a sweep's, on this machine): charged by each reply, checked before each. */
  sharedBudget?: SharedBudget;
  /** Told what a committed turn did, for its log line and metrics (lambdas/telemetry); a replay tells nothing. */
  onCommitted?: (usage: TurnUsage) => void;
}

type Price = ReturnType<typeof priceOf>;

/** What a try of a turn has been answered so far, at which price: kept as abandoned if the try fails. */
interface Answered {
  calls: LlmCallRecord[];
  price: Price;
}

export async function runTurn(experimentId: string, turnNumber: number, deps: TurnDeps): Promise<TurnSummary> {
  const answered: Answered = { calls: [], price: undefined };
  try {
    return await tryTurn(experimentId, turnNumber, deps, answered);
  } catch (err) {
    await keepAnsweredCalls(deps.store, { experimentId, turnNumber, ...answered }, err);
    throw err;
  }
}

async function tryTurn(
  experimentId: string,
  turnNumber: number,
  deps: TurnDeps,
  answered: Answered,
): Promise<TurnSummary> {
  const now = deps.now ?? (() => new Date());
  const {
    experiment,
    maze,
    // ours to change: the store keeps no reference to it (EngineStore.loadTurnContext)
    state,
    agentState,
    agentMemory,
    spent,
  } = await deps.store.loadTurnContext(experimentId, { forTurn: turnNumber });
  if (state.turnsCompleted >= turnNumber) {
    // A replay (a retried invocation): return what was committed, write nothing.
    const existing = await deps.store.findTurn(experimentId, turnNumber);
    if (existing) return existing;
  }
  if (experiment.status !== 'running') throw new ExperimentClosedError(experimentId, experiment.status);
  if (state.turnsCompleted !== turnNumber - 1)
    throw new TurnOutOfOrderError(experimentId, turnNumber, state.turnsCompleted);

  const config = experiment.config;
  const startedAt = now();
  const agent = deps.agents({
    experimentId,
    agent: experiment.agent,
    model: experiment.model,
    seed: experiment.agentSeed,
    config,
    promptText: experiment.promptText,
    memory: agentMemory ?? null,
    tokenCalibration: experiment.tokenCalibration ?? null,
  });
  // where the answers come from, asked once, at the first turn (the store keeps the first record it gets)
  const provenance = turnNumber === 1 && agent.provenance ? await agent.provenance() : undefined;
  const actions: ActionResult[] = [];
  const llmCalls: LlmCallRecord[] = answered.calls;
  const totals: TurnTotals = {
    llmCalls: 0,
    inputTokens: null,
    outputTokens: null,
    cacheReadInputTokens: null,
    cacheWriteInputTokens: null,
    costUsd: null,
    latencyMs: 0,
  };
  let executed = 0;
  let lastResults: ActionResult[] = [];
  const monitor = new AgentMonitor(config.stuck_thresholds, agentState ?? undefined);
  const transitions: RecordedTransition[] = [];
  const signals: Array<StuckSignal & { at: Date }> = [];
  let halt: Halt | null = null;
  const known = { width: maze.width, height: maze.height, cells: state.known };
  const frontierDistance = (below?: number) => frontierSearch(known, state.position, below)?.distance ?? null;
  const watch = (seen: { transitions: Transition[]; signals: StuckSignal[] }) => {
    const at = now();
    for (const t of seen.transitions) transitions.push({ ...t, at });
    for (const s of seen.signals) signals.push({ ...s, at });
    if (config.stuck_policy === 'halt' && halt === null && seen.signals.length > 0) {
      const { detector, detail, step } = seen.signals[0];
      halt = { detector, detail, step };
    }
  };
  const limitReached = (): TurnStopReason | null =>
    state.goalFound
      ? 'goal_found'
      : halt
        ? 'stuck'
        : state.actionsTaken >= config.max_moves
          ? 'max_moves'
          : executed >= config.max_actions_per_turn
            ? 'action_limit'
            : null;
  const price = experiment.model ? priceOf(config.prices, experiment.model) : undefined;
  answered.price = price;
  // What this turn has spent so far, at the run's prices (a cost budget needs a price: refused at start otherwise).
  const turnCost = (): number => reportedCostUsd(price, totals) ?? 0;
  /**
   * The run's budget, or the one it shares, spent: checked before each reply, so a run overshoots it by one reply
   * (a workflow's steps).
   */
  const budgetSpent = (): TurnStopReason | null =>
    agent.callsModel
      ? (budgetReached(config, {
          tokens: (spent?.tokens ?? 0) + spentTokens(totals),
          costUsd: (spent?.costUsd ?? 0) + turnCost(),
        }) ??
        deps.sharedBudget?.reached() ??
        null)
      : null;
  // what the shared budget was charged for this turn so far
  const charged = { tokens: 0, costUsd: 0 };
  const chargeShared = () => {
    if (!deps.sharedBudget) return;
    const now = { tokens: spentTokens(totals), costUsd: turnCost() };
    deps.sharedBudget.add({ tokens: now.tokens - charged.tokens, costUsd: now.costUsd - charged.costUsd });
    Object.assign(charged, now);
  };
  let stopReason: TurnStopReason | null = limitReached() ?? budgetSpent(); // a finished game asks the agent nothing
  const { deadline } = deps;
  // What one more model call may take: its attempt's timeout (a retry starts only if it fits too: retry.ts).
  const callMs = agent.callsModel ? config.retry.timeout_ms : 0;
  let replies = 0;

  while (stopReason === null) {
    // The turn's first call always starts (bounded by the deadline); a later one only if it can end before it.
    if (deadline && replies > 0 && !deadline.fits(callMs)) {
      stopReason = 'deadline';
      break;
    }
    if (replies > 0 && (stopReason = budgetSpent()) !== null) break;
    const visible = toSeen(maze, visibleCells(maze.grid, state.position, visionOf(config)));
    const observation: Observation = {
      turnNumber,
      position: { ...state.position },
      visible,
      known,
      grid: maze.grid,
      results: lastResults,
      actionsTaken: state.actionsTaken,
      tilesSeen: state.tilesSeen,
      phase: monitor.phase,
      actionsLeftInTurn: config.max_actions_per_turn - executed,
      config,
      ...(config.stuck_policy === 'advise' ? { agentState: monitor.view(state.actionsTaken, turnNumber) } : {}),
    };
    let reply: AgentReply;
    try {
      reply = await agent.act(observation, deadline?.forCall());
    } catch (err) {
      // Stopped at the deadline: what the turn did is committed. With no reply yet it did nothing: the error stands.
      if (err instanceof ModelCallDeadlineError && replies > 0) {
        stopReason = 'deadline';
        break;
      }
      throw err;
    }
    replies++;
    if (agent.callsModel) {
      llmCalls.push({
        callIndex: llmCalls.length,
        firstActionIndex: reply.calls.length > 0 ? actions.length : null,
        inputTokens: reply.usage?.inputTokens ?? null,
        outputTokens: reply.usage?.outputTokens ?? null,
        cacheReadInputTokens: reply.usage?.cacheReadInputTokens ?? null,
        cacheWriteInputTokens: reply.usage?.cacheWriteInputTokens ?? null,
        reportedReasoningTokens: reply.usage?.reasoningTokens ?? null,
        latencyMs: Math.round(reply.latencyMs ?? 0),
        stopReason: reply.stopReason ?? null,
        text: reply.text ?? null,
        toolCalls: reply.calls.map((c) => ({
          name: String(c.name),
          arguments: c.arguments ?? null,
          parsedFromText: c.parsedFromText === true,
        })),
        retries: reply.retries ?? [],
        workflowSteps: reply.workflow?.steps ?? null,
        context: reply.context ?? null,
        timings: reply.timings ?? null,
        // only what the agent reported: a baseline or scripted agent's record stays as it was
        ...(typeof reply.truncated === 'boolean' ? { truncated: reply.truncated } : {}),
        ...(typeof reply.promptTruncated === 'boolean' ? { promptTruncated: reply.promptTruncated } : {}),
        ...(reply.simulator ? { simulator: reply.simulator } : {}),
        ...(reply.reasoning ? { reasoning: reply.reasoning } : {}),
        ...(typeof reply.estimateOff === 'boolean' ? { estimateOff: reply.estimateOff } : {}),
        ...(reply.images ? { images: reply.images } : {}),
      });
    }
    if (reply.workflow) {
      const at = now();
      for (const m of reply.workflow.moves)
        transitions.push({ machine: 'workflow', ...m, step: state.actionsTaken, turn: turnNumber, at });
    }
    if (reply.usage) {
      totals.inputTokens = (totals.inputTokens ?? 0) + reply.usage.inputTokens;
      totals.outputTokens = (totals.outputTokens ?? 0) + reply.usage.outputTokens;
      const { cacheReadInputTokens: read, cacheWriteInputTokens: write } = reply.usage;
      if (read !== undefined) totals.cacheReadInputTokens = (totals.cacheReadInputTokens ?? 0) + read;
      if (write !== undefined) totals.cacheWriteInputTokens = (totals.cacheWriteInputTokens ?? 0) + write;
    }
    chargeShared();
    totals.latencyMs += reply.latencyMs ?? 0;
    if (reply.calls.length === 0) {
      stopReason = reply.text ? 'no_tool_calls' : 'empty_reply';
      break;
    }

    lastResults = [];
    reply.calls.forEach((call, k) => {
      const ctx = { callIndex: actions.length, assistantText: k === 0 ? (reply.text ?? null) : null };
      const ended = limitReached();
      const result =
        ended === null
          ? config.strict_tool_calls === true && call.parsedFromText === true
            ? refuseTextCall(state, maze, config, call, ctx)
            : executeCall(state, maze, config, call, ctx)
          : ended === 'action_limit'
            ? refuseCall(
                state,
                call,
                ctx,
                'refused_action_limit',
                `not executed: a turn runs at most ${config.max_actions_per_turn} actions`,
              )
            : refuseCall(state, call, ctx, 'refused_turn_over', `not executed: the turn ended (${ended})`);
      if (result.executed) {
        executed++;
        watch(monitor.observe(result, turnNumber, frontierDistance));
      }
      actions.push(result);
      lastResults.push(result);
    });
    stopReason = limitReached();
  }

  const recorded = monitor.transitions.length;
  const idle = monitor.endTurn(turnNumber, executed, state.actionsTaken);
  watch({ transitions: monitor.transitions.slice(recorded), signals: idle });
  if (halt !== null && !state.goalFound) stopReason = 'stuck';
  state.turnsCompleted = turnNumber;
  totals.llmCalls = llmCalls.length;
  if (price && totals.inputTokens !== null) totals.costUsd = turnCost();
  const endedAt = now();
  const written = await deps.store.commitTurn({
    experimentId,
    turnNumber,
    startedAt,
    endedAt,
    stopReason,
    totals,
    llmCalls,
    actions,
    stateAfter: state,
    entered: cellsEntered(state, maze.width, actions),
    agentStateAfter: monitor.snapshot(),
    agentMemoryAfter: agent.memory?.(lastResults),
    transitions,
    signals,
    stuckPolicy: config.stuck_policy,
    halt,
    provenance,
    tokenCalibration: agent.tokenCalibration?.() ?? null,
    priceKnown: agent.callsModel && experiment.model ? price !== undefined : null,
    providerWait: deps.providerWait,
  });
  if (!written) {
    // Another invocation of the same turn committed first: its rows are the truth.
    const winner = await deps.store.findTurn(experimentId, turnNumber);
    if (winner) return winner;
    // Or the experiment moved on without us (finalized, or further along).
    const current = await deps.store.loadTurnContext(experimentId);
    if (current.experiment.status !== 'running')
      throw new ExperimentClosedError(experimentId, current.experiment.status);
    throw new TurnOutOfOrderError(experimentId, turnNumber, current.state.turnsCompleted);
  }
  deps.onCommitted?.({
    experimentId,
    turn: turnNumber,
    agent: experiment.agent,
    model: experiment.model,
    durationMs: endedAt.getTime() - startedAt.getTime(),
    actions: executed,
    llmCalls: totals.llmCalls,
    inputTokens: totals.inputTokens,
    outputTokens: totals.outputTokens,
    cacheReadInputTokens: totals.cacheReadInputTokens,
    cacheWriteInputTokens: totals.cacheWriteInputTokens,
    costUsd: totals.costUsd,
    throttles: llmCalls.reduce((n, c) => n + c.retries.filter(isThrottle).length, 0),
    stopReason,
    goalFound: state.goalFound,
  });
  return {
    experimentId,
    turnNumber,
    actionsExecuted: executed,
    callsRefused: actions.length - executed,
    stopReason,
    goalFound: state.goalFound,
    actionsTaken: state.actionsTaken,
    tilesSeen: state.tilesSeen,
    position: { ...state.position },
    phase: monitor.phase,
    halt,
    replayed: false,
  };
}

/**
 * The calls a failed try of a turn had answered, kept as abandoned (their spend counts in the run's totals and
 * budgets), unless the turn was written after all (a commit whose reply was lost): its calls are then the turn's.
 * Keeping them is best effort: the caller rethrows the turn's own error, which decides what happens to the run.
 */
async function keepAnsweredCalls(
  store: EngineStore,
  t: { experimentId: string; turnNumber: number } & Answered,
  err: unknown,
): Promise<void> {
  if (t.calls.length === 0 || !store.recordAbandonedCalls) return;
  const calls = t.calls.map((c): AbandonedCall => ({
    callIndex: c.callIndex,
    inputTokens: c.inputTokens,
    outputTokens: c.outputTokens,
    cacheReadInputTokens: c.cacheReadInputTokens,
    cacheWriteInputTokens: c.cacheWriteInputTokens,
    reportedReasoningTokens: c.reportedReasoningTokens ?? null,
    latencyMs: c.latencyMs,
    stopReason: c.stopReason,
    promptTruncated: c.promptTruncated,
    simulator: c.simulator,
    costUsd: reportedCostUsd(t.price, c),
  }));
  const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  try {
    if (await store.findTurn(t.experimentId, t.turnNumber)) return;
    await store.recordAbandonedCalls({
      experimentId: t.experimentId,
      turnNumber: t.turnNumber,
      attempt: randomUUID(),
      calls,
      error,
    });
  } catch {
    // the store is failing too: the turn's error, rethrown by the caller, is the one to report
  }
}

/**
 * strict_tool_calls: a call the model wrote as JSON in its reply text, rather than through the tool-calling
 * channel, is not executed. It is logged as invalid_arguments and, like one, takes a step (counts toward max_moves)
 * and leaves the agent where it was: executed as a call of no tool, then logged under the name the model wrote.
 */
function refuseTextCall(
  state: GameState,
  maze: Maze,
  config: ExperimentConfig,
  call: ToolCall,
  ctx: Parameters<typeof executeCall>[4],
): ActionResult {
  const noTool = executeCall(state, maze, config, { name: '', arguments: {} }, ctx);
  const args = call.arguments as { reasoning?: unknown } | null | undefined;
  return {
    ...noTool,
    tool: String(call.name),
    arguments: call.arguments ?? null,
    reasoning: typeof args?.reasoning === 'string' ? args.reasoning : null,
    parsedFromText: true,
    outcome: 'invalid_arguments',
    message:
      `${String(call.name).slice(0, 80)}: written as JSON in the reply text, not as a tool call; ` +
      'not executed under strict_tool_calls',
  };
}
