// The flight recorder's cost: the time recording adds to a model call in the agent's process (the request hashed by
// its parts, the reply kept), with a model that answers at once, paired against the same model unrecorded; and the
// storage a run's record takes, from a real run against the Ollama simulator, given per 10,000 actions.
// Targets: under 0.5 ms a call; storage is reported, not targeted.
import { fileURLToPath } from 'node:url';
import type { ChatMessage, ChatModel, ModelReply } from '../core/providers/llm/chat-model.ts';
import { recordingModel } from '../core/providers/llm/recorded-model.ts';
import { offeredTools } from '../core/engine/tools.ts';
import { DEFAULT_CONFIG } from '../core/config/experiment-config.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { recordSize } from '../results/recorded-run.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { recordFigure } from './figures.ts';
import { freshBenchDatabase } from './seed-sweep.ts';
import { benchPostgres, fmt } from './support.ts';

const CALLS = 2_000;
const RUN_MOVES = 2_000;

const reply: ModelReply = {
  text: 'Going east along the corridor.',
  calls: [{ id: 'c1', name: 'move_east', arguments: { reasoning: 'open to the east' } }],
  usage: { inputTokens: 900, outputTokens: 30 },
  stopReason: 'tool_calls',
};
const instant: ChatModel = { provider: 'ollama', model: 'qwen2.5:7b', complete: () => Promise.resolve(reply) };

/** A turn's conversation as the agent sends it: an observation, then `exchanges` replies with their results. */
function conversation(exchanges: number): ChatMessage[] {
  const row = '#.#.#.....#.#.#.#.#.#.#.#.#.#.#';
  const messages: ChatMessage[] = [{ role: 'user', text: `You see:\n${Array(15).fill(row).join('\n')}` }];
  for (let i = 0; i < exchanges; i++) {
    messages.push({ role: 'assistant', text: 'east', calls: [{ id: `c${i}`, name: 'move_east', arguments: {} }] });
    messages.push({ role: 'tool', results: [{ id: `c${i}`, name: 'move_east', content: row, ok: true }] });
  }
  return messages;
}

/**
 * The messages of one call as the agent sends them: the turn's first message built anew (as the agent builds it for
 * each call), the earlier ones the same objects as in the call before, the last reply and its results new.
 */
const asSent = (messages: ChatMessage[]) =>
  messages.map((m, i) => (i === 0 || i >= messages.length - 2 ? { ...m } : m));

/** Milliseconds a call of `model` takes, the median of 5 rounds of CALLS calls. */
async function perCall(model: ChatModel, messages: ChatMessage[]): Promise<number> {
  const system = 'You are exploring a 2-D grid maze. '.repeat(40);
  const tools = offeredTools(DEFAULT_CONFIG);
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    for (let i = 0; i < CALLS; i++) await model.complete(system, asSent(messages), tools, AbortSignal.timeout(60_000));
    rounds.push((performance.now() - t) / CALLS);
  }
  return rounds.sort((a, b) => a - b)[2];
}

async function overheadFigures(): Promise<void> {
  const who = { provider: 'ollama', model: 'qwen2.5:7b', parameters: { temperature: 0, num_ctx: 8192 } };
  for (const exchanges of [0, 8, 40]) {
    const messages = conversation(exchanges);
    const plain = await perCall(instant, messages);
    const recorded = await perCall(recordingModel(instant, who, 'sha256:abc'), messages);
    const overhead = recorded - plain;
    console.log(
      `  ${String(messages.length).padStart(3)} messages (${fmt(JSON.stringify(messages).length / 1024, 1)} KB): ` +
        `${fmt(overhead, 3)} ms a call recorded (${fmt(recorded, 3)} against ${fmt(plain, 3)} ms unrecorded; ` +
        `${fmt(overhead / 0.5, 2)}x the 0.5 ms target)`,
    );
    recordFigure({
      what: `recording a model call, ${messages.length} messages`,
      measured: overhead,
      target: 0.5,
      unit: 'ms',
    });
  }
}

async function storageFigures(): Promise<void> {
  const server = await benchPostgres();
  const db = await freshBenchDatabase(server.url, 'bench_flight_recorder', 2);
  const sim = new OllamaSim();
  try {
    const host = await sim.listen();
    const run = await runLocalExperiment(
      {
        agent: 'ollama',
        model: 'qwen2.5:7b',
        maze: { generator: 'perfect', size: 61, seed: 5 },
        config: { max_moves: RUN_MOVES, memory: 'history', ollama: { host } },
      },
      { db },
    );
    const r = await recordSize(db, run.experimentId!);
    const per10k = (r.bytes / r.actions) * 10_000;
    console.log(
      `  a run of ${r.actions} actions (${r.calls} calls, history memory, Ollama simulator): ${r.parts} distinct ` +
        `parts and replies, ${fmt(r.bytes / 1024, 0)} KB recorded; ${fmt(per10k / 1024 / 1024, 2)} MB per 10,000 ` +
        'actions (bodies, manifests and exchange rows, before Postgres compresses a value over 2 KB)',
    );
  } finally {
    await sim.close();
    await db.close();
    await server.stop();
  }
}

export async function flightRecorderBench(): Promise<void> {
  console.log(`Flight recorder: the time recording adds to a model call (median of 5 rounds of ${CALLS} calls)`);
  await overheadFigures();
  await storageFigures();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await flightRecorderBench();
