// The one interface every agent implements: baselines here, LLM providers
// later. An agent is created per turn; anything it must remember across turns
// comes from the Observation, which the engine rebuilds from the database.
import type { Point } from '../maze/grid.ts';
import type { ExperimentConfig } from '../config/experiment-config.ts';
import type { ActionResult, SeenTile } from './game.ts';
import type { ToolCall } from './tools.ts';
import type { AgentStateView } from './agent-monitor.ts';

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
  /** Results of the calls in the agent's previous reply within this turn; empty at turn start. */
  results: ActionResult[];
  actionsTaken: number;
  actionsLeftInTurn: number;
  config: ExperimentConfig;
  /** Only under the `advise` stuck policy: the agent's phase and what the detectors saw. */
  agentState?: AgentStateView;
}

export interface TokenUsage { inputTokens: number; outputTokens: number }

export interface AgentReply {
  calls: ToolCall[];
  text?: string | null;
  usage?: TokenUsage | null;
  latencyMs?: number | null;
  stopReason?: string | null;
  /** Retries made before this reply arrived (provider-specific records, logged as they are). */
  retries?: ReadonlyArray<Record<string, unknown>>;
}

export interface Agent {
  /** True when each act() is a model call (counted in turns.llm_calls); baselines are not. */
  readonly callsModel?: boolean;
  act(observation: Observation): Promise<AgentReply>;
}

export interface AgentIdentity {
  experimentId: string;
  agent: string;
  model: string | null;
  seed: number;
  config: ExperimentConfig;
  /** The rendered system prompt of the experiment's prompt version (null for baselines). */
  promptText: string | null;
  /** Secrets for this call only (e.g. ollama_api_key): never logged or stored. */
  secrets?: Readonly<Record<string, string>>;
}

export type AgentFactory = (identity: AgentIdentity) => Agent;
