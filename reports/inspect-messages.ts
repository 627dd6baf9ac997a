// A run's model conversation as Inspect AI chat messages, from the flight recorder's requests and replies: each
// request's messages after those the previous request already held, then the reply. A run recorded before the
// recorder, or a baseline, is told from its model calls' text and its actions. Pictures are named by their hash.
// A reply's metadata says what was not a model's plain answer: replayed, cached, a bundled simulator's, or cut.
import type { ExportedAction, ExportedCall, RecordedExchange } from '../results/run-export.ts';

/** Inspect's ChatMessage (inspect_ai.model: ChatMessageSystem, -User, -Assistant, -Tool), as serialized. */
export type InspectMessage =
  | { role: 'system'; content: string; source: 'input' }
  | { role: 'user'; content: string | InspectContent[]; source: 'input' }
  | {
      role: 'assistant';
      content: string | InspectContent[];
      tool_calls: InspectToolCall[] | null;
      model: string | null;
      source: 'generate';
      metadata?: ReplyNote;
    }
  | {
      role: 'tool';
      content: string;
      tool_call_id: string;
      function: string;
      error: { type: 'unknown'; message: string } | null;
    };

type InspectContent =
  { type: 'text'; text: string } | { type: 'reasoning'; reasoning: string; redacted: false; signature?: string };

interface InspectToolCall {
  id: string;
  function: string;
  arguments: Record<string, unknown>;
  type: 'function';
}

/** The recorded ChatMessage (core/providers/llm/chat-model.ts), its pictures by hash. */
type RecordedMessage =
  | { role: 'user'; text: string; images?: Array<{ sha256: string }> }
  | { role: 'assistant'; text: string; calls: RecordedCall[]; reasoning?: { text: string; signature?: string } | null }
  | { role: 'tool'; results: Array<{ id: string; name: string; content: string; ok: boolean }> };

interface RecordedCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** A recorded reply (ModelReply as stored): what the model answered. */
export interface RecordedReply {
  text: string;
  calls: RecordedCall[];
  stopReason: string | null;
  reasoning?: { text: string; signature?: string } | null;
}

/** What an assistant message's metadata says of its reply; absent for a model's own answer, whole and uncut. */
type ReplyNote = Record<string, string | boolean>;

/** The note of a reply: who answered it (replay, cache) when not the model, the simulator, the cuts. */
function replyNote(call: ExportedCall | undefined, answeredBy: string | null): ReplyNote | null {
  const note: ReplyNote = {
    ...(answeredBy && answeredBy !== 'model' ? { answered_by: answeredBy } : {}),
    ...(call?.simulator ? { simulator: call.simulator } : {}),
    ...(call?.prompt_truncated ? { prompt_truncated: true } : {}),
    ...(call?.truncated ? { output_truncated: true } : {}),
  };
  return Object.keys(note).length > 0 ? note : null;
}

/** Tool arguments are an object in Inspect; anything else (a string the model wrote) is kept under `value`. */
const argumentsOf = (a: unknown): Record<string, unknown> =>
  a !== null && typeof a === 'object' && !Array.isArray(a) ? (a as Record<string, unknown>) : { value: a };

const toolCalls = (calls: RecordedCall[]): InspectToolCall[] | null =>
  calls.length === 0
    ? null
    : calls.map((c) => ({ id: c.id, function: c.name, arguments: argumentsOf(c.arguments), type: 'function' }));

function assistant(
  m: { text: string; calls: RecordedCall[]; reasoning?: RecordedReply['reasoning'] },
  model: string | null,
  note: ReplyNote | null = null,
): InspectMessage {
  const reasoning: InspectContent[] = m.reasoning
    ? [
        {
          type: 'reasoning',
          reasoning: m.reasoning.text,
          redacted: false,
          ...(m.reasoning.signature ? { signature: m.reasoning.signature } : {}),
        },
      ]
    : [];
  const content = reasoning.length > 0 ? [...reasoning, { type: 'text' as const, text: m.text }] : m.text;
  const message = {
    role: 'assistant' as const,
    content,
    tool_calls: toolCalls(m.calls),
    model,
    source: 'generate' as const,
  };
  return note ? { ...message, metadata: note } : message;
}

/** One recorded message as Inspect's messages (a tool message holds every result of a reply: one message each). */
function converted(m: RecordedMessage, model: string | null): InspectMessage[] {
  if (m.role === 'assistant') return [assistant(m, model)];
  if (m.role === 'tool')
    return m.results.map((r) => ({
      role: 'tool',
      content: r.content,
      tool_call_id: r.id,
      function: r.name,
      error: r.ok ? null : { type: 'unknown', message: r.content },
    }));
  if (!m.images || m.images.length === 0) return [{ role: 'user', content: m.text, source: 'input' }];
  const pictures = m.images.map((i) => `[picture ${i.sha256}: drawn again by ariadne replay, not embedded]`);
  return [{ role: 'user', content: [{ type: 'text', text: [m.text, ...pictures].join('\n') }], source: 'input' }];
}

