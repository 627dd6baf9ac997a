// Small models often write a tool call as JSON in their text instead of using
// the tool-calling channel. Find such objects ({"name": ..., "arguments": ...},
// {"function": {...}}, {"tool": ..., "args": ...}), fenced or bare, in order.
import type { ModelToolCall } from './chat-model.ts';

const MAX_CALLS = 32;

/** Balanced {...} substrings, ignoring braces inside JSON strings. */
function jsonObjects(text: string): string[] {
  const out: string[] = [];
  let depth = 0,
    start = -1,
    inString = false,
    escaped = false;
  for (let i = 0; i < text.length && out.length < MAX_CALLS * 4; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{') {
      if (depth++ === 0) start = i;
    } else if (ch === '}' && depth > 0 && --depth === 0) out.push(text.slice(start, i + 1));
  }
  return out;
}

function asCall(value: unknown): { name: string; arguments: unknown } | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const fn = v.function && typeof v.function === 'object' ? (v.function as Record<string, unknown>) : null;
  const name = fn?.name ?? v.name ?? v.tool ?? v.tool_name;
  if (typeof name !== 'string' || name.length === 0 || name.length > 100) return null;
  let args: unknown = fn?.arguments ?? v.arguments ?? v.args ?? v.parameters ?? v.input ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      /* keep the string: the schema check will name it */
    }
  }
  return { name, arguments: args };
}

export function parseTextToolCalls(text: string): ModelToolCall[] {
  const calls: ModelToolCall[] = [];
  for (const candidate of jsonObjects(text)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(candidate);
    } catch {
      continue;
    }
    const call = asCall(parsed);
    if (call) calls.push({ id: `text_${calls.length}`, ...call });
    if (calls.length >= MAX_CALLS) break;
  }
  return calls;
}
