// The turn engine: one turn is up to max_actions_per_turn tool actions, asked of the agent and run in order until it
// stops calling tools, the actions or max_moves run out, the goal is found, a stuck detector halts it, or the deadline
// (turn-deadline.ts) leaves no room for one more call. The whole turn is committed at once, keyed by (experiment,
// turn number), so a retried invocation never doubles a row; calls answered by a try that failed are kept, marked
// abandoned (keepAnsweredCalls), because they were served and spent and the budgets must count them.
import { randomUUID } from 'node:crypto';
import type { AgentFactory, AgentReply, Observation } from './agent.ts';
import { cellsEntered, executeCall, refuseCall, type ActionResult, type GameState } from './game.ts';
import { observationAt } from './observation.ts';
import type { Maze } from '../maze/maze.ts';
import type { ExperimentConfig } from '../config/experiment-config.ts';
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
import { ExperimentClosedError, ModelCallDeadlineError, TurnOutOfOrderError } from '../errors.ts';
import { AgentMonitor, type StuckSignal, type Transition } from './agent-monitor.ts';
import { frontierSearch } from './frontier.ts';
import { budgetReached, priceOf, reportedCostUsd, spentTokens, type SharedBudget } from './token-cost.ts';
import type { ToolCall } from './tools.ts';
import type { TurnDeadline } from './turn-deadline.ts';
import { isThrottle, type TurnUsage } from '../telemetry/telemetry.ts';
import { askBeliefProbe, probeSpend, type BeliefProbeWrite } from './belief-probe.ts';

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
  /** Told what a committed turn did, for its log line and metrics (core/telemetry); a replay tells nothing. */
  onCommitted?: (usage: TurnUsage) => void;
}

type Price = ReturnType<typeof priceOf>;

