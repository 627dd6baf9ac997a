// The image observation format: the square in sight drawn as a PNG, sent as each provider's
// image input (Ollama `images`, Converse image blocks, OpenAI image_url parts), read by the simulated vision models
// (simulators/picture-reader.ts) to the goal; each call's pictures recorded as hashes and drawn again from the stored
// state with the same hashes; and a sweep over observation [rays, image] x two providers, each cell its own group.
import { createHash } from 'node:crypto';
import { decode } from 'fast-png';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { STATES } from '../core/machine/states.ts';
import { drawView } from '../core/providers/llm/observations/view-image.ts';
import { CELL_PX, PALETTE } from '../core/config/observation-pictures.ts';
import { EMPTY, GOAL, WALL } from '../core/maze/grid.ts';
import { turnPictures } from '../results/observation-pictures.ts';
import { factorStats } from '../reports/factor-stats.ts';
import { varyingFactors } from '../reports/factors.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { FAST_RETRY, openaiSim, providerSims } from './support/provider-sims.ts';

const sims = providerSims();
const served = openaiSim();
const { sim: openai } = served;
let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});

const MAZE = { generator: 'medium', size: 15, seed: 3 };
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const isPng = (bytes: Uint8Array) => PNG_SIGNATURE.every((b, i) => bytes[i] === b);

describe('a picture', () => {
  // a 3x2 square at (10..12, 5..6): wall, open, goal / unseen, the agent on open ground, open
  const tiles: Record<string, number> = { '10,5': WALL, '11,5': EMPTY, '12,5': GOAL, '11,6': EMPTY, '12,6': EMPTY };
  const view = drawView({ x0: 10, y0: 5, x1: 12, y1: 6 }, { x: 11, y: 6 }, (x, y) => tiles[`${x},${y}`]);
  const png = decode(view.png);
  const rgb = (px: number, py: number) => {
    const at = (py * png.width + px) * (png.channels ?? 3);
    return [png.data[at], png.data[at + 1], png.data[at + 2]];
  };

  it('is a PNG of CELL_PX pixels a tile, each tile in the colour the prompt names, the agent a red dot', () => {
    expect(isPng(view.png)).toBe(true);
    expect([png.width, png.height, view.width, view.height]).toEqual([3 * CELL_PX, 2 * CELL_PX, 72, 48]);
    // inside each tile, clear of its edge line and of the dot
    const inside = (col: number, row: number) => rgb(col * CELL_PX + 3, row * CELL_PX + 3);
    expect([inside(0, 0), inside(1, 0), inside(2, 0), inside(0, 1), inside(1, 1), inside(2, 1)]).toEqual(
      [PALETTE.wall, PALETTE.open, PALETTE.goal, PALETTE.unseen, PALETTE.open, PALETTE.open].map((c) => [...c]),
    );
    expect(rgb(1.5 * CELL_PX, 1.5 * CELL_PX)).toEqual([...PALETTE.agent]);
    expect(rgb(0.5 * CELL_PX, 0.5 * CELL_PX)).toEqual([...PALETTE.wall]);
    expect(rgb(CELL_PX, 10)).toEqual([...PALETTE.grid]);
  });

  it('is recorded by the hash of its pixels, as decoded: the same tiles the same hash, a tile changed another', () => {
    const decoded = createHash('sha256').update(`${png.width}x${png.height}:`).update(png.data).digest('hex');
    expect(view.sha256).toBe(decoded);
    const again = drawView({ x0: 10, y0: 5, x1: 12, y1: 6 }, { x: 11, y: 6 }, (x, y) => tiles[`${x},${y}`]);
    expect(again.sha256).toBe(view.sha256);
    const moved = drawView({ x0: 10, y0: 5, x1: 12, y1: 6 }, { x: 12, y: 6 }, (x, y) => tiles[`${x},${y}`]);
    expect(moved.sha256).not.toBe(view.sha256);
  });
});

/** Every picture of every turn of a run, drawn again from the stored state. */
async function allPictures(experimentId: string | null) {
  const { rows } = await db.pool.query<{ n: number }>(
    'SELECT max(turn_number)::int AS n FROM turns WHERE experiment_id = $1',
    [experimentId],
  );
  const turns = [];
  for (let t = 1; t <= rows[0].n; t++) turns.push(...((await turnPictures(db.pool, experimentId!, t)) ?? []));
  return turns;
}

const recordedCount = async (experimentId: string | null) =>
  (
    await db.pool.query<{ n: number }>(
      'SELECT coalesce(sum(cardinality(image_sha256)), 0)::int AS n FROM llm_calls WHERE experiment_id = $1',
      [experimentId],
    )
  ).rows[0].n;

