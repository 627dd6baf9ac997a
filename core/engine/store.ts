// What the engine needs from persistence. The Postgres store implements it;
// the engine never sees SQL, pg or AWS.
import type { ExperimentConfig } from '../config/experiment-config.ts';
import type { Maze } from '../maze/maze.ts';
import type { ActionResult, CellEntered, GameState } from './game.ts';
import type { MonitorSnapshot, Phase, StuckSignal } from './agent-monitor.ts';
import type { ExchangeRecord, ModelTimings, PromptContext } from './agent.ts';
import type { BeliefProbeWrite } from './belief-probe.ts';

export type ExperimentStatus = 'running' | 'completed' | 'timeout' | 'failed' | 'stuck';

export interface ExperimentInfo {
  id: string;
  agent: string;
  model: string | null;
  promptText: string | null;
  agentSeed: number;
  status: ExperimentStatus;
  config: ExperimentConfig;
  startedAt: Date;
  /** Provider tokens per estimated token, from the run's first reported prompt count; null before one. */
  tokenCalibration?: number | null;
  /** Where the model's answers come from, as stored at the first turn; null before. */
  provenance?: unknown;
  /** The run a fork continues and after which step; null for any other run. */
  fork?: { parent: string; atStep: number } | null;
}

/** What a run's model calls have spent so far, as its budgets count it (config.max_cost_usd, max_tokens). */
export interface Spend {
  /** Input, cache reads and writes, and output, as reported. */
  tokens: number;
  /** At config.prices; 0 while the model's price is unknown (a cost budget is then refused at start). */
  costUsd: number;
}

export interface TurnContext {
  experiment: ExperimentInfo;
  maze: Maze;
  state: GameState;
  /** Spent by the committed turns; absent in stores that keep no spend (then nothing). */
  spent?: Spend;
  /** The agent monitor after the last committed turn; null before the first. */
  agentState: MonitorSnapshot | null;
  /** The agent's own memory (a workflow's state and variables) after the last committed turn. */
  agentMemory: unknown;
}

/** `deadline`: the turn stopped calling the model before its invocation's time ran out (turn-deadline.ts). */
export type TurnStopReason =
  | 'goal_found'
  | 'action_limit'
  | 'no_tool_calls'
  | 'empty_reply'
  | 'max_moves'
  | 'stuck'
  | 'deadline'
  // the run's budget was spent (config.max_cost_usd, max_tokens): no further model call
  | 'max_cost_usd'
  | 'max_tokens'
  // a person playing gave up (the human agent): the run ends, not solved
  | 'gave_up';

/** A transition as stored: the agent's phase, or a workflow's state (from/to are then workflow states). */
export interface RecordedTransition {
  machine?: 'agent' | 'workflow';
  from: string;
  to: string;
  step: number;
  turn: number;
  cause: string;
  refused: boolean;
  at: Date;
}

/** A stuck signal that ended the run (halt policy). */
export type Halt = Pick<StuckSignal, 'detector' | 'detail' | 'step'>;

export interface TurnTotals {
  llmCalls: number;
  inputTokens: number | null;
  outputTokens: number | null;
  /** Prompt-cache reads and writes (Bedrock); null when no call of the turn reported them. */
  cacheReadInputTokens: number | null;
  cacheWriteInputTokens: number | null;
  costUsd: number | null;
  latencyMs: number;
}

/** One model call of a turn, as the provider reported it. */
export interface LlmCallRecord {
  callIndex: number;
  /** call_index in actions of the first tool call this reply made (null if it made none). */
  firstActionIndex: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadInputTokens: number | null;
  cacheWriteInputTokens: number | null;
  /** Of outputTokens, the reasoning tokens as the provider reported them; null where it reports none apart. */
  reportedReasoningTokens?: number | null;
  latencyMs: number;
  stopReason: string | null;
  text: string | null;
  toolCalls: Array<{ name: string; arguments: unknown; parsedFromText: boolean }>;
  retries: ReadonlyArray<Record<string, unknown>>;
  /** A workflow agent's steps behind this reply; null for other agents. */
  workflowSteps: ReadonlyArray<object> | null;
  /** The context guard's estimate and window; null for agents without a guard. */
  context: PromptContext | null;
  /** Ollama's timings; null for other providers. */
  timings: ModelTimings | null;
  /** The output cap cut the reply; absent for agents that do not say. */
  truncated?: boolean;
  /** The server cut the prompt to its context window; absent for agents that do not say. */
  promptTruncated?: boolean;
  /** The bundled simulator that answered the call; absent: none announced itself. */
  simulator?: string;
  /** Reasoning the model returned: its text, and its tokens estimated from it (reportedReasoningTokens is exact). */
  reasoning?: { text: string; tokens: number | null };
  /** The calibrated estimate missed the reported prompt tokens by more than 10%; absent without both. */
  estimateOff?: boolean;
  /** The image format: hashes of the pictures first sent in this call (AgentReply.images); absent otherwise. */
  images?: string[];
  /** The flight recorder's records of the model requests behind this call (AgentReply.exchanges). */
  exchanges?: ExchangeRecord[];
}