/** What a try of a turn has been answered so far, at which price: kept as abandoned if the try fails. */
interface Answered {
  calls: LlmCallRecord[];
  price: Price;
  /** The belief probe after the turn, once asked. */
  probe?: BeliefProbeWrite;
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

/** One try of a turn in progress: what it loaded, and what it has done so far. */
interface TurnInProgress {
  experimentId: string;
  turnNumber: number;
  deps: TurnDeps;
  now: () => Date;
  startedAt: Date;
  experiment: TurnContext['experiment'];
  maze: Maze;
  /** Ours to change: the store keeps no reference to it (EngineStore.loadTurnContext). */
  state: GameState;
  config: ExperimentConfig;
  agent: ReturnType<AgentFactory>;
  monitor: AgentMonitor;
  known: Observation['known'];
  price: Price;
  /** What the run had spent before this turn. */
  spent: TurnContext['spent'];
  actions: ActionResult[];
  llmCalls: LlmCallRecord[];
  totals: TurnTotals;
  transitions: RecordedTransition[];
  signals: Array<StuckSignal & { at: Date }>;
  halt: Halt | null;
  executed: number;
  lastResults: ActionResult[];
  /** What the shared budget was charged for this turn so far. */
  charged: { tokens: number; costUsd: number };
}

type TurnContext = Awaited<ReturnType<EngineStore['loadTurnContext']>>;

async function tryTurn(
  experimentId: string,
  turnNumber: number,
  deps: TurnDeps,
  answered: Answered,
): Promise<TurnSummary> {
  const context = await deps.store.loadTurnContext(experimentId, { forTurn: turnNumber });
  const replay = await replayed(experimentId, turnNumber, deps.store, context);
  if (replay) return replay;
  const turn = openTurn(experimentId, turnNumber, deps, context, answered);
  // where the answers come from, asked once, at the first turn (the store keeps the first record it gets)
  const provenance = turnNumber === 1 && turn.agent.provenance ? await turn.agent.provenance() : undefined;
  const stopReason = closeTurn(turn, await playTurn(turn));
  answered.probe = await probeAfter(turn);
  return commit(turn, stopReason, provenance, answered.probe);
}

/**
 * The belief probe due after the turn (belief-probe.ts), asked once the turn is played: apart from the agent's
 * conversation, it changes nothing the turn did or carries. What it spent is charged to a shared budget.
 */
async function probeAfter(t: TurnInProgress): Promise<BeliefProbeWrite | undefined> {
  const probe = await askBeliefProbe({
    agent: t.agent,
    maze: t.maze,
    config: t.config,
    turnNumber: t.turnNumber,
    state: t.state,
    lastResults: t.lastResults,
    deadline: t.deps.deadline,
    budgetSpent: () => budgetSpent(t),
    price: t.price,
  });
  if (probe) t.deps.sharedBudget?.add(probeSpend(probe));
  return probe;
}

/** A retried invocation's turn, already committed: what it wrote. Refuses a closed run or a turn out of order. */
async function replayed(
  experimentId: string,
  turnNumber: number,
  store: EngineStore,
  { experiment, state }: TurnContext,
): Promise<TurnSummary | null> {
  if (state.turnsCompleted >= turnNumber) {
    const existing = await store.findTurn(experimentId, turnNumber);
    if (existing) return existing;
  }
  if (experiment.status !== 'running') throw new ExperimentClosedError(experimentId, experiment.status);
  if (state.turnsCompleted !== turnNumber - 1)
    throw new TurnOutOfOrderError(experimentId, turnNumber, state.turnsCompleted);
  return null;
}

function openTurn(
  experimentId: string,
  turnNumber: number,
  deps: TurnDeps,
  { experiment, maze, state, agentState, agentMemory, spent }: TurnContext,
  answered: Answered,
): TurnInProgress {
  const now = deps.now ?? (() => new Date());
  const config = experiment.config;
  const agent = deps.agents({
    experimentId,
    agent: experiment.agent,
    model: experiment.model,
    seed: experiment.agentSeed,
    config,
    promptText: experiment.promptText,
    memory: agentMemory ?? null,
    tokenCalibration: experiment.tokenCalibration ?? null,
    provenance: experiment.provenance ?? null,
    fork: experiment.fork ?? null,
  });
  answered.price = experiment.model ? priceOf(config.prices, experiment.model) : undefined;
  return {
    experimentId,
    turnNumber,
    deps,
    now,
    startedAt: now(),
    experiment,
    maze,
    state,
    config,
    agent,
    monitor: new AgentMonitor(config.stuck_thresholds, agentState ?? undefined),
    known: { width: maze.width, height: maze.height, cells: state.known },
    price: answered.price,
    spent,
    actions: [],
    llmCalls: answered.calls,
    totals: {
      llmCalls: 0,
      inputTokens: null,
      outputTokens: null,
      cacheReadInputTokens: null,
      cacheWriteInputTokens: null,
      costUsd: null,
      latencyMs: 0,
    },
    transitions: [],
    signals: [],
    halt: null,
    executed: 0,
    lastResults: [],
    charged: { tokens: 0, costUsd: 0 },
  };
}

/** The agent asked and its calls run, reply after reply, until something ends the turn; returns what did. */
async function playTurn(t: TurnInProgress): Promise<TurnStopReason> {
  let stopReason = limitReached(t) ?? budgetSpent(t); // a finished game asks the agent nothing
  // What one more model call may take: its attempt's timeout (a retry starts only if it fits too: retry.ts).
  const callMs = t.agent.callsModel ? t.config.retry.timeout_ms : 0;
  for (let replies = 0; stopReason === null; replies++) {
    // The turn's first call always starts (bounded by the deadline); a later one only if it can end before it.
    if (t.deps.deadline && replies > 0 && !t.deps.deadline.fits(callMs)) return 'deadline';
    if (replies > 0 && (stopReason = budgetSpent(t)) !== null) return stopReason;
    const reply = await ask(t, replies);
    if (reply === null) return 'deadline';
    recordReply(t, reply);
    if (reply.gaveUp) return 'gave_up';
    if (reply.calls.length === 0) return reply.text ? 'no_tool_calls' : 'empty_reply';
    runCalls(t, reply);
    stopReason = limitReached(t);
  }
  return stopReason;
}

/** The agent's reply to what it sees now; null when the deadline stopped a later reply (the turn so far stands). */
async function ask(t: TurnInProgress, replies: number): Promise<AgentReply | null> {
  const observation = observationAt(t.maze, t.config, t.state, {
    turnNumber: t.turnNumber,
    results: t.lastResults,
    phase: t.monitor.phase,
    actionsLeftInTurn: t.config.max_actions_per_turn - t.executed,
    ...(t.config.stuck_policy === 'advise' ? { agentState: t.monitor.view(t.state.actionsTaken, t.turnNumber) } : {}),
  });
  try {
    return await t.agent.act(observation, t.deps.deadline?.forCall());
  } catch (err) {
    // Stopped at the deadline: what the turn did is committed. With no reply yet it did nothing: the error stands.
    if (err instanceof ModelCallDeadlineError && replies > 0) return null;
    throw err;
  }
}

/** Every model request behind the reply was answered from a record, none by a model's server. */
const fromRecord = (reply: AgentReply) =>
  reply.exchanges !== undefined && reply.exchanges.length > 0 && reply.exchanges.every((x) => x.answeredBy !== 'model');

/** A reply's model call, its workflow's moves and its usage, kept with the turn and charged to a shared budget. */
function recordReply(t: TurnInProgress, reply: AgentReply): void {
  if (t.agent.callsModel) t.llmCalls.push(callRecord(reply, t.llmCalls.length, t.actions.length));
  if (reply.workflow) {
    const at = t.now();
    for (const m of reply.workflow.moves)
      t.transitions.push({ machine: 'workflow', ...m, step: t.state.actionsTaken, turn: t.turnNumber, at });
  }
  if (reply.usage && fromRecord(reply)) {
    // answered from a record (a replay, a fork's prefix, the cache): nothing spent; its call keeps what it cost then
    t.totals.inputTokens ??= 0;
    t.totals.outputTokens ??= 0;
  } else if (reply.usage) {
    const { totals } = t;
    totals.inputTokens = (totals.inputTokens ?? 0) + reply.usage.inputTokens;
    totals.outputTokens = (totals.outputTokens ?? 0) + reply.usage.outputTokens;
    const { cacheReadInputTokens: read, cacheWriteInputTokens: write } = reply.usage;
    if (read !== undefined) totals.cacheReadInputTokens = (totals.cacheReadInputTokens ?? 0) + read;
    if (write !== undefined) totals.cacheWriteInputTokens = (totals.cacheWriteInputTokens ?? 0) + write;
  }
  chargeShared(t);
  t.totals.latencyMs += reply.latencyMs ?? 0;
}

/** One model call as the store keeps it. */
function callRecord(reply: AgentReply, callIndex: number, nextAction: number): LlmCallRecord {
  return {
    callIndex,
    firstActionIndex: reply.calls.length > 0 ? nextAction : null,
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
    ...(reply.exchanges ? { exchanges: reply.exchanges } : {}),
  };
}

/** The reply's calls in order: each executed while the turn lasts, refused (and logged) once it has ended. */
function runCalls(t: TurnInProgress, reply: AgentReply): void {
  const { state, maze, config } = t;
  t.lastResults = [];
  reply.calls.forEach((call, k) => {
    const ctx = { callIndex: t.actions.length, assistantText: k === 0 ? (reply.text ?? null) : null };
    const ended = limitReached(t);
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
      t.executed++;
      const frontierDistance = (below?: number) => frontierSearch(t.known, state.position, below)?.distance ?? null;
      watch(t, t.monitor.observe(result, t.turnNumber, frontierDistance));
    }
    t.actions.push(result);
    t.lastResults.push(result);
  });
}

