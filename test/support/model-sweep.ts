// A small sweep of what a study meets, for the report's and the viewer's page tests: frontier beside a model the
// price table does not know (qwen2.5:7b on the Ollama simulator: its cost is unknown, not $0) and a model the
// server does not have (404 on the first call: every run ends by an error, not a failure), under two observation
// formats (a setting that reaches the models but not frontier, whose runs under both are copies).
import { loadSweep } from '../../core/sweeps/sweep-spec.ts';
import { runLocalSweep } from '../../state-machine/local-sweep.ts';
import type { TestDatabase } from './db.ts';
import { FAST_RETRY } from './provider-sims.ts';
import { STATES } from '../../core/machine/states.ts';

const NO_WAIT = { [STATES.InvokeOllamaAgent]: 0, [STATES.InvokeBedrockAgent]: 0 };

export async function runModelSweep(db: TestDatabase, name: string, ollamaUrl: string): Promise<void> {
  const sweep = loadSweep(
    `sweep: ${name}
description: frontier, an unpriced model and a missing one, two observation formats
agents:
  - { agent: frontier }
  - { agent: ollama, model: "qwen2.5:7b", label: qwen }
  - { agent: ollama, model: "no-such-model:1b", label: missing }
mazes: { generators: [medium], sizes: [11], seeds: [1] }
settings: { observation: [rays, local_grid] }
config:
  max_moves: 12
  ollama: { host: "${ollamaUrl}" }
  retry: ${JSON.stringify(FAST_RETRY)}
repeats: 2
`,
    'test',
  );
  await runLocalSweep(sweep, { db, concurrency: 4, retryIntervals: NO_WAIT });
}
