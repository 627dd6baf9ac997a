// The one interface every agent implements: baselines here, LLM providers
// later. An agent is created per turn; anything it must remember across turns
// comes from the Observation, which the engine rebuilds from the database.
import type { Grid, Point } from '../maze/grid.ts';
import type { ExperimentConfig } from '../config/experiment-config.ts';
import type { ActionResult, SeenTile } from './game.ts';
import type { ToolCall } from './tools.ts';
import type { AgentStateView, Phase } from './agent-monitor.ts';

export interface KnownMap {
  readonly width: number;
  readonly height: number;
  /** UNKNOWN (255) or the tile the agent saw there. */
  readonly cells: Uint8Array;
}

export interface Observation {
  turnNumber: number;
  position: Point;
  visible: SeenTile[];
  known: KnownMap;
  /**
   * The whole maze, for the full-information observation formats (config.observation full_map and adjacency)
   * only: every other agent and format must go by `visible` and `known`.
   */
  grid: Grid;
  /** Results of the calls in the agent's previous reply within this turn; empty at turn start. */
  results: ActionResult[];
  actionsTaken: number;
  tilesSeen: number;
  /** The agent monitor's phase (exploring, backtracking, recalling, stuck, finishing). */
  phase: Phase;
  actionsLeftInTurn: number;
  config: ExperimentConfig;
  /** Only under the `advise` stuck policy: the agent's phase and what the detectors saw. */
  agentState?: AgentStateView;
}

export interface TokenUsage {
  /** With prompt caching, only the input neither read from nor written to the cache. */
  inputTokens: number;
  outputTokens: number;
  /** Input read from the provider's prompt cache (Bedrock usage.cacheReadInputTokens); absent when not reported. */
  cacheReadInputTokens?: number;
  /** Input written to the provider's prompt cache (Bedrock usage.cacheWriteInputTokens). */
  cacheWriteInputTokens?: number;
  /**
   * Of outputTokens, those the provider reports as reasoning (OpenAI completion_tokens_details.reasoning_tokens);
   * absent when it reports none apart (Ollama, Bedrock).
   */
  reasoningTokens?: number;
}

/** The context guard's view of one model call (providers/llm/context-guard.ts). */
export interface PromptContext {
  /** The prompt's estimated tokens as sent (after any trimming): characters / 4. */
  estimate: number;
  /** The same in the provider's tokens: scaled by the run's calibration (the estimate itself before one). */
  calibrated?: number;
  /** The model's context window in tokens; null when unknown (no guard). */
  window: number | null;
  /** Messages (or history entries) dropped to fit the window. */
  trimmed: number;
}

/** Ollama's timings of one /api/chat call, in nanoseconds as it reports them. */
export interface ModelTimings {
  totalDurationNs: number | null;
  loadDurationNs: number | null;
  promptEvalCount: number | null;
  promptEvalDurationNs: number | null;
  evalCount: number | null;
  evalDurationNs: number | null;
}

/** A model call's record (providers/llm/recorded-model.ts): its request by its parts and its reply, as stored. */
export interface ExchangeRecord {
  requestKey: string;
  /** The request by the hashes of its parts (providers/llm/model-request.ts). */
  manifest: object;
  /** Each part's canonical JSON by its hash. */
  bodies: ReadonlyMap<string, string>;
  reply: string;
  replySha256: string;
  /** Who answered: the model's server, the record of the run a replay or fork repeats, or the cache (config.cache). */
  answeredBy: 'model' | 'replay' | 'cache';
}