/** The monitor's transitions and signals, kept with the time they were seen; the halt policy's first signal. */
function watch(t: TurnInProgress, seen: { transitions: Transition[]; signals: StuckSignal[] }): void {
  const at = t.now();
  for (const x of seen.transitions) t.transitions.push({ ...x, at });
  for (const s of seen.signals) t.signals.push({ ...s, at });
  if (t.config.stuck_policy === 'halt' && t.halt === null && seen.signals.length > 0) {
    const { detector, detail, step } = seen.signals[0];
    t.halt = { detector, detail, step };
  }
}

/** What of the game ends the turn now, if anything. */
function limitReached(t: TurnInProgress): TurnStopReason | null {
  if (t.state.goalFound) return 'goal_found';
  if (t.halt) return 'stuck';
  if (t.state.actionsTaken >= t.config.max_moves) return 'max_moves';
  return t.executed >= t.config.max_actions_per_turn ? 'action_limit' : null;
}

/** What this turn has spent so far, at the run's prices (a cost budget needs a price: refused at start otherwise). */
function turnCost(t: TurnInProgress): number {
  return reportedCostUsd(t.price, t.totals) ?? 0;
}

/**
 * The run's budget, or the one it shares, spent: checked before each reply, so a run overshoots it by one reply
 * (a workflow's steps).
 */
function budgetSpent(t: TurnInProgress): TurnStopReason | null {
  if (!t.agent.callsModel) return null;
  const run = budgetReached(t.config, {
    tokens: (t.spent?.tokens ?? 0) + spentTokens(t.totals),
    costUsd: (t.spent?.costUsd ?? 0) + turnCost(t),
  });
  return run ?? t.deps.sharedBudget?.reached() ?? null;
}

function chargeShared(t: TurnInProgress): void {
  if (!t.deps.sharedBudget) return;
  const sofar = { tokens: spentTokens(t.totals), costUsd: turnCost(t) };
  t.deps.sharedBudget.add({ tokens: sofar.tokens - t.charged.tokens, costUsd: sofar.costUsd - t.charged.costUsd });
  t.charged = sofar;
}

/** The turn's end: the monitor's last look, the halt policy, the totals; returns the turn's stop reason. */
function closeTurn(t: TurnInProgress, played: TurnStopReason): TurnStopReason {
  const recorded = t.monitor.transitions.length;
  const idle = t.monitor.endTurn(t.turnNumber, t.executed, t.state.actionsTaken);
  watch(t, { transitions: t.monitor.transitions.slice(recorded), signals: idle });
  t.state.turnsCompleted = t.turnNumber;
  t.totals.llmCalls = t.llmCalls.length;
  if (t.price && t.totals.inputTokens !== null) t.totals.costUsd = turnCost(t);
  return t.halt !== null && !t.state.goalFound ? 'stuck' : played;
}

