// A model request's record: equal requests share a key whatever order their objects' keys were built in, and the
// first difference between a recorded request and a new one is named as a researcher reads a request.
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  recordRequest,
  requestDifference,
  type ModelIdentity,
} from '../core/providers/llm/model-request.ts';
import type { ChatMessage } from '../core/providers/llm/chat-model.ts';
import { offeredTools } from '../core/engine/tools.ts';
import { DEFAULT_CONFIG } from '../core/config/experiment-config.ts';

const who: ModelIdentity = {
  provider: 'openai',
  model: 'gpt-4.1-mini',
  version: 'gpt-4.1-mini-2025-04-14',
  parameters: { t: 0 },
};
const tools = offeredTools(DEFAULT_CONFIG);
const messages: ChatMessage[] = [
  { role: 'user', text: 'You see a wall to the north.' },
  { role: 'assistant', text: '', calls: [{ id: 'c1', name: 'move_east', arguments: {} }] },
  { role: 'tool', results: [{ id: 'c1', name: 'move_east', content: 'moved', ok: true }] },
];
const record = (over: Partial<ModelIdentity> = {}, system = 'Find the goal.', m = messages) =>
  recordRequest({ ...who, ...over }, system, m, tools);

describe('recordRequest', () => {
  it('gives equal requests one key, whatever the order of their keys, and each part its own hash', () => {
    const a = record({ parameters: { temperature: 0, top_p: 1 } });
    const b = record({ parameters: { top_p: 1, temperature: 0 } });
    expect(a.key).toBe(b.key);
    expect(a.manifest.messages).toHaveLength(3);
    expect(new Set([a.manifest.system, a.manifest.tools, ...a.manifest.messages]).size).toBe(5);
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
  });

  it('keys a picture by its hash, not its bytes', () => {
    const pic = (byte: number) => ({ png: new Uint8Array([byte]), sha256: 'abc' });
    const shown = (byte: number): ChatMessage[] => [{ role: 'user', text: 'see', images: [pic(byte)] }];
    expect(record({}, 'x', shown(1)).key).toBe(record({}, 'x', shown(2)).key);
  });
});

describe('requestDifference', () => {
  const recorded = record();
  const none = () => undefined;
  const body = (h: string) => recorded.bodies.get(h);
  it.each([
    ['the same request', record(), null],
    ['another model version', record({ version: 'gpt-4.1-mini-2025-06-01' }), 'version'],
    ['another temperature', record({ parameters: { t: 0.7 } }), 'parameters.t'],
    ['an edited system prompt', record({}, 'Find the exit.'), 'system'],
    [
      'an edited observation',
      record({}, 'Find the goal.', [{ role: 'user', text: 'You see a wall to the south.' }, ...messages.slice(1)]),
      'messages[0].text',
    ],
    ['a message more', record({}, 'Find the goal.', [...messages, { role: 'user', text: 'more' }]), 'messages.length'],
  ])('%s: %s', (_what, now, field) => {
    expect(requestDifference(recorded.manifest, now, body)).toBe(field);
  });

  it('names the field even when the recorded part is not at hand (the hash differs)', () => {
    expect(requestDifference(recorded.manifest, record({}, 'Find the exit.'), none)).toBe('system');
  });
});
