// A prompt's size in tokens, estimated before the call without a tokenizer (each model family has its own, and none
// ships in a Lambda here): ceil(characters / 4), the rule of thumb OpenAI and Anthropic give for English, plus 4 per
// message for role and framing (OpenAI's cookbook counts 3-4). Dense JSON may be under-counted; the reported tokens
// are recorded beside the window (view context_usage), so an estimate that was off shows.
import type { ToolSpec } from '../../engine/tools.ts';
import type { ChatMessage } from './chat-model.ts';

const CHARS_PER_TOKEN = 4;
const TOKENS_PER_MESSAGE = 4;
/**
 * A picture's tokens, estimated as Anthropic documents for Claude (width x height / 750: a 168x168 view is 38);
 * OpenAI's low-detail images cost 85, Ollama's vision models their own: the run's calibration scales it with the
 * rest once a count is reported.
 */
const imageTokens = (png: Uint8Array): number => {
  // a PNG's IHDR: width and height as big-endian 32-bit integers at bytes 16 and 20
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return png.byteLength >= 24 ? Math.ceil((view.getUint32(16) * view.getUint32(20)) / 750) : 0;
};

function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function estimateMessageTokens(m: ChatMessage): number {
  const body =
    m.role === 'tool'
      ? m.results.reduce((n, r) => n + estimateTokens(r.name) + estimateTokens(r.content) + TOKENS_PER_MESSAGE, 0)
      : m.role === 'assistant'
        ? estimateTokens(m.text) + estimateTokens(JSON.stringify(m.calls))
        : estimateTokens(m.text) + (m.images ?? []).reduce((n, i) => n + imageTokens(i.png), 0);
  return body + TOKENS_PER_MESSAGE;
}

/** The whole request: system prompt, messages and the tools' JSON schemas. */
export function estimatePromptTokens(system: string, messages: ChatMessage[], tools: ToolSpec[]): number {
  const toolTokens = tools.length > 0 ? estimateTokens(JSON.stringify(tools)) : 0;
  return (
    estimateTokens(system) +
    TOKENS_PER_MESSAGE +
    toolTokens +
    messages.reduce((n, m) => n + estimateMessageTokens(m), 0)
  );
}