/** The whole turn written at once; a lost race returns the winner's turn. Then told and summarized. */
async function commit(
  t: TurnInProgress,
  stopReason: TurnStopReason,
  /** Where the answers come from (the first turn's, else undefined). */
  provenance: unknown,
  probe: BeliefProbeWrite | undefined,
): Promise<TurnSummary> {
  const { deps, state, experimentId, turnNumber } = t;
  const endedAt = t.now();
  const written = await deps.store.commitTurn({
    experimentId,
    turnNumber,
    startedAt: t.startedAt,
    endedAt,
    stopReason,
    totals: t.totals,
    llmCalls: t.llmCalls,
    actions: t.actions,
    stateAfter: state,
    entered: cellsEntered(state, t.maze.width, t.actions),
    agentStateAfter: t.monitor.snapshot(),
    agentMemoryAfter: t.agent.memory?.(t.lastResults),
    transitions: t.transitions,
    signals: t.signals,
    stuckPolicy: t.config.stuck_policy,
    halt: t.halt,
    provenance,
    tokenCalibration: t.agent.tokenCalibration?.() ?? null,
    priceKnown: t.agent.callsModel && t.experiment.model ? t.price !== undefined : null,
    providerWait: deps.providerWait,
    ...(probe ? { probe } : {}),
  });
  if (!written) return lostRace(deps.store, experimentId, turnNumber);
  deps.onCommitted?.(usageOf(t, stopReason, endedAt));
  return {
    experimentId,
    turnNumber,
    actionsExecuted: t.executed,
    callsRefused: t.actions.length - t.executed,
    stopReason,
    goalFound: state.goalFound,
    actionsTaken: state.actionsTaken,
    tilesSeen: state.tilesSeen,
    position: { ...state.position },
    phase: t.monitor.phase,
    halt: t.halt,
    replayed: false,
  };
}

/** Another invocation of the same turn committed first (its rows are the truth), or the run moved on without us. */
async function lostRace(store: EngineStore, experimentId: string, turnNumber: number): Promise<TurnSummary> {
  const winner = await store.findTurn(experimentId, turnNumber);
  if (winner) return winner;
  const current = await store.loadTurnContext(experimentId);
  if (current.experiment.status !== 'running') throw new ExperimentClosedError(experimentId, current.experiment.status);
  throw new TurnOutOfOrderError(experimentId, turnNumber, current.state.turnsCompleted);
}

/** What a committed turn did, for its log line and metrics. */
function usageOf(t: TurnInProgress, stopReason: TurnStopReason, endedAt: Date): TurnUsage {
  const { totals } = t;
  return {
    experimentId: t.experimentId,
    turn: t.turnNumber,
    agent: t.experiment.agent,
    model: t.experiment.model,
    durationMs: endedAt.getTime() - t.startedAt.getTime(),
    actions: t.executed,
    llmCalls: totals.llmCalls,
    inputTokens: totals.inputTokens,
    outputTokens: totals.outputTokens,
    cacheReadInputTokens: totals.cacheReadInputTokens,
    cacheWriteInputTokens: totals.cacheWriteInputTokens,
    costUsd: totals.costUsd,
    throttles: t.llmCalls.reduce((n, c) => n + c.retries.filter(isThrottle).length, 0),
    stopReason,
    goalFound: t.state.goalFound,
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
  const probe = t.probe?.answeredBy === 'model' ? t.probe : undefined;
  if ((t.calls.length === 0 && !probe) || !store.recordAbandonedCalls) return;
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
  // the belief probe's call, answered by the server: spent, as the turn's calls were
  if (probe) calls.push(probeCall(probe, calls.length));
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

/** A belief probe's model call as an abandoned call of its turn's try, after the turn's own. */
function probeCall(p: BeliefProbeWrite, callIndex: number): AbandonedCall {
  return {
    callIndex,
    inputTokens: p.usage?.inputTokens ?? null,
    outputTokens: p.usage?.outputTokens ?? null,
    cacheReadInputTokens: p.usage?.cacheReadInputTokens ?? null,
    cacheWriteInputTokens: p.usage?.cacheWriteInputTokens ?? null,
    reportedReasoningTokens: p.usage?.reasoningTokens ?? null,
    latencyMs: p.latencyMs,
    stopReason: p.stopReason,
    ...(p.simulator ? { simulator: p.simulator } : {}),
    costUsd: p.costUsd,
  };
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