export interface TurnWrite {
  experimentId: string;
  turnNumber: number;
  startedAt: Date;
  endedAt: Date;
  stopReason: TurnStopReason;
  totals: TurnTotals;
  llmCalls: LlmCallRecord[];
  actions: ActionResult[];
  stateAfter: GameState;
  /** The cells the turn's moves entered (the kept totals' loop cells and most entries follow from them). */
  entered: CellEntered[];
  agentStateAfter: MonitorSnapshot;
  /** Written only when the agent has memory (undefined leaves the column as it is). */
  agentMemoryAfter: unknown;
  /** Phase transitions (machine agent) and, for workflow prompts, workflow state transitions, in order. */
  transitions: Array<RecordedTransition>;
  signals: Array<StuckSignal & { at: Date }>;
  stuckPolicy: ExperimentConfig['stuck_policy'];
  halt: Halt | null;
  /** Where the model's answers come from, given at the first turn; kept once stored. */
  provenance?: unknown;
  /** The run's token calibration once it has one; kept once stored. */
  tokenCalibration?: number | null;
  /** For a model run: whether config.prices has the model (cost null and price unknown are then told apart). */
  priceKnown?: boolean | null;
  /** What the turn waited for its provider before it could run (engine/provider-outage.ts); none when absent. */
  providerWait?: { waits: number; seconds: number };
  /** The belief probe after the turn (engine/belief-probe.ts), when one was due. */
  probe?: BeliefProbeWrite;
}

/** A model call answered in a try of a turn that then failed: what it spent, as the provider reported it. */
export type AbandonedCall = Pick<
  LlmCallRecord,
  | 'callIndex'
  | 'inputTokens'
  | 'outputTokens'
  | 'cacheReadInputTokens'
  | 'cacheWriteInputTokens'
  | 'reportedReasoningTokens'
  | 'latencyMs'
  | 'stopReason'
  | 'promptTruncated'
  | 'simulator'
> & {
  /** At the run's config.prices; null when the model has no price or the provider reported no tokens. */
  costUsd: number | null;
};

/** The answered calls of one failed try of a turn; `attempt` names the try, so writing it twice writes it once. */
export interface AbandonedCallsWrite {
  experimentId: string;
  turnNumber: number;
  attempt: string;
  calls: AbandonedCall[];
  /** What ended the try: its error's name and message. */
  error: string;
}

/** What a turn handler returns, also rebuilt from the database when a turn is replayed. */
export interface TurnSummary {
  experimentId: string;
  turnNumber: number;
  actionsExecuted: number;
  callsRefused: number;
  stopReason: TurnStopReason;
  goalFound: boolean;
  actionsTaken: number;
  tilesSeen: number;
  position: { x: number; y: number };
  /** The agent's phase after the turn. */
  phase: Phase;
  /** Set when the halt policy ends the run: CheckProgress then finalizes it as stuck. */
  halt: Halt | null;
  replayed: boolean;
}

export interface EngineStore {
  /**
   * The experiment, its maze and the state after its last committed turn.
   * With `forTurn`, a store may answer from memory when it holds the state
   * after turn forTurn-1; commitTurn then detects if that was stale.
   * The state is the caller's to change: the store keeps no reference to it.
   */
  loadTurnContext(experimentId: string, opts?: { forTurn?: number }): Promise<TurnContext>;
  findTurn(experimentId: string, turnNumber: number): Promise<TurnSummary | null>;
  /**
   * Writes the turn atomically; false if this (experiment, turn) was already written. A store may keep
   * `turn.stateAfter` for the next turn: the caller does not change it afterwards.
   */
  commitTurn(turn: TurnWrite): Promise<boolean>;
  /**
   * Keeps the answered calls of a try of a turn that failed, marked abandoned, and adds them to the run's spend and
   * totals; idempotent by (experiment, turn, attempt, call). Absent in stores that keep no spend.
   */
  recordAbandonedCalls?(write: AbandonedCallsWrite): Promise<void>;
}
