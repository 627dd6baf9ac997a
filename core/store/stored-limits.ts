// What one stored value may weigh, so that every row written reads back through the RDS Data API
// (aws-facts: data-api.max-row-bytes, data-api.max-response-bytes), measured as Postgres prints the values, as the
// simulator does. A table's growing columns plus FIXED_COLUMNS_BYTES stay under a row (test/stored-limits.test.ts).
// Over its limit, a value the researcher chose is refused before anything is written; what a model or server wrote is
// cut with a marker and named in `clipped` (a 100 KB reply must not fail a run); memory is bounded by the agent.
import type { ExperimentConfig } from '../config/experiment-config.ts';
import { InvalidInputError, ValueTooLargeError } from '../errors.ts';
import { fact } from '../../aws-facts/facts.ts';

const KiB = 1024;

export const DATA_API_ROW_BYTES = fact('data-api.max-row-bytes').value;

/** Room, in each row, for the columns that cannot grow: ids, numbers, flags, timestamps, short names and hashes. */
export const FIXED_COLUMNS_BYTES = 8 * KiB;

/** The limit of each growing column, by table.column; every other column of these tables is bounded by its kind. */
/** Steps a run_traces row packs (migration 035's run_trace_chunks groups by them): 10 bytes each. */
const TRACE_CHUNK_STEPS = 2000;

export const LIMITS = {
  // Parameter Store's largest value is 8 KB (advanced tier), what rendering fills in is numbers: 10 KiB is room
  'experiments.prompt_text': 10 * KiB,
  // the default snapshot is 3.3 KB, most of it the price table: three times that for added prices and limits
  'experiments.config': 10 * KiB,
  // a conversation or history carried between turns, cut from the oldest (memory.ts); a workflow's variables
  'experiments.agent_memory': 30 * KiB,
  'experiments.provenance': 2 * KiB,
  'experiments.failure_reason': 2 * KiB,
  // the agent monitor's snapshot: mostly the cells visited since the last progress, about 15 bytes each
  'turns.agent_state': 48 * KiB,
  'turns.halted_by': 2 * KiB,
  // a move needs a direction and a sentence of reasoning; a model that writes more is cut, not failed
  'actions.tool': 256,
  'actions.arguments': 8 * KiB,
  'actions.reasoning': 8 * KiB,
  'actions.assistant_text': 12 * KiB,
  'actions.message': 2 * KiB,
  // see_through with vision_range 13 logs 729 tiles at 15 bytes: a larger square is refused at start
  'actions.vision': 12 * KiB,
  // a recall returns what the logged visions of the actions before it show: only what fits is kept
  'actions.recalled': 12 * KiB,
  // a finished run's moves packed (migration 035), printed as hex: 2 characters a byte and "\\x"
  'run_traces.actions': 2 * 10 * TRACE_CHUNK_STEPS + 2,
  // the whole reply and its thinking, a few thousand tokens each; more is cut
  'llm_calls.assistant_text': 16 * KiB,
  'llm_calls.reasoning_text': 16 * KiB,
  'llm_calls.tool_calls': 10 * KiB,
  'llm_calls.retries': 4 * KiB,
  'llm_calls.workflow_steps': 8 * KiB,
  'llm_calls.stop_reason': 256,
  'agent_state_transitions.cause': 2 * KiB,
  'stuck_signals.detail': 2 * KiB,
  // the flight recorder's rows: a body's part (8,192 characters, model-bodies-sql.ts), a request's manifest (a
  // longer message list is stored as a body)
  'model_bodies.body': 32 * KiB,
  'model_requests.manifest': 48 * KiB,
  // a belief probe's question, and its answer: a map of a 201x201 maze is 40,602 characters, more is cut (and was
  // scored whole before it was stored); why it could not be scored
  'belief_probes.prompt': 2 * KiB,
  'belief_probes.answer': 44 * KiB,
  'belief_probes.problem': 2 * KiB,
  // a sweep file and its parsed form, each kept whole
  'sweeps.spec_text': 24 * KiB,
  'sweeps.spec': 24 * KiB,
} as const;
export type LimitedField = keyof typeof LIMITS;

