// Every stored value that can grow is bounded where it is written, so no row exceeds aws-facts: data-api.max-row-bytes:
// the limits add up under a row per table, measured as Postgres prints them; what a model writes is cut with a marker
// and reads back over the Data API; what the researcher asks for too large is refused before anything is written,
// naming field, size, limit and fix; an agent memory too large is refused when the turn is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentFactory, AgentReply } from '../core/engine/agent.ts';
import { startExperiment } from '../core/engine/experiment.ts';
import { runTurn } from '../core/engine/turn.ts';
import {
  clipJson,
  DATA_API_ROW_BYTES,
  FIXED_COLUMNS_BYTES,
  jsonbBytes,
  LIMITS,
  textBytes,
  truncateText,
} from '../core/store/stored-limits.ts';
import { packedLength } from '../core/maze/packed-grid.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { boundConversation, boundHistory, type HistoryEntry } from '../core/providers/llm/memory.ts';
import type { ChatMessage } from '../core/providers/llm/chat-model.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { registerSweep } from '../core/sweeps/sweep-registry.ts';
import { loadReplay } from '../reports/replay-data.ts';
import { loadTurns } from '../results/experiment-turns.ts';
import { tableCounts, testDatabase, type TestDatabase } from './support/db.ts';

const KiB = 1024;
const MAZE = { kind: 'generated' as const, spec: { generator: 'medium', width: 11, height: 11, seed: 2 } };
const MARKER = / \[\.\.\. truncated: (\d+) bytes, the first (\d+) kept\]$/;
// two bytes a character, so a cut in the middle of one would show
const HUGE = 'ü'.repeat(50_000);

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase({ transport: 'data-api' });
});
afterAll(async () => {
  await db?.drop();
});

describe('the limits', () => {
  it("leave every table's row, with its fixed columns, under the Data API's 64 KB", () => {
    const tables = new Map<string, number>();
    for (const [field, bytes] of Object.entries(LIMITS)) {
      const table = field.split('.')[0];
      tables.set(table, (tables.get(table) ?? 0) + bytes);
    }
    tables.set('mazes', packedLength(201 * 201));
    for (const [table, bytes] of tables)
      expect(bytes + FIXED_COLUMNS_BYTES, table).toBeLessThanOrEqual(DATA_API_ROW_BYTES);
    expect([...tables.keys()]).toEqual(
      expect.arrayContaining(['experiments', 'turns', 'actions', 'llm_calls', 'sweeps', 'mazes']),
    );
  });

  it('measure each value as Postgres prints it', async () => {
    const values: unknown[] = [
      { reasoning: 'a "quoted"\nline\twith \\ and é and 😀', n: [1, -2.5, 1e21, 1e-7, 1.5e-10, 0], ok: true },
      [
        [200, 200, 1],
        [0, 0, 2],
      ],
      { empty: {}, none: [], nothing: null, deep: { deeper: { deepest: ['\u0001\u001f'] } } },
      'plain',
      [],
    ];
    for (const v of values) {
      const { rows } = await db.pool.query<{ bytes: number }>('SELECT octet_length($1::jsonb::text) AS bytes', [
        JSON.stringify(v),
      ]);
      expect(jsonbBytes(v), JSON.stringify(v)).toBe(rows[0].bytes);
    }
    const { rows } = await db.pool.query('SELECT octet_length($1::text) AS bytes', [HUGE]);
    expect(textBytes(HUGE)).toBe(rows[0].bytes);
  });

  it('cut text at a character boundary, within the limit, saying how much there was', () => {
    const cut = truncateText(HUGE, 1000);
    expect(textBytes(cut)).toBeLessThanOrEqual(1000);
    const [, was, kept] = MARKER.exec(cut)!.map(Number);
    expect(was).toBe(100_000);
    expect(cut.slice(0, cut.search(MARKER))).toBe('ü'.repeat(kept / 2));
    expect(truncateText('short', 1000)).toBe('short');
  });

  it('cut JSON in its longest strings, keeping its shape', () => {
    const value = { reasoning: HUGE, direction: 'east', nested: { words: HUGE.slice(0, 20_000), n: 3 } };
    const clipped = clipJson(value, 8 * KiB) as typeof value;
    expect(jsonbBytes(clipped)).toBeLessThanOrEqual(8 * KiB);
    expect(clipped.direction).toBe('east');
    expect(clipped.nested.n).toBe(3);
    expect(clipped.reasoning).toMatch(MARKER);
    // thousands of keys cannot be cut to fit by their strings: the value becomes its text, cut
    const wide = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]));
    const whole = clipJson(wide, 8 * KiB) as { truncated_json: string };
    expect(jsonbBytes(whole)).toBeLessThanOrEqual(8 * KiB);
    expect(whole.truncated_json.startsWith('{"k0":0,"k1":1')).toBe(true);
  });

  it("keep an agent's carried conversation and history within the memory's limit, newest kept", () => {
    const messages: ChatMessage[] = Array.from({ length: 200 }, (_, i) =>
      i % 2 ? { role: 'assistant', text: `${i} ${'word '.repeat(100)}`, calls: [] } : { role: 'user', text: `${i}` },
    );
    const kept = boundConversation(messages, 200_000);
    expect(jsonbBytes({ conversation: kept })).toBeLessThanOrEqual(LIMITS['experiments.agent_memory']);
    expect(kept.at(-1)).toEqual(messages.at(-1));
    expect(kept.length).toBeGreaterThan(20);
    const entries: HistoryEntry[] = Array.from({ length: 1_000 }, (_, i) => ({
      step: i + 1,
      tool: 'move_east',
      ok: true,
      outcome: 'moved',
      x: i,
      y: i,
    }));
    const history = boundHistory(entries);
    expect(jsonbBytes({ history })).toBeLessThanOrEqual(LIMITS['experiments.agent_memory']);
    expect(history.at(-1)).toEqual(entries.at(-1));
    expect(boundHistory(entries.slice(0, 20))).toHaveLength(20);
  });
});

