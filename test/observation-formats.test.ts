// A simulated model plays under each observation format, through the real
// `ollama` client against the Ollama simulator: it reads only the text the
// engine sent (simulators/observation-reader.ts), so a format it cannot read
// back to positions and tiles would leave it lost instead of at the goal.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OBSERVATION_FORMATS, type ObservationFormat } from '../core/config/experiment-config.ts';
import { showsWholeMaze } from '../core/config/prompt-combinations.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { exportSweep } from '../reports/export.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { FAST_RETRY, providerSims } from './support/provider-sims.ts';
import { tempDir } from './support/temp-dir.ts';

let db: TestDatabase;
const sims = providerSims();
const { ollama, bedrock } = sims;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** What marks each format's first message (and no other format's). */
const MARK: Record<ObservationFormat, RegExp> = {
  rays: /^north: /m,
  local_grid: /^In sight around you, columns x=/m,
  full_map: /^The whole maze, columns x=0\.\.14 /m,
  coordinates: /^Open cells in sight: /m,
  json: /^\{"turn":1,"actions":0,/,
  image: /^The picture shows the tiles in sight around you: columns x=/m,
  adjacency: /^Links between open tiles \(x 0\.\.14, y 0\.\.14\): /m,
};

describe.each(OBSERVATION_FORMATS)('observation %s', (format) => {
  it('the simulated model finds the goal on a 15x15 maze; the setting is in the config snapshot', async () => {
    const { experimentId, summary } = await runLocalExperiment(
      {
        agent: 'ollama',
        model: 'qwen2.5:7b',
        maze: { generator: 'medium', size: 15, seed: 3 },
        config: {
          ollama: { host: sims.ollamaUrl },
          retry: FAST_RETRY,
          observation: format,
          // the goal is on the whole map from turn 1: "seen" would measure nothing (refused)
          ...(showsWholeMaze(format) ? { success_rule: 'reached' as const } : {}),
          max_moves: 500,
          max_turns: 100,
        },
      },
      { db, retryIntervals: { [STATES.InvokeOllamaAgent]: 0 } },
    );
    expect(summary).toMatchObject({ status: 'completed', goal_found: true });
    const { rows } = await db.pool.query('SELECT config FROM experiments WHERE id = $1', [experimentId]);
    expect(rows[0].config.observation).toBe(format);
    // what the model read is in this format, and in no other
    const chat = ollama.requests.find((r) => r.path === '/api/chat')!;
    const first = chat.body.messages.find((m: { role: string }) => m.role === 'user').content as string;
    for (const other of OBSERVATION_FORMATS) expect(MARK[other].test(first)).toBe(other === format);
    expect(first).not.toContain('STATE');
  });
});

describe.each(['rays', 'json'] as const)('observation %s under see_through', (format) => {
  it('the simulated model reads the square off the rays too ("Also in sight"), and finds the goal', async () => {
    const { summary } = await runLocalExperiment(
      {
        agent: 'ollama',
        model: 'qwen2.5:7b',
        maze: { generator: 'rooms_and_corridors', size: 15, seed: 5 },
        config: {
          ollama: { host: sims.ollamaUrl },
          retry: FAST_RETRY,
          observation: format,
          see_through: true,
          vision_range: 2,
          max_moves: 500,
          max_turns: 100,
        },
      },
      { db, retryIntervals: { [STATES.InvokeOllamaAgent]: 0 } },
    );
    expect(summary).toMatchObject({ status: 'completed', goal_found: true });
    const chat = ollama.requests.findLast((r) => r.path === '/api/chat')!;
    const texts = JSON.stringify(chat.body.messages);
    expect(texts).toMatch(format === 'rays' ? /Also in sight: open / : /also_in_sight/);
  });
});

it('bedrock: a picture format reaches the goal through toolResult blocks too', async () => {
  const { summary } = await runLocalExperiment(
    {
      agent: 'bedrock',
      model: 'us.anthropic.claude-sonnet-4-6',
      maze: { generator: 'medium', size: 15, seed: 3 },
      config: {
        bedrock: { endpoint: sims.bedrockUrl, region: 'us-west-2' },
        retry: FAST_RETRY,
        observation: 'local_grid',
        max_moves: 500,
        max_turns: 100,
      },
    },
    { db, retryIntervals: { [STATES.InvokeBedrockAgent]: 0 } },
  );
  expect(summary).toMatchObject({ status: 'completed', goal_found: true });
  const results = bedrock.requests.flatMap((r) =>
    (r.body.messages ?? []).flatMap((m: { content: Array<{ toolResult?: { content: Array<{ text: string }> } }> }) =>
      m.content.flatMap((b) => (b.toolResult ? b.toolResult.content.map((c) => c.text) : [])),
    ),
  );
  expect(results.length).toBeGreaterThan(0);
  for (const text of results) expect(text).toMatch(/^(ok|failed): .*\nYou are at \(\d+,\d+\)\./);
});

describe('the export', () => {
  it.each(['csv', 'jsonl'] as const)('%s: each experiment has its observation format, swept or not', async (format) => {
    // the sweep name per format: a sweep name keeps its spec, and each test here runs its own
    const sweep = (name: string, settings: string) =>
      loadSweep(
        `sweep: ${name}
agents:
  - { agent: random }
mazes: { generators: [perfect], sizes: [7], seeds: [1] }
config: { max_moves: 20 }
${settings}
`,
        'test',
      );
    const swept = `formats-${format}`,
      fixed = `fixed-${format}`;
    await runLocalSweep(sweep(swept, 'settings: { observation: [local_grid, json] }'), { db });
    await runLocalSweep(sweep(fixed, ''), { db });
    const dir = tempDir('export');
    const observations = async (id: string) => {
      const [experiments] = await exportSweep(db, id, format, join(dir, id));
      const lines = readFileSync(experiments.file, 'utf8').trimEnd().split('\n');
      if (format === 'jsonl') return lines.map((l) => (JSON.parse(l) as { observation: string }).observation);
      const column = lines[0].split(',').indexOf('observation');
      expect(column).toBeGreaterThanOrEqual(0);
      return lines.slice(1).map((l) => l.split(',')[column]);
    };
    expect(await observations(swept)).toEqual(['local_grid', 'json']);
    expect(await observations(fixed)).toEqual(['rays']);
  });
});
