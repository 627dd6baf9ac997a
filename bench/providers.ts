// The engine's own overhead per LLM call: an experiment's wall time minus the
// time spent inside model calls (client serialization + HTTP round trip +
// parsing), divided by the number of calls, with simulated servers that
// answer at once. Everything else (engine, local state machine, Postgres
// commits) is overhead. Target: under 2 ms per call.
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../core/store/database.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { experimentDefinition } from '../state-machine/definition.ts';
import { agents } from '../core/providers/agents.ts';
import type { AgentFactory } from '../core/engine/agent.ts';
import { llmAgent } from '../core/providers/llm/llm-agent.ts';
import { recordingModel } from '../core/providers/llm/recorded-model.ts';
import { classifyOllamaError, ollamaModel } from '../core/providers/llm/ollama-model.ts';
import { bedrockModel, classifyBedrockError } from '../core/providers/llm/bedrock-model.ts';
import type { ChatModel } from '../core/providers/llm/chat-model.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { BedrockSim } from '../simulators/bedrock-sim.ts';
import { benchPostgres, fmt, timed } from './support.ts';
import { envDefault } from '../core/config/environment.ts';

const REPEATS = 5;

function timedModel(model: ChatModel, spent: { ms: number; calls: number }): ChatModel {
  return {
    provider: model.provider,
    model: model.model,
    async complete(...args) {
      const t = performance.now();
      try {
        return await model.complete(...args);
      } finally {
        spent.ms += performance.now() - t;
        spent.calls++;
      }
    },
  };
}

/** The median of REPEATS runs of `provider` on the simulator, its calls recorded by the flight recorder or not. */
async function medianRun(provider: 'ollama' | 'bedrock', recorded: boolean) {
  const results: Array<{ overhead: number; roundTrip: number; calls: number; seconds: number }> = [];
  for (let i = 0; i < REPEATS; i++) {
    const spent = { ms: 0, calls: 0 };
    const factory: AgentFactory = (identity) => {
      if (identity.agent !== provider) return agents(identity);
      const { config } = identity;
      const served =
        provider === 'ollama'
          ? ollamaModel(identity.model!, config.ollama)
          : bedrockModel(identity.model!, config.bedrock);
      const timed = timedModel(served, spent);
      const who = { provider, model: identity.model!, parameters: { temperature: config.temperature ?? null } };
      return llmAgent({
        model: recorded ? recordingModel(timed, who, null) : timed,
        system: identity.promptText ?? '',
        policy: config.retry,
        classify: provider === 'ollama' ? classifyOllamaError : classifyBedrockError,
        config,
        memory: identity.memory ?? null,
      });
    };
    const config =
      provider === 'ollama' ? { ollama: { host: bench.urls.ollama } } : { bedrock: { endpoint: bench.urls.bedrock } };
    // a model the Bedrock simulator still serves (a retired one answers 404 ResourceNotFoundException, as Bedrock)
    const model = provider === 'ollama' ? 'qwen2.5:7b' : 'global.anthropic.claude-haiku-4-5-20251001-v1:0';
    const run = await timed(() =>
      runLocalExperiment(
        {
          agent: provider,
          model,
          maze: { generator: 'rooms_and_corridors', size: 41, seed: 2 },
          config: { ...config, max_moves: 2_000 },
        },
        { db: bench.db!, agents: factory },
      ),
    );
    results.push({
      overhead: (run.seconds * 1000 - spent.ms) / spent.calls,
      roundTrip: spent.ms / spent.calls,
      calls: spent.calls,
      seconds: run.seconds,
    });
  }
  return results.sort((a, b) => a.overhead - b.overhead)[Math.floor(REPEATS / 2)];
}

/** The servers and database the runs share. */
const bench: { urls: { ollama: string; bedrock: string }; db: Awaited<ReturnType<typeof openDatabase>> | null } = {
  urls: { ollama: '', bedrock: '' },
  db: null,
};

export async function providersBench(): Promise<Record<string, number>> {
  envDefault('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true');
  envDefault('AWS_ACCESS_KEY_ID', 'sim');
  envDefault('AWS_SECRET_ACCESS_KEY', 'sim');
  const pgServer = await benchPostgres();
  const db = await openDatabase({ url: pgServer.url, schema: 'bench_providers', poolSize: 4 });
  const ollama = new OllamaSim({ callsPerReply: 2 });
  const bedrock = new BedrockSim({ callsPerReply: 2 });
  bench.urls = { ollama: await ollama.listen(), bedrock: await bedrock.listen() };
  bench.db = db;
  experimentDefinition();
  const out: Record<string, number> = {};
  console.log(
    `providers: engine overhead per LLM call outside the model round trip (simulators answer at once), ` +
      `medians of ${REPEATS} runs`,
  );
  try {
    for (const provider of ['ollama', 'bedrock'] as const) {
      await medianRun(provider, true); // warm-up, not counted: the first runs pay for loading and JIT
      const plain = await medianRun(provider, false);
      const recorded = await medianRun(provider, true);
      for (const [what, m] of [
        ['', plain],
        [' recorded', recorded],
      ] as const)
        console.log(
          `  ${`${provider}${what}`.padEnd(17)} ${fmt(m.calls)} calls in ${fmt(m.seconds, 2)} s: model call ` +
            `(client + HTTP) ${fmt(m.roundTrip, 2)} ms, engine overhead ${fmt(m.overhead, 2)} ms per call  (target ` +
            `< 2 ms; ratio overhead/round trip ${fmt(m.overhead / m.roundTrip, 2)})`,
        );
      console.log(
        `  ${provider}: the flight recorder adds ${fmt(recorded.overhead - plain.overhead, 2)} ms a call, its ` +
          'request hashed and its parts, reply and exchange written with the turn (target < 0.5 ms)',
      );
      out[provider] = plain.overhead;
      out[`${provider}-recorded`] = recorded.overhead;
    }
  } finally {
    await ollama.close();
    await bedrock.close();
    await db.close();
    await pgServer.stop();
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await providersBench();