/** How many of `next`'s first hashes repeat the last ones of `previous`: what `next` carries over from it. */
export function carriedOver(previous: readonly string[], next: readonly string[]): number {
  for (let k = Math.min(previous.length, next.length); k > 0; k--) {
    const start = previous.length - k;
    let same = true;
    for (let i = 0; i < k && same; i++) same = previous[start + i] === next[i];
    if (same) return k;
  }
  return 0;
}

/**
 * The conversation the recorded requests and replies hold, in order; its input (the first observation). `calls`, the
 * run's model calls, note each reply.
 */
export function recordedConversation(
  exchanges: RecordedExchange[],
  body: (hash: string) => string | undefined,
  model: string | null,
  calls: ExportedCall[],
): { messages: InspectMessage[]; input: InspectMessage[]; last: RecordedReply | null } {
  const messages: InspectMessage[] = [];
  const callOf = new Map(calls.map((c) => [`${c.turn_number}/${c.call_index}`, c]));
  const parsed = <T>(hash: string): T => JSON.parse(body(hash) ?? 'null') as T;
  let [previous, system, last] = [[] as string[], '', null as RecordedReply | null];
  for (const x of exchanges) {
    if (x.manifest.system !== system) {
      system = x.manifest.system;
      messages.push({ role: 'system', content: parsed<string>(system), source: 'input' });
    }
    const hashes = x.manifest.messages;
    const k = carriedOver(previous, hashes);
    let fresh = hashes.slice(k).map((h) => parsed<RecordedMessage>(h));
    // the previous reply, sent back with the request that answers it: already told as the reply
    if (k > 0 && fresh[0]?.role === 'assistant') fresh = fresh.slice(1);
    messages.push(...fresh.flatMap((m) => converted(m, model)));
    last = JSON.parse(x.reply) as RecordedReply;
    messages.push(assistant(last, model, replyNote(callOf.get(`${x.turn}/${x.callIndex}`), x.answeredBy)));
    previous = hashes;
  }
  const firstUser = messages.find((m) => m.role === 'user');
  return { messages, input: firstUser ? [firstUser] : [], last };
}

/** What a run's actions did, for runs without a record: the tool results as the log holds them. */
function actionResults(actions: ExportedAction[], id: (a: ExportedAction) => string): InspectMessage[] {
  return actions.map((a) => {
    const content = a.message ?? a.outcome ?? (a.executed ? 'done' : 'not executed');
    return {
      role: 'tool',
      content,
      tool_call_id: id(a),
      function: a.tool,
      error: a.success === false ? { type: 'unknown', message: content } : null,
    };
  });
}

/**
 * A run without a record: each model call's text with the tool calls it made (its actions from first_action_index
 * to the next call's), then their results; a baseline's turn is one assistant message of the turn's actions.
 */
export function loggedConversation(
  calls: ExportedCall[],
  actions: ExportedAction[],
  model: string | null,
): InspectMessage[] {
  const id = (a: ExportedAction) => `turn${a.turn_number}-call${a.call_index}`;
  const turns = [...new Set([...calls.map((c) => c.turn_number), ...actions.map((a) => a.turn_number)])].sort(
    (a, b) => a - b,
  );
  const out: InspectMessage[] = [];
  for (const turn of turns) {
    const its = actions.filter((a) => a.turn_number === turn);
    const replies = calls.filter((c) => c.turn_number === turn);
    const spans: Array<Pick<ExportedCall, 'first_action_index' | 'assistant_text'> & { call?: ExportedCall }> =
      replies.length > 0 ? replies.map((c) => ({ ...c, call: c })) : [{ first_action_index: 0, assistant_text: '' }];
    spans.forEach((c, i) => {
      const from = c.first_action_index ?? Infinity;
      const to = spans[i + 1]?.first_action_index ?? Infinity;
      const made = its.filter((a) => a.call_index >= from && a.call_index < to);
      const calls = made.map((a) => ({ id: id(a), name: a.tool, arguments: a.arguments }));
      const note = c.call ? replyNote(c.call, c.call.answered_by) : null;
      out.push(assistant({ text: c.assistant_text ?? '', calls }, model, note), ...actionResults(made, id));
    });
  }
  return out;
}
