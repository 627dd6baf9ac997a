// What an LLM agent carries from one turn to the next (config.memory), kept
// in experiments.agent_memory through Agent.memory(): each turn runs in a
// fresh Lambda, so only what the last committed turn wrote survives.
//   history:      the last memory_history_actions executed actions and their outcomes;
//   conversation: every message so far, trimmed from the oldest to memory_conversation_tokens.
import type { ActionResult } from '../../engine/game.ts';
import { jsonbBytes, LIMITS } from '../../store/stored-limits.ts';
import type { ChatMessage } from './chat-model.ts';
import { estimateMessageTokens } from './token-estimate.ts';

export interface HistoryEntry {
  step: number;
  tool: string;
  ok: boolean;
  outcome: string;
  x: number;
  y: number;
}

export interface CarriedMemory {
  history: HistoryEntry[];
  conversation: ChatMessage[];
}

/**
 * A hard cap on the stored memory, whatever the token or action budget: it is one value of the experiment's row, which
 * the Data API reads back whole only under 64 KB (engine/stored-limits.ts). About 7,500 tokens of conversation.
 */
const MEMORY_BYTES = LIMITS['experiments.agent_memory'];

/** The memory the previous turn stored; anything else (null before the first turn) is empty memory. */
export function readMemory(raw: unknown): CarriedMemory {
  const m = (raw && typeof raw === 'object' ? raw : {}) as Partial<Record<keyof CarriedMemory, unknown>>;
  return {
    history: Array.isArray(m.history) ? (m.history as HistoryEntry[]) : [],
    conversation: Array.isArray(m.conversation) ? (m.conversation as ChatMessage[]) : [],
  };
}

/** The executed actions among some results, as history entries. */
export function historyEntries(results: ActionResult[]): HistoryEntry[] {
  return results
    .filter((r) => r.executed && r.step !== null)
    .map((r) => ({ step: r.step!, tool: r.tool, ok: r.success, outcome: r.outcome, x: r.to.x, y: r.to.y }));
}

/** The block that opens a turn's first message in history mode; empty when there is no history yet. */
export function describeHistory(entries: HistoryEntry[]): string {
  if (entries.length === 0) return '';
  return [
    `Your last ${entries.length} actions, oldest first (step, tool, outcome, position after):`,
    ...entries.map((e) => `#${e.step} ${e.tool} ${e.ok ? 'ok' : `blocked (${e.outcome})`} -> (${e.x},${e.y})`),
  ].join('\n');
}

/**
 * The messages without their oldest exchange: up to the next user text message, so that what is left starts the
 * way providers require (no tool results whose calls were dropped). Empty when no later user message exists.
 */
export function dropOldestExchange(messages: ChatMessage[]): ChatMessage[] {
  const next = messages.findIndex((m, i) => i > 0 && m.role === 'user');
  return next < 0 ? [] : messages.slice(next);
}

/**
 * The conversation to store: oldest exchanges dropped until it fits the token budget and the size cap. `scale`
 * turns the estimate into the provider's tokens (the run's calibration, calibration.ts).
 */
export function boundConversation(
  messages: ChatMessage[],
  maxTokens: number,
  scale: (estimate: number) => number = (n) => n,
): ChatMessage[] {
  let kept = messages.map(withoutPictures);
  const fits = (ms: ChatMessage[]) =>
    scale(ms.reduce((n, m) => n + estimateMessageTokens(m), 0)) <= maxTokens &&
    jsonbBytes({ conversation: ms }) <= MEMORY_BYTES;
  while (kept.length > 0 && !fits(kept)) kept = dropOldestExchange(kept);
  return kept;
}

/** The history to store: its newest entries that fit the stored memory's size (the oldest go first, as above). */
export function boundHistory(entries: HistoryEntry[]): HistoryEntry[] {
  let bytes = jsonbBytes({ history: [] });
  let from = entries.length;
  while (from > 0 && (bytes += jsonbBytes(entries[from - 1]) + 2) <= MEMORY_BYTES) from--;
  return from === 0 ? entries : entries.slice(from);
}

/**
 * A carried message's pictures are not stored (the row holds JSON, and pictures are what the turn showed, not what
 * the model said): the text says each was shown, with its hash, so a later turn knows a picture stood there.
 */
function withoutPictures(m: ChatMessage): ChatMessage {
  if (m.role !== 'user' || !m.images?.length) return m;
  const shown = m.images.map((i) => `[picture shown then, sha256 ${i.sha256.slice(0, 12)}, not carried over]`);
  return { role: 'user', text: [m.text, ...shown].join('\n') };
}