/** Bytes of a text value as Postgres prints it: its UTF-8. */
export const textBytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** Characters Postgres prints for a JSON number: numeric writes 1e+21 and 1e-7 out in full. */
function numberBytes(n: number): number {
  // the common case without a string: a whole number that JSON writes without an exponent (vision's coordinates)
  if (Number.isSafeInteger(n)) {
    let digits = n < 0 ? 2 : 1;
    for (let rest = Math.abs(n); rest >= 10; rest = Math.floor(rest / 10)) digits++;
    return digits;
  }
  const s = JSON.stringify(n);
  const e = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!e) return s.length;
  const [, sign, whole, fraction = '', exp] = e;
  const digits = whole.length + fraction.length;
  const point = whole.length + Number(exp); // digits before the decimal point, written out
  if (point >= digits) return sign.length + point;
  if (point <= 0) return sign.length + 2 - point + digits; // "0." and the zeros after it
  return sign.length + digits + 1;
}

/**
 * Bytes of a JSON value as Postgres prints it as jsonb: a space after each `:` and `,`, strings escaped as
 * JSON.stringify escapes them (the store has replaced what jsonb cannot hold: turn-sql.ts pgSafe).
 */
export function jsonbBytes(value: unknown): number {
  if (value === null || value === undefined) return 4;
  if (typeof value === 'string') return textBytes(JSON.stringify(value));
  if (typeof value === 'number') return Number.isFinite(value) ? numberBytes(value) : 4;
  if (typeof value === 'boolean') return value ? 4 : 5;
  // loops, not entries/filter/reduce: every turn sizes each action's vision, and the arrays were most of its cost
  if (Array.isArray(value)) {
    let bytes = 2 * value.length;
    for (const v of value) bytes += jsonbBytes(v);
    return value.length === 0 ? 2 : bytes;
  }
  if (typeof value === 'object') {
    const json = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof json === 'function') return jsonbBytes(json.call(value));
    let bytes = 0;
    for (const k of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined && typeof v !== 'function') bytes += keyBytes(k) + 2 + jsonbBytes(v) + 2;
    }
    return bytes === 0 ? 2 : bytes;
  }
  return 4; // functions and symbols: JSON has none
}

/** A key's bytes, quoted and escaped; the few keys our rows repeat are remembered (at most 1,000 of them). */
const keySizes = new Map<string, number>();
function keyBytes(key: string): number {
  let bytes = keySizes.get(key);
  if (bytes === undefined) {
    bytes = textBytes(JSON.stringify(key));
    if (keySizes.size < 1000) keySizes.set(key, bytes);
  }
  return bytes;
}

/** The marker a cut text ends with: how much there was and how much is kept. */
const marker = (bytes: number, kept: number) => ` [... truncated: ${bytes} bytes, the first ${kept} kept]`;

/** The text cut at a character boundary so that, with its marker, it is at most `limit` bytes (limit >= 64). */
export function truncateText(text: string, limit: number): string {
  const bytes = textBytes(text);
  if (bytes <= limit) return text;
  const buf = Buffer.from(text, 'utf8');
  let cut = Math.max(0, limit - textBytes(marker(bytes, limit)));
  while (cut > 0 && (buf[cut] & 0xc0) === 0x80) cut--; // not inside a character
  return buf.subarray(0, cut).toString('utf8') + marker(bytes, cut);
}

/** A string cut so that its jsonb form (quotes and escapes included) is at most `limit` bytes. */
function truncateJsonString(text: string, limit: number): string {
  let room = limit - 2;
  let cut = truncateText(text, room);
  while (jsonbBytes(cut) > limit && room > 64) {
    room -= jsonbBytes(cut) - limit;
    cut = truncateText(text, Math.max(64, room));
  }
  return cut;
}

/** Every string of a JSON value with a way to replace it, longest first. */
function stringsOf(root: { v: unknown }): Array<{ text: string; set: (s: string) => void }> {
  const out: Array<{ text: string; set: (s: string) => void }> = [];
  const walk = (holder: Record<string, unknown> | unknown[], key: string | number) => {
    const v = (holder as Record<string, unknown>)[key];
    if (typeof v === 'string') out.push({ text: v, set: (s) => ((holder as Record<string, unknown>)[key] = s) });
    else if (Array.isArray(v)) v.forEach((_, i) => walk(v, i));
    else if (v && typeof v === 'object') for (const k of Object.keys(v)) walk(v as Record<string, unknown>, k);
  };
  walk(root, 'v');
  return out.sort((a, b) => b.text.length - a.text.length);
}