export interface AgentReply {
  calls: ToolCall[];
  text?: string | null;
  usage?: TokenUsage | null;
  latencyMs?: number | null;
  stopReason?: string | null;
  /** Retries made before this reply arrived (provider-specific records, logged as they are). */
  retries?: ReadonlyArray<Record<string, unknown>>;
  context?: PromptContext | null;
  timings?: ModelTimings | null;
  /** The output cap cut the reply (stop reason max_tokens / length). */
  truncated?: boolean | null;
  /** The server cut the prompt to its context window (providers/llm/prompt-cut.ts). */
  promptTruncated?: boolean | null;
  /** The bundled simulator that answered (it announced itself); null: a server that announced none. */
  simulator?: string | null;
  /** Reasoning the model returned (Ollama message.thinking, Bedrock reasoningContent), with its tokens estimated. */
  reasoning?: { text: string; tokens: number | null } | null;
  /** The calibrated estimate and the reported prompt tokens differ by more than 10% of the reported count. */
  estimateOff?: boolean | null;
  /**
   * The image observation format: the sha256 of each picture first sent in this call, in order (the call's prompt
   * also holds the turn's earlier pictures, recorded with the calls that first sent them).
   */
  images?: string[];
  /** A workflow agent's steps for this reply and the moves between its states (logged as machine 'workflow'). */
  workflow?: {
    steps: ReadonlyArray<object>;
    moves: ReadonlyArray<{ from: string; to: string; cause: string; refused: boolean }>;
  };
  /** The records of the model calls behind this reply, in order (one; a workflow's steps, several). */
  exchanges?: ExchangeRecord[];
  /** The player gave up (the human agent, providers/human-agent.ts): the turn ends, and the run, not solved. */
  gaveUp?: boolean;
}

/** The answer to a belief probe (Agent.probe, engine/belief-probe.ts) and what its one model call took. */
export interface ProbeReply {
  text: string;
  usage: TokenUsage | null;
  latencyMs: number;
  stopReason: string | null;
  /** The output cap cut the answer (max_output_tokens). */
  truncated: boolean;
  simulator: string | null;
  /** The model's server, or the record of the run a replay repeats (nothing spent then). */
  answeredBy: 'model' | 'replay';
}

/**
 * The time a turn has left for the model calls of one act (turn-deadline.ts). An agent hands `signal` to its calls,
 * so a call still running at the deadline is stopped, and starts no retry `remainingMs()` cannot fit; either way it
 * throws ModelCallDeadlineError, and the engine ends the turn with what it did.
 */
export interface CallDeadline {
  readonly signal: AbortSignal;
  remainingMs(): number;
}

export interface Agent {
  /** True when each act() is a model call (counted in turns.llm_calls); baselines are not. */
  readonly callsModel?: boolean;
  /** `deadline`: when the turn has one; agents that call no model may ignore it. */
  act(observation: Observation, deadline?: CallDeadline): Promise<AgentReply>;
  /**
   * What the agent must remember into the next turn (plain JSON, persisted
   * with the turn); agents without memory omit it. `lastResults` are the
   * results of the turn's last calls, which the agent was never shown.
   */
  memory?(lastResults: ActionResult[]): unknown;
  /** Where the answers come from (provider, model digest or profile, Region...): stored once, at the first turn. */
  provenance?(): Promise<unknown>;
  /** Provider tokens per estimated token, once the run has one (persisted so a later turn starts calibrated). */
  tokenCalibration?(): number | null;
  /**
   * A belief probe after the turn (engine/belief-probe.ts): `question` asked after the turn's conversation and the
   * results of its last calls, apart from it; nothing the agent keeps or carries changes. Null when the turn asked
   * the model nothing. Absent for agents that are never asked (baselines, workflows).
   */
  probe?(
    question: string,
    turn: number,
    lastResults: ActionResult[],
    deadline?: CallDeadline,
  ): Promise<ProbeReply | null>;
}

interface AgentIdentity {
  experimentId: string;
  agent: string;
  model: string | null;
  seed: number;
  config: ExperimentConfig;
  /** The rendered system prompt of the experiment's prompt version (null for baselines). */
  promptText: string | null;
  /** What the agent's memory() returned after the previous turn; null before the first. */
  memory?: unknown;
  /** The run's token calibration from an earlier turn (Agent.tokenCalibration); null before it has one. */
  tokenCalibration?: number | null;
  /** The run's provenance as stored at its first turn (Agent.provenance); null or absent before. */
  provenance?: unknown;
  /** A fork: the run it continues and after which step (its first calls are answered from that run's record). */
  fork?: { parent: string; atStep: number } | null;
  /** Secrets for this call only (e.g. ollama_api_key): never logged or stored. */
  secrets?: Readonly<Record<string, string>>;
}

export type AgentFactory = (identity: AgentIdentity) => Agent;