describe.each([
  ['ollama', 'qwen2.5:7b', () => ({ ollama: { host: sims.ollamaUrl } }), STATES.InvokeOllamaAgent],
  [
    'bedrock',
    'us.anthropic.claude-sonnet-4-6',
    () => ({ bedrock: { endpoint: sims.bedrockUrl, region: 'us-west-2' } }),
    STATES.InvokeBedrockAgent,
  ],
  ['openai', 'gpt-4.1-mini', () => ({ openai: { base_url: served.url } }), STATES.InvokeOpenAIAgent],
] as const)('observation image through %s', (agent, model, section, state) => {
  it('the simulated vision model reads the pictures to the goal; each call records what it first sent', async () => {
    const { experimentId, summary } = await runLocalExperiment(
      {
        agent,
        model,
        maze: MAZE,
        config: { ...section(), retry: FAST_RETRY, observation: 'image', max_moves: 500 },
      },
      { db, retryIntervals: { [state]: 0 } },
    );
    expect(summary).toMatchObject({ status: 'completed', goal_found: true });
    // the wire carried pictures in the provider's own way
    const sent = {
      ollama: () =>
        sims.ollama.requests
          .flatMap((r) => r.body?.messages ?? [])
          .flatMap((m: { images?: string[] }) => m.images ?? [])
          .map((b: string) => Buffer.from(b, 'base64')),
      bedrock: () =>
        sims.bedrock.requests
          .flatMap((r) => r.body?.messages ?? [])
          .flatMap((m: { content: Array<{ image?: { format: string; source: { bytes: string } } }> }) => m.content)
          .flatMap((b: { image?: { format: string; source: { bytes: string } } }) => (b.image ? [b.image] : []))
          .map((image: { format: string; source: { bytes: string } }) => {
            expect(image.format).toBe('png');
            return Buffer.from(image.source.bytes, 'base64');
          }),
      openai: () =>
        openai.requests
          .flatMap((r) => r.body?.messages ?? [])
          .flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
          .filter((p: { type: string }) => p.type === 'image_url')
          .map((p: { image_url: { url: string } }) => {
            expect(p.image_url.url).toMatch(/^data:image\/png;base64,/);
            return Buffer.from(p.image_url.url.split(',')[1], 'base64');
          }),
    }[agent]();
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((b) => isPng(new Uint8Array(b)))).toBe(true);
    // every picture drawn again from the stored state hashes as recorded, and none is missing or left over
    const calls = await allPictures(experimentId);
    const pictures = calls.flatMap((c) => c.pictures);
    expect(pictures.length).toBe(await recordedCount(experimentId));
    expect(pictures.length).toBeGreaterThan(calls.length);
    expect(pictures.filter((p) => !p.matches)).toEqual([]);
    expect(calls.flatMap((c) => c.unexplained)).toEqual([]);
  });
});

describe('pictures on Bedrock, within what Converse takes', () => {
  it('a reply could answer with more than 20 pictures in a message: refused before anything is written', async () => {
    const before = await db.pool.query('SELECT count(*)::int AS n FROM experiments');
    await expect(
      runLocalExperiment(
        {
          agent: 'bedrock',
          model: 'us.anthropic.claude-sonnet-4-6',
          maze: MAZE,
          config: { bedrock: { endpoint: sims.bedrockUrl }, observation: 'image', max_actions_per_turn: 21 },
        },
        { db },
      ),
    ).rejects.toThrow(/max_actions_per_turn 21 with observation "image" on Bedrock.* at most 20 images a message/);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM experiments')).rows).toEqual(before.rows);
  });

  it('the simulator refuses a message of 21 images, as the API reference says Converse does', async () => {
    const { BedrockRuntimeClient, ConverseCommand } = await import('@aws-sdk/client-bedrock-runtime');
    const client = new BedrockRuntimeClient({ region: 'us-west-2', endpoint: sims.bedrockUrl, maxAttempts: 1 });
    const picture = drawView({ x0: 0, y0: 0, x1: 0, y1: 0 }, { x: 0, y: 0 }, () => EMPTY).png;
    const ask = (n: number) =>
      client.send(
        new ConverseCommand({
          modelId: 'us.anthropic.claude-sonnet-4-6',
          messages: [
            {
              role: 'user',
              content: [
                { text: 'What do you see?' },
                ...Array.from({ length: n }, () => ({ image: { format: 'png' as const, source: { bytes: picture } } })),
              ],
            },
          ],
        }),
      );
    await expect(ask(21)).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(ask(20)).resolves.toMatchObject({ stopReason: expect.any(String) });
  });
});