/**
 * A JSON value at most `limit` jsonb bytes: its longest strings cut first (the words a model wrote are what grow;
 * the shape around them is small and readers rely on it). A value too large even so (thousands of keys) becomes
 * {"truncated_json": its JSON text, cut}.
 */
export function clipJson(value: unknown, limit: number): unknown {
  const root = { v: value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown) };
  let size = jsonbBytes(root.v);
  if (size <= limit) return root.v;
  for (const s of stringsOf(root)) {
    const before = jsonbBytes(s.text);
    const cut = truncateJsonString(s.text, Math.max(64, before - (size - limit)));
    if (cut.length >= s.text.length) continue;
    s.set(cut);
    size += jsonbBytes(cut) - before;
    if (size <= limit) return root.v;
  }
  const wrapper = jsonbBytes({ truncated_json: '' });
  return { truncated_json: truncateJsonString(JSON.stringify(value), limit - wrapper + 2) };
}

/** Refuses a value over its field's limit, naming the field, the sizes and `fix`. */
export function refuseOver(field: LimitedField, bytes: number, fix: string): void {
  if (bytes > LIMITS[field]) throw new ValueTooLargeError(field, bytes, LIMITS[field], fix);
}

/** Refuses a run whose prompt or config snapshot would not fit the experiment's row (both are stored whole). */
export function refuseOversizedExperiment(promptText: string | null, config: ExperimentConfig): void {
  if (promptText !== null)
    refuseOver(
      'experiments.prompt_text',
      textBytes(promptText),
      `shorten the prompt (prompt version "${config.prompt_version}", as rendered for this maze)`,
    );
  refuseOver(
    'experiments.config',
    jsonbBytes(config),
    'leave out of prices, rate_limits and context_windows what this run does not use (the snapshot is stored whole)',
  );
}

/**
 * The most carried memory a run may ask for: what fits experiments.agent_memory (30 KiB) with room for JSON's
 * escaping and the estimate's error (a token is ~4 characters: 30,720 bytes hold ~7,500 tokens; 7,000 asked) and a
 * history entry's ~100 bytes (250 entries). memory.ts also cuts by bytes, but a setting it could never honour would
 * make the config say something other than what the model was given; so a larger one is refused at start.
 */
const MAX_CONVERSATION_TOKENS = 7_000;
const MAX_HISTORY_ACTIONS = 250;

export function refuseUnstorableMemory(config: ExperimentConfig): void {
  const over = (field: string, value: number, max: number, unit: string) =>
    new InvalidInputError(
      `config.${field}`,
      value,
      `config.${field} ${value}: a carried memory of more than ${max} ${unit} does not fit the experiment's row ` +
        `(stored whole, and the RDS Data API reads back no row over 64 KB); set ${field} to ${max} or less`,
    );
  if (config.memory === 'conversation' && config.memory_conversation_tokens > MAX_CONVERSATION_TOKENS)
    throw over('memory_conversation_tokens', config.memory_conversation_tokens, MAX_CONVERSATION_TOKENS, 'tokens');
  if (config.memory === 'history' && config.memory_history_actions > MAX_HISTORY_ACTIONS)
    throw over('memory_history_actions', config.memory_history_actions, MAX_HISTORY_ACTIONS, 'actions');
}

/** Refuses settings under which one action's logged vision (its [x, y, tile] list) would not fit its row. */
export function refuseOversizedVision(config: ExperimentConfig, width: number, height: number): void {
  const side = 2 * config.vision_range + 1;
  const [across, down] = [Math.min(side, width), Math.min(side, height)];
  const tiles = config.see_through ? across * down : across + down - 1;
  const tileBytes = jsonbBytes([width - 1, height - 1, 0]) + 2; // the widest tile, and ", " after it
  refuseOver(
    'actions.vision',
    tiles * tileBytes,
    `lower vision_range (${config.vision_range})` +
      `${config.see_through ? ' or turn off see_through' : ''} for a ${width}x${height} maze`,
  );
}