describe('over the Data API', () => {
  it('logs a model that writes 100 KB: cut with a marker, the cut recorded, every row read back', async () => {
    const store = new PgStore(db);
    const { experimentId } = await startExperiment(
      { agent: 'random', provider: 'baseline', agentSeed: 1, maze: MAZE, config: { max_moves: 50 } },
      store,
    );
    const reply: AgentReply = {
      calls: [
        { name: 'move_east', arguments: { reasoning: HUGE } },
        { name: `move_${'m'.repeat(5_000)}`, arguments: {} },
      ],
      text: HUGE,
      stopReason: 'x'.repeat(1_000),
      reasoning: { text: HUGE, tokens: 25_000 },
      retries: [{ attempt: 1, error: HUGE }],
    };
    let replies = 0;
    const verbose: AgentFactory = () => ({
      callsModel: true,
      act: () => Promise.resolve(replies++ === 0 ? reply : { calls: [], text: 'done' }),
    });
    const turn = await runTurn(experimentId, 1, { store, agents: verbose });
    expect(turn.actionsExecuted).toBe(2);

    // every column of every row, through the Data API
    const actions = (
      await db.query('SELECT * FROM actions WHERE experiment_id = $1 ORDER BY call_index', [experimentId])
    ).rows;
    expect(actions).toHaveLength(2);
    expect(actions[0].clipped).toEqual({
      arguments: jsonbBytes(reply.calls[0].arguments),
      reasoning: 100_000,
      assistant_text: 100_000,
    });
    expect(textBytes(actions[0].assistant_text)).toBeLessThanOrEqual(LIMITS['actions.assistant_text']);
    expect(actions[0].assistant_text).toMatch(/^ü+ \[\.\.\. truncated: 100000 bytes, the first \d+ kept\]$/);
    expect(actions[0].reasoning).toMatch(MARKER);
    expect(actions[0].arguments.reasoning).toMatch(MARKER);
    // a reasoning over 20,000 characters is invalid_arguments (tools.ts): the step counts, the words are kept, cut
    expect(actions[0].outcome).toBe('invalid_arguments');
    expect(actions[1].clipped).toEqual({ tool: 5_005 }); // its message quotes 80 characters of the name
    expect(actions[1].tool).toMatch(/^move_m+ \[\.\.\. truncated: 5005 bytes/);
    expect(textBytes(actions[1].tool)).toBeLessThanOrEqual(LIMITS['actions.tool']);
    const [call] = (
      await db.query('SELECT * FROM llm_calls WHERE experiment_id = $1 ORDER BY call_index', [experimentId])
    ).rows;
    expect(Object.keys(call.clipped).sort()).toEqual([
      'assistant_text',
      'reasoning_text',
      'retries',
      'stop_reason',
      'tool_calls',
    ]);
    expect(call.assistant_text).toMatch(MARKER);
    expect(call.reasoning_text).toMatch(MARKER);
    expect(call.retries[0].error).toMatch(MARKER);
    expect(call.tool_calls.map((c: { name: string }) => c.name.slice(0, 6))).toEqual(['move_e', 'move_m']);
    // the run goes on, and what reads the transcript reads it
    const { rows } = await db.query('SELECT status, actions_taken FROM experiments WHERE id = $1', [experimentId]);
    expect(rows[0]).toEqual({ status: 'running', actions_taken: 2 });
    const [detail] = await loadTurns(db, experimentId, 1, 1);
    expect(detail.calls.map((c) => c.assistant_text)).toEqual([call.assistant_text, 'done']);
    const replay = await loadReplay(db, experimentId);
    expect(replay.notes[0].text).toMatch(MARKER);
  });

  it('refuses a prompt, a config or a vision too large before anything is written, naming the field', async () => {
    const store = new PgStore(db);
    const before = await tableCounts(db);
    const start = (req: Partial<Parameters<typeof startExperiment>[0]>) =>
      startExperiment({ agent: 'random', provider: 'baseline', agentSeed: 1, maze: MAZE, ...req }, store);
    await expect(start({ promptText: 'p'.repeat(20_000) })).rejects.toMatchObject({
      name: 'ValueTooLargeError',
      field: 'experiments.prompt_text',
      bytes: 20_000,
      limit: 10 * KiB,
      message:
        'experiments.prompt_text is 20,000 bytes, over its limit of 10,240 bytes (the RDS Data API reads back no ' +
        'row over 64 KB); shorten the prompt (prompt version "v2", as rendered for this maze)',
    });
    const prices = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`vendor.model-${i}`, { input_per_mtok: 1, output_per_mtok: 2 }]),
    );
    await expect(start({ config: { prices } })).rejects.toMatchObject({
      name: 'ValueTooLargeError',
      field: 'experiments.config',
      message: expect.stringContaining('leave out of prices, rate_limits and context_windows'),
    });
    const wide = { kind: 'generated' as const, spec: { generator: 'open_field', width: 201, height: 201, seed: 1 } };
    await expect(start({ maze: wide, config: { see_through: true, vision_range: 14 } })).rejects.toMatchObject({
      name: 'ValueTooLargeError',
      field: 'actions.vision',
      message: expect.stringContaining('lower vision_range (14) or turn off see_through for a 201x201 maze'),
    });
    expect(await tableCounts(db)).toEqual(before);
    // the largest square that fits starts
    await expect(
      start({ maze: wide, config: { see_through: true, vision_range: 13, max_moves: 5 } }),
    ).resolves.toBeTruthy();
  });

  it('refuses a memory setting the row could never carry, rather than cutting it silently every turn', async () => {
    const store = new PgStore(db);
    const before = await tableCounts(db);
    const start = (config: Record<string, unknown>) =>
      startExperiment({ agent: 'random', provider: 'baseline', agentSeed: 1, maze: MAZE, config }, store);
    await expect(start({ memory: 'conversation', memory_conversation_tokens: 16_000 })).rejects.toMatchObject({
      name: 'InvalidInputError',
      field: 'config.memory_conversation_tokens',
      message: expect.stringContaining('set memory_conversation_tokens to 7000 or less'),
    });
    await expect(start({ memory: 'history', memory_history_actions: 251 })).rejects.toMatchObject({
      field: 'config.memory_history_actions',
    });
    expect(await tableCounts(db)).toEqual(before);
    // the defaults, and the largest that fit, start; a bound on a memory mode not in use is not checked
    await expect(start({ memory: 'conversation', max_moves: 5 })).resolves.toBeTruthy();
    await expect(start({ memory: 'history', memory_history_actions: 250, max_moves: 5 })).resolves.toBeTruthy();
    await expect(start({ memory_conversation_tokens: 16_000, max_moves: 5 })).resolves.toBeTruthy();
  });

  it('refuses through the state machine as bad input (InputRefused), with the message', async () => {
    await expect(
      runLocalExperiment(
        {
          agent: 'frontier',
          maze: { generator: 'open_field', size: 101, seed: 1 },
          config: { see_through: true, vision_range: 30 },
        },
        { db },
      ),
    ).rejects.toMatchObject({
      name: 'InvalidInputError',
      message: expect.stringMatching(/^actions\.vision is [\d,]+ bytes/),
    });
  });

  it('refuses an agent memory too large when the turn is written, writing nothing of it', async () => {
    const store = new PgStore(db);
    const { experimentId } = await startExperiment(
      { agent: 'random', provider: 'baseline', agentSeed: 1, maze: MAZE, config: { max_moves: 50 } },
      store,
    );
    const hoarder: AgentFactory = () => ({
      act: () => Promise.resolve({ calls: [{ name: 'move_east', arguments: {} }] }),
      memory: () => ({ vars: { everything: 'v'.repeat(40_000) } }),
    });
    await expect(runTurn(experimentId, 1, { store, agents: hoarder })).rejects.toMatchObject({
      name: 'ValueTooLargeError',
      field: 'experiments.agent_memory',
      message: expect.stringMatching(/^experiments\.agent_memory is 40,0\d\d bytes, over its limit of 30,720 bytes/),
    });
    const { rows } = await db.query('SELECT count(*)::int AS n FROM turns WHERE experiment_id = $1', [experimentId]);
    expect(rows[0].n).toBe(0);
  });

  it('sizes a memory as jsonb holds it, not as its JSON text: spaces after commas, exponents written out', async () => {
    const store = new PgStore(db);
    const { experimentId } = await startExperiment(
      { agent: 'random', provider: 'baseline', agentSeed: 1, maze: MAZE, config: { max_moves: 50 } },
      store,
    );
    // each under the 30,720-byte limit as JSON (24,001 and 661 bytes), each over it as jsonb
    for (const memory of [Array(12_000).fill(0), Array(110).fill(1e300)]) {
      expect(JSON.stringify(memory).length).toBeLessThan(LIMITS['experiments.agent_memory']);
      const remembering: AgentFactory = () => ({
        act: () => Promise.resolve({ calls: [{ name: 'move_east', arguments: {} }] }),
        memory: () => memory,
      });
      await expect(runTurn(experimentId, 1, { store, agents: remembering })).rejects.toMatchObject({
        name: 'ValueTooLargeError',
        field: 'experiments.agent_memory',
        bytes: jsonbBytes(memory),
      });
    }
    const { rows } = await db.query('SELECT count(*)::int AS n FROM turns WHERE experiment_id = $1', [experimentId]);
    expect(rows[0].n).toBe(0);
  });

  it('cuts a failure reason; refuses a sweep file too large to keep', async () => {
    const store = new PgStore(db);
    const { experimentId } = await startExperiment(
      { agent: 'random', provider: 'baseline', agentSeed: 1, maze: MAZE, config: { max_moves: 50 } },
      store,
    );
    await store.finalizeExperiment(experimentId, { status: 'failed', stopReason: 'error', failureReason: HUGE });
    const { rows } = await db.query('SELECT * FROM experiments WHERE id = $1', [experimentId]);
    expect(rows[0].failure_reason).toMatch(MARKER);
    expect(textBytes(rows[0].failure_reason)).toBeLessThanOrEqual(LIMITS['experiments.failure_reason']);

    const sweep = loadSweep(
      `# ${'a long comment '.repeat(2_000)}
sweep: too-long
agents: [{ agent: random }]
mazes: { generators: [medium], sizes: [11], seeds: [1] }
`,
      'test',
    );
    await expect(registerSweep(db, sweep)).rejects.toMatchObject({
      name: 'ValueTooLargeError',
      field: 'sweeps.spec_text',
      message: expect.stringContaining('split sweep "too-long" into smaller sweeps'),
    });
    expect((await db.query("SELECT count(*)::int AS n FROM sweeps WHERE id = 'too-long'")).rows[0].n).toBe(0);
  });
});
