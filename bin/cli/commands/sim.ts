// ariadne sim: a simulated model server that speaks a real wire protocol
// (Ollama, Bedrock or OpenAI's), with faults on demand, for trying the LLM agents offline.
import { serveUntilStopped } from '../interrupt.ts';
import { Option, type Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { withExample } from '../help.ts';
import { commandPrefix } from '../invocation.ts';
import { choiceOption, intOption, numberOption } from '../options.ts';
import { EnvironmentError } from '../exit-codes.ts';
import { parseFaults } from '../../../simulators/sim-server.ts';
import { OllamaSim } from '../../../simulators/ollama-sim.ts';
import { OpenAISim } from '../../../simulators/openai-sim.ts';
import { BedrockSim } from '../../../simulators/bedrock-sim.ts';

interface SimOptions {
  port?: number;
  faults?: string;
  always?: string;
  probeFaults?: string;
  beliefNoise?: number;
  models?: string;
  callsPerReply: string;
  rpm?: number;
  tpm?: number;
  windowSeconds?: number;
  apiKey?: string;
}

/** --rpm/--tpm as one limit for every served model (as config.rate_limits gives it, with the same window). */
function simLimit(o: SimOptions) {
  if (o.rpm === undefined && o.tpm === undefined) return undefined;
  return { requests_per_minute: o.rpm, tokens_per_minute: o.tpm, window_seconds: o.windowSeconds ?? 60 };
}

/** Listens on `port`; a port that is taken is the environment's problem (exit 3), named with the fix. */
async function listenOn(server: { listen(port: number): Promise<string> }, port: number, given?: number) {
  try {
    return await server.listen(port);
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'EADDRINUSE') throw err;
    const which = given === undefined ? `the default port ${port}` : `--port ${port}`;
    throw new EnvironmentError(
      '--port',
      `${which} is in use (EADDRINUSE): another program listens on 127.0.0.1:${port}; ` +
        `stop it, or choose another port with --port <n> (0 picks a free one)`,
    );
  }
}

async function sim(service: string, o: SimOptions): Promise<void> {
  const kind = choiceOption('service', ['ollama', 'bedrock', 'openai'] as const)(service);
  if (o.apiKey !== undefined && kind !== 'openai')
    throw new InvalidInputError(
      '--api-key',
      o.apiKey,
      `--api-key "${o.apiKey}" is for the openai service only (${kind} checks no key): drop it, or serve openai`,
    );
  const parse = (option: string, spec: string) => {
    try {
      return parseFaults(spec);
    } catch (err) {
      throw new InvalidInputError(option, spec, `${option}: ${(err as Error).message}`);
    }
  };
  const opts = {
    faults: o.faults ? parse('--faults', o.faults) : [],
    always: o.always ? parse('--always', o.always)[0] : undefined,
    probeFaults: o.probeFaults ? parse('--probe-faults', o.probeFaults) : [],
    beliefNoise: o.beliefNoise ?? 0,
    models: o.models
      ?.split(',')
      .map((m) => m.trim())
      .filter(Boolean),
    callsPerReply: intOption('--calls-per-reply', 1, 8)(o.callsPerReply),
  };
  const limit = simLimit(o);
  const server =
    kind === 'ollama'
      ? new OllamaSim(opts)
      : kind === 'openai'
        ? new OpenAISim({ ...opts, apiKey: o.apiKey })
        : new BedrockSim(opts);
  if (limit) for (const model of server.models) server.limits[model] = limit;
  // each service's usual port: Ollama's, a free one for Bedrock, vLLM's for OpenAI-compatible servers
  const url = await listenOn(server, o.port ?? { ollama: 11434, bedrock: 8787, openai: 8000 }[kind], o.port);
  process.stdout.write(`simulated ${kind} at ${url} serving ${server.models.join(', ')}\n`);
  process.stdout.write(
    kind === 'ollama'
      ? `try: ${commandPrefix()} run --provider ollama --model ${server.models[0]} --ollama-host ${url}\n`
      : kind === 'openai'
        ? `try: OPENAI_API_KEY=${o.apiKey ?? 'sim'} ${commandPrefix()} run --provider openai ` +
          `--model ${server.models[0]} --openai-base-url ${url}/v1\n`
        : `try: AWS_ACCESS_KEY_ID=sim AWS_SECRET_ACCESS_KEY=sim ${commandPrefix()} run --provider bedrock ` +
          `--model ${server.models[0]} --bedrock-endpoint ${url}\n`,
  );
  let requests = 0;
  const timer = setInterval(() => {
    if (server.requests.length !== requests) {
      requests = server.requests.length;
      process.stderr.write(`requests served: ${requests}, throttled: ${server.throttled.length}\n`);
    }
  }, 2000);
  await serveUntilStopped(async () => {
    clearInterval(timer);
    await server.close();
  });
}

export function registerSimCommand(program: Command): void {
  const simCommand = program
    .command('sim')
    .description(
      'serve a simulated model that speaks a real wire protocol: ollama (/api/chat, /api/tags, /api/show, ' +
        '/api/version), bedrock (POST /model/{id}/converse, HTTP/2) or openai (/v1/chat/completions, /v1/models); ' +
        'every reply names the simulator (header x-ariadne-simulator), so the runs it answers are marked simulated',
    )
    .argument('<service>', 'ollama, bedrock or openai')
    .addOption(
      new Option(
        '--port <n>',
        'port on 127.0.0.1 (default: 11434 for ollama, 8787 for bedrock, 8000 for openai)',
      ).argParser(intOption('--port', 0, 65535)),
    )
    .option(
      '--faults <list>',
      'misbehave on the next requests, in order: NNN (HTTP status), reset, slow:MS, malformed, text-embedded, ' +
        'text-only, empty, script:TOOL+TOOL (exactly these calls), say:TEXT (exactly this answer); ' +
        'xN repeats (e.g. 429x2,500,text-embedded)',
    )
    .option('--always <fault>', 'misbehave on every request after --faults (e.g. 500)')
    .option(
      '--probe-faults <list>',
      'misbehave on the next belief probes (config.belief_probe_every), apart from --faults: the same list, e.g. ' +
        'text-only,500x5,say:TEXT',
    )
    .addOption(
      new Option(
        '--belief-noise <share>',
        "the share of the cells it was shown that a probe's map gives wrong (the same cells each time); default 0",
      ).argParser(numberOption('--belief-noise', 0, 1)),
    )
    .option('--models <list>', 'comma-separated model names it serves (others get "not found")')
    .option('--calls-per-reply <n>', 'tool calls per reply', '2')
    .addOption(
      new Option('--rpm <n>', 'requests per window each model allows; past it 429 / ThrottlingException').argParser(
        intOption('--rpm', 1, 10_000_000),
      ),
    )
    .addOption(
      new Option('--tpm <n>', 'tokens per window each model allows').argParser(intOption('--tpm', 1, 1_000_000_000)),
    )
    .addOption(
      new Option(
        '--window-seconds <n>',
        'the window of --rpm/--tpm (default 60; lower to scale a limit down, with the same window_seconds in ' +
          'config.rate_limits)',
      ).argParser(intOption('--window-seconds', 1, 3600)),
    )
    .option(
      '--api-key <key>',
      'openai only: the key every request must carry (Authorization: Bearer <key>; others get 401); default: any',
    )
    .action(sim);
  withExample(simCommand, 'ariadne sim ollama --faults 429x2,500 --port 11435');
}