describe('the recorded pictures', () => {
  it('tell a stored vision that is not what the model saw: drawn again, it no longer matches', async () => {
    const { experimentId } = await runLocalExperiment(
      {
        agent: 'openai',
        model: 'gpt-4.1-mini',
        maze: MAZE,
        config: { openai: { base_url: served.url }, retry: FAST_RETRY, observation: 'image', max_moves: 500 },
      },
      { db },
    );
    const { rows } = await db.pool.query<{ turn_number: number; call_index: number }>(
      'SELECT turn_number, call_index FROM actions WHERE experiment_id = $1 AND executed ORDER BY step_number LIMIT 1',
      [experimentId],
    );
    await db.pool.query(
      `UPDATE actions SET vision = '[]'::jsonb WHERE experiment_id = $1 AND turn_number = $2 AND call_index = $3`,
      [experimentId, rows[0].turn_number, rows[0].call_index],
    );
    const calls = (await turnPictures(db.pool, experimentId!, rows[0].turn_number))!;
    expect(calls.flatMap((c) => c.pictures).filter((p) => !p.matches)).toHaveLength(1);
  });

  it('are none for a text format, and a carried conversation keeps a note of each picture, not its bytes', async () => {
    const text = await runLocalExperiment(
      {
        agent: 'openai',
        model: 'gpt-4.1-mini',
        maze: MAZE,
        config: { openai: { base_url: served.url }, retry: FAST_RETRY, observation: 'local_grid', max_moves: 500 },
      },
      { db },
    );
    expect(await turnPictures(db.pool, text.experimentId!, 1)).toBeNull();
    expect(await recordedCount(text.experimentId)).toBe(0);
    const carried = await runLocalExperiment(
      {
        agent: 'openai',
        model: 'gpt-4.1-mini',
        maze: MAZE,
        config: {
          openai: { base_url: served.url },
          retry: FAST_RETRY,
          observation: 'image',
          memory: 'conversation',
          max_moves: 500,
        },
      },
      { db },
    );
    expect(carried.summary).toMatchObject({ status: 'completed', goal_found: true });
    const { rows } = await db.pool.query<{
      agent_memory: { conversation: Array<{ text?: string; images?: unknown }> };
    }>('SELECT agent_memory FROM experiments WHERE id = $1', [carried.experimentId]);
    const conversation = rows[0].agent_memory.conversation;
    expect(conversation.some((m) => m.images !== undefined)).toBe(false);
    expect(
      conversation.some((m) => /\[picture shown then, sha256 [0-9a-f]{12}, not carried over\]/.test(m.text ?? '')),
    ).toBe(true);
  });
});

describe('a sweep over observation [rays, image] x two providers', () => {
  it('runs every cell to its end and keeps each (provider, format) its own group', async () => {
    const sweep = loadSweep(
      `sweep: pictures-vs-text
agents:
  - { agent: ollama, model: "qwen2.5:7b", config: { ollama: { host: "${sims.ollamaUrl}" } } }
  - { agent: openai, model: gpt-4.1-mini, config: { openai: { base_url: "${served.url}" } } }
mazes: { generators: [medium], sizes: [15], seeds: [3, 4] }
settings: { observation: [rays, image] }
config: { max_moves: 500, retry: { max_attempts: 4, base_delay_ms: 1, max_delay_ms: 5, timeout_ms: 5000 } }
`,
      'test',
    );
    // one run at a time: requests carry no game id, and a simulated model playing two mazes at once loses its map
    await runLocalSweep(sweep, { db, concurrency: 1 });
    const { rows } = await db.pool.query<{ agent: string; observation: string; runs: number; found: number }>(
      `SELECT e.agent, e.config ->> 'observation' AS observation, count(*)::int AS runs,
              count(*) FILTER (WHERE e.goal_found AND e.status = 'completed')::int AS found
       FROM experiments e WHERE e.sweep_id = 'pictures-vs-text'
       GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    expect(rows).toEqual([
      { agent: 'ollama', observation: 'image', runs: 2, found: 2 },
      { agent: 'ollama', observation: 'rays', runs: 2, found: 2 },
      { agent: 'openai', observation: 'image', runs: 2, found: 2 },
      { agent: 'openai', observation: 'rays', runs: 2, found: 2 },
    ]);
    // the statistics keep the four apart: the format is a factor the sweep varies, never pooled
    const factors = await varyingFactors(db.pool, 'pictures-vs-text');
    expect(factors).toEqual(expect.arrayContaining(['label', 'observation']));
    const groups = await factorStats(db.pool, 'pictures-vs-text', factors);
    expect(groups.map((g) => [g.label, g.observation, g.n, g.successes]).sort()).toEqual([
      ['gpt-4.1-mini', 'image', 2, 2],
      ['gpt-4.1-mini', 'rays', 2, 2],
      ['qwen2.5:7b', 'image', 2, 2],
      ['qwen2.5:7b', 'rays', 2, 2],
    ]);
  });
});
