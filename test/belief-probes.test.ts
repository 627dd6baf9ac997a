// Belief probes (config.belief_probe_every): the answer read tolerantly and scored against the tiles the model was
// shown, by hand on a 5x5 maze; a run with probes takes the same steps, with the same requests, as one without;
// malformed answers and failed probe calls are kept as such and the run goes on; the probe's tokens count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBelief, scoreBelief, shownCells, beliefProbeQuestion } from '../core/engine/belief-probe.ts';
import { experimentConfigSchema } from '../core/config/experiment-config.ts';
import { Grid, buildMaze } from '../core/maze/index.ts';
import { UNKNOWN } from '../core/engine/game.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { BedrockSim } from '../simulators/bedrock-sim.ts';
import { OpenAISim } from '../simulators/openai-sim.ts';
import type { Fault } from '../simulators/sim-server.ts';
import type { StartExecutionInput } from '../core/machine/contracts.ts';
import { agentsWith } from '../core/providers/agents.ts';
import { replayScript, rerunRequest } from '../results/recorded-run.ts';
import { answeredRequests } from '../core/store/fork-prefix-sql.ts';
import { summaryOutput } from './support/summary-output.ts';
import { STATES } from '../core/machine/states.ts';
import { actionLog, ledgerProblems, testDatabase, type TestDatabase } from './support/db.ts';
import { FAST_RETRY } from './support/provider-sims.ts';
import { readFileSync } from 'node:fs';
import { runTurn } from '../core/engine/turn.ts';
import { initialState } from '../core/engine/game.ts';
import { SharedBudget } from '../core/engine/token-cost.ts';
import type { Agent } from '../core/engine/agent.ts';
import type { AbandonedCallsWrite, EngineStore, ExperimentInfo, TurnWrite } from '../core/engine/store.ts';
import { cli } from './support/cli.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { sweepStatistics } from '../reports/sweep-statistics.ts';
import { clusterShare } from '../reports/maze-inference.ts';

//   01234
// 0 #####
// 1 #S..#
// 2 #.#.#
// 3 #..G#
// 4 #####
const ROWS = [
  [1, 1, 1, 1, 1],
  [1, 0, 0, 0, 1],
  [1, 0, 1, 0, 1],
  [1, 0, 0, 2, 1],
  [1, 1, 1, 1, 1],
];
const MAZE = buildMaze(Grid.fromRows(ROWS), { x: 1, y: 1 }, 'test', null);

/** Known cells as a GameState keeps them: the tile where shown, UNKNOWN elsewhere. */
function known(cells: Array<[number, number]>): Uint8Array {
  const k = new Uint8Array(25).fill(UNKNOWN);
  for (const [x, y] of cells) k[y * 5 + x] = ROWS[y][x];
  return k;
}
// what vision_range 1 shows from the start (1,1) and then from (2,1), after move_east
const SHOWN = known([
  [1, 1],
  [1, 0],
  [1, 2],
  [2, 1],
  [0, 1],
  [2, 0],
  [2, 2],
  [3, 1],
]);
// walls wrong at (2,2) and open wrong at (1,2); six cells claimed that were never shown, all walls, all right
const ANSWER = [
  'Here is the maze as I believe it is:',
  '```',
  '#####',
  '#.@.#',
  '##.?#',
  '?????',
  '?????',
  '```',
  'position: 2,2',
].join('\n');
const HAND_SCORED = {
  shownCells: 8,
  shownWalls: 4,
  shownOpen: 4,
  correctCells: 6,
  correctWalls: 3,
  correctOpen: 3,
  claimedUnshown: 6,
  claimedUnshownCorrect: 6,
  believed: { x: 2, y: 2 },
  positionError: 1,
};

describe('an answer read and scored', () => {
  it('scores by hand: walls and open cells apart, claims never shown counted apart, the position error', () => {
    const parsed = parseBelief(ANSWER, 5, 5);
    if (typeof parsed === 'string') return expect.unreachable(parsed);
    expect(parsed.rows).toEqual(['#####', '#.@.#', '##.?#', '?????', '?????']);
    expect(parsed.problems).toEqual(["the @ at (2,1) is not the position line's (2,2)"]);
    const shown = shownCells({ observation: 'rays' }, SHOWN);
    expect(scoreBelief(parsed, MAZE, shown, { x: 2, y: 1 })).toEqual(HAND_SCORED);
  });

  it('reads a map however it is written: row numbers, spaces, borders, prose around it; @ as the position', () => {
    const written = [
      'Sure! My map (x to the right):',
      '  0 | # # # # # |',
      '  1 | # . @ . # |',
      '  2 | # . # . # |',
      'I did not see the rest.',
    ].join('\n');
    const parsed = parseBelief(written, 5, 5);
    if (typeof parsed === 'string') return expect.unreachable(parsed);
    expect(parsed).toEqual({
      rows: ['#####', '#.@.#', '#.#.#'],
      position: { x: 2, y: 1 },
      problems: ["3 rows for the maze's 5"],
    });
    const s = scoreBelief(parsed, MAZE, shownCells({ observation: 'rays' }, SHOWN), { x: 2, y: 1 });
    // every shown cell right; (0,0), (3,0), (4,0), (4,1), (0,2), (3,2), (4,2) claimed unshown, all right
    expect(s).toMatchObject({ correctCells: 8, claimedUnshown: 7, claimedUnshownCorrect: 7, positionError: 0 });
    expect(positionOf('I am at position (3, 1).\n#####')).toEqual({ x: 3, y: 1 });
    expect(positionOf('position x=3, y=2\n#####')).toEqual({ x: 3, y: 2 });
  });

  it('keeps the largest block of map lines (the last of equal ones), ignoring a column header', () => {
    const parsed = parseBelief('draft:\n##\n\n01234\n#####\n#.@.#\nposition: 2,1', 5, 5);
    expect(typeof parsed === 'string' ? parsed : parsed.rows).toEqual(['#####', '#.@.#']);
  });

  it('finds no map in prose: malformed, scored as claiming no cell (accuracy 0), never an error', () => {
    expect(parseBelief('I think the maze is a spiral. position: 1,1', 5, 5)).toMatch(/^no map/);
    expect(parseBelief('', 5, 5)).toMatch(/^no map/);
    const s = scoreBelief(null, MAZE, shownCells({ observation: 'rays' }, SHOWN), { x: 2, y: 1 });
    expect(s).toEqual({
      ...HAND_SCORED,
      correctCells: 0,
      correctWalls: 0,
      correctOpen: 0,
      claimedUnshown: 0,
      claimedUnshownCorrect: 0,
      believed: null,
      positionError: null,
    });
  });

  it('counts every cell as shown under full_map and adjacency (the whole maze), elsewhere what was seen', () => {
    const counts = (observation: 'full_map' | 'adjacency' | 'local_grid' | 'image') => {
      const s = scoreBelief(null, MAZE, shownCells({ observation }, SHOWN), { x: 2, y: 1 });
      return [s.shownCells, s.shownWalls, s.shownOpen];
    };
    expect(counts('full_map')).toEqual([25, 17, 8]);
    expect(counts('adjacency')).toEqual([25, 17, 8]);
    expect(counts('local_grid')).toEqual([8, 4, 4]);
    expect(counts('image')).toEqual([8, 4, 4]);
  });

  it('reads a position only from two numbers apart: "position: 12" gives none', () => {
    expect(positionOf('#####\nposition: 12')).toBeNull();
    expect(positionOf('#####\nposition: 10 3')).toEqual({ x: 10, y: 3 });
    expect(positionOf('#####\nposition: 10;3')).toEqual({ x: 10, y: 3 });
  });

  it("asks in the prompts' legend, with the maze's size", () => {
    const q = beliefProbeQuestion(7, 5);
    expect(q).toMatch(/^\[belief probe\] /);
    expect(q).toContain('5 lines of 7 characters');
    expect(q).toContain('Legend: . open, # wall, G goal, @ you, ? not known.');
    expect(q).toContain('position: x,y');
  });
});

function positionOf(answer: string) {
  const parsed = parseBelief(answer, 5, 5);
  return typeof parsed === 'string' ? parsed : parsed.position;
}

describe('config.belief_probe_every', () => {
  it('is 0 (off) unless set; a whole number of turns from 0, refused otherwise with a clear message', () => {
    expect(experimentConfigSchema.parse({}).belief_probe_every).toBe(0);
    expect(experimentConfigSchema.parse({ belief_probe_every: 3 }).belief_probe_every).toBe(3);
    const problem = (v: unknown) => {
      const r = experimentConfigSchema.safeParse({ belief_probe_every: v });
      return r.success ? 'accepted' : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    };
    expect(problem(-1)).toBe('belief_probe_every: must be 0 (off) or a number of turns N: a probe every N turns');
    expect(problem(1.5)).toBe(
      'belief_probe_every: must be a whole number of turns: 0 (off) or N, a probe every N turns',
    );
    expect(problem('often')).toBe(
      'belief_probe_every: must be a whole number of turns: 0 (off) or N, a probe every N turns',
    );
  });
});

const MODEL = 'qwen2.5:7b';
/** One action in all, in sight one tile each way: SHOWN after a move east. */
const HAND_CONFIG = { vision_range: 1, max_actions_per_turn: 1, max_moves: 1, success_rule: 'reached' };
const PRICE = { input_per_mtok: 3, output_per_mtok: 15 };
const NO_WAIT = { [STATES.InvokeOllamaAgent]: 0 };
let db: TestDatabase;
const sims: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  await db?.drop();
});

/** A fresh simulator (its player remembers nothing of another run), listening. */
async function simulator(opts: ConstructorParameters<typeof OllamaSim>[0] = {}) {
  const sim = new OllamaSim(opts);
  sims.push(sim);
  return { sim, host: await sim.listen() };
}

/** An Ollama run on the simulator at `host`; its id. */
async function run(host: string, input: Partial<StartExecutionInput>, config: Record<string, unknown>) {
  const { experimentId } = await runLocalExperiment(
    {
      agent: 'ollama',
      model: MODEL,
      agentSeed: 11,
      maze: { generator: 'medium', size: 11, seed: 3 },
      ...input,
      config: { ollama: { host }, retry: FAST_RETRY, prices: { [MODEL]: PRICE }, ...config },
    },
    { db, retryIntervals: NO_WAIT },
  );
  return experimentId!;
}

interface ProbeRow {
  turn_number: number;
  step_number: number;
  status: string;
  problem: string | null;
  shown_cells: number | null;
  shown_walls: number | null;
  shown_open: number | null;
  correct_cells: number | null;
  correct_walls: number | null;
  correct_open: number | null;
  claimed_unshown: number | null;
  claimed_unshown_correct: number | null;
  believed_x: number | null;
  believed_y: number | null;
  position_x: number;
  position_y: number;
  position_error: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  answered_by: string | null;
  answer: string | null;
  stop_reason: string | null;
}

const probesOf = async (id: string) =>
  (await db.pool.query<ProbeRow>('SELECT * FROM belief_probes WHERE experiment_id = $1 ORDER BY turn_number', [id]))
    .rows;
const hashOf = async (id: string) =>
  (await db.pool.query<{ h: string }>('SELECT trajectory_hash AS h FROM experiments WHERE id = $1', [id])).rows[0].h;
/** The model requests of the run's turns (a probe's are apart), as sent. */
const turnRequests = (sim: OllamaSim) =>
  sim.requests
    .filter((r) => r.path === '/api/chat' && !JSON.stringify(r.body).includes('[belief probe]'))
    .map((r) => JSON.stringify(r.body));
const probeRequests = (sim: OllamaSim) =>
  sim.requests.filter((r) => r.path === '/api/chat' && JSON.stringify(r.body).includes('[belief probe]'));

describe('a run with belief probes on the Ollama simulator', () => {
  const HAND_MAZE = { grid: ROWS, start: { x: 1, y: 1 } };
  const ONE_MOVE = HAND_CONFIG;

  it("stores the probe after the turn, scored as by hand; its call counts in the run's tokens and spend", async () => {
    const { sim, host } = await simulator({
      faults: [{ kind: 'script', calls: ['move_east'] }],
      probeFaults: [{ kind: 'say', text: ANSWER }],
    });
    const id = await run(host, { maze: HAND_MAZE }, { ...ONE_MOVE, belief_probe_every: 1 });
    const [probe, ...more] = await probesOf(id);
    expect(more).toEqual([]);
    expect(probe).toMatchObject({
      turn_number: 1,
      step_number: 1,
      status: 'scored',
      problem: "the @ at (2,1) is not the position line's (2,2)",
      shown_cells: 8,
      shown_walls: 4,
      shown_open: 4,
      correct_cells: 6,
      correct_walls: 3,
      correct_open: 3,
      claimed_unshown: 6,
      claimed_unshown_correct: 6,
      believed_x: 2,
      believed_y: 2,
      position_x: 2,
      position_y: 1,
      position_error: 1,
      answered_by: 'model',
      answer: ANSWER,
    });
    // the probe is the simulator's second reply: its tokens and cost are the probe's, and count in the run's
    const [turn, asked] = sim.replies;
    expect([probeRequests(sim).length, sim.replies.length]).toEqual([1, 2]);
    expect(probe).toMatchObject({ input_tokens: asked.inputTokens, output_tokens: asked.outputTokens });
    const cost = (asked.inputTokens * 3 + asked.outputTokens * 15) / 1e6;
    expect(Number(probe.cost_usd)).toBeCloseTo(cost, 12);
    const all = turn.inputTokens + turn.outputTokens + asked.inputTokens + asked.outputTokens;
    const { rows } = await db.pool.query(
      `SELECT e.spent_tokens::int AS spent, k.llm_calls::int AS calls, k.probe_calls::int AS probes,
         k.input_tokens::int AS input, k.output_tokens::int AS output
       FROM experiments e JOIN experiment_totals k ON k.experiment_id = e.id WHERE e.id = $1`,
      [id],
    );
    expect(rows[0]).toEqual({
      spent: all,
      calls: 2,
      probes: 1,
      input: turn.inputTokens + asked.inputTokens,
      output: turn.outputTokens + asked.outputTokens,
    });
    expect(await ledgerProblems(db, [id])).toEqual([]);
    // what `ariadne summary` shows of it, text and --json
    const text = await summaryOutput(db, id, false);
    expect(text).toMatch(/^llm calls +2 \(1 belief probe\)$/m);
    expect(text).toMatch(
      /^belief maps +1 probe: cells 0\.750 right \(walls 0\.750, open 0\.750\) of those shown\n {13}6\.0 cells /m,
    );
    expect(text).toMatch(/^ {13}6\.0 cells claimed unseen a probe; position off by 1\.00 \(1 gave one\)$/m);
    expect(text).toMatch(/^ {13}means of the 1 answered, each the same weight$/m);
    const json = JSON.parse(await summaryOutput(db, id, true)) as Record<string, unknown>;
    expect(json).toMatchObject({ llm_calls: 2, probe_calls: 1 });
    expect(json.belief_probes).toEqual({
      asked: 1,
      scored: 1,
      malformed: 0,
      failed: 0,
      skipped: 0,
      answered: 1,
      cell_accuracy: 0.75,
      wall_accuracy: 0.75,
      open_accuracy: 0.75,
      claimed_unshown: 6,
      position_error: 1,
      positions_given: 1,
      probes: [
        {
          turn: 1,
          step: 1,
          status: 'scored',
          problem: "the @ at (2,1) is not the position line's (2,2)",
          shown_cells: 8,
          cell_accuracy: 0.75,
          wall_accuracy: 0.75,
          open_accuracy: 0.75,
          claimed_unshown: 6,
          claimed_unshown_correct: 6,
          position_error: 1,
        },
      ],
    });
  });

  it("scores the simulator's own belief (what it was shown) as every shown cell right, where it is", async () => {
    const { host } = await simulator({ faults: [{ kind: 'script', calls: ['move_east'] }] });
    const id = await run(host, { maze: HAND_MAZE }, { ...ONE_MOVE, belief_probe_every: 1 });
    expect(await probesOf(id)).toEqual([
      expect.objectContaining({
        status: 'scored',
        problem: null,
        correct_cells: 8,
        shown_cells: 8,
        claimed_unshown: 0,
        position_error: 0,
        answer: 'The maze as I believe it is:\n```\n?##??\n#.@.?\n?.#??\n?????\n?????\n```\nposition: 2,1',
      }),
    ]);
  });
});

describe("a noisy simulator's answer", () => {
  it('is scored by hand: the cells it misremembers (--belief-noise) are wrong, walls and open apart', async () => {
    // at noise 0.2 the simulator misremembers (1,0) and (2,0) (walls, given as open) and (1,1) and (3,1) (open, given
    // as walls) of the eight cells shown; never the cell it stands on
    const { host } = await simulator({ faults: [{ kind: 'script', calls: ['move_east'] }], beliefNoise: 0.2 });
    const id = await run(
      host,
      { maze: { grid: ROWS, start: { x: 1, y: 1 } } },
      { ...HAND_CONFIG, belief_probe_every: 1 },
    );
    expect(await probesOf(id)).toEqual([
      expect.objectContaining({
        status: 'scored',
        answer: 'The maze as I believe it is:\n```\n?..??\n##@#?\n?.#??\n?????\n?????\n```\nposition: 2,1',
        shown_cells: 8,
        shown_walls: 4,
        shown_open: 4,
        correct_cells: 4,
        correct_walls: 2,
        correct_open: 2,
        claimed_unshown: 0,
        position_error: 0,
      }),
    ]);
    expect((await summaryOutput(db, id, false)).match(/^belief maps .*$/m)?.[0]).toMatch(
      /cells 0\.500 right \(walls 0\.500, open 0\.500\)/,
    );
  });
});

describe('the Bedrock and OpenAI simulators', () => {
  it('answer a probe with the map they were shown, in any format and memory', async () => {
    process.env.AWS_ACCESS_KEY_ID = 'sim';
    process.env.AWS_SECRET_ACCESS_KEY = 'sim';
    process.env.OPENAI_API_KEY = 'sim';
    const bedrock = new BedrockSim();
    const openai = new OpenAISim();
    sims.push(bedrock, openai);
    const [bedrockUrl, openaiUrl] = await Promise.all([bedrock.listen(), openai.listen()]);
    const maze = { generator: 'medium', size: 11, seed: 3 };
    const runs = await Promise.all([
      runLocalExperiment(
        {
          agent: 'bedrock',
          model: 'us.anthropic.claude-sonnet-4-6',
          maze,
          config: {
            bedrock: { endpoint: bedrockUrl },
            retry: FAST_RETRY,
            max_moves: 30,
            memory: 'conversation',
            observation: 'local_grid',
            belief_probe_every: 2,
          },
        },
        { db, retryIntervals: { [STATES.InvokeBedrockAgent]: 0 } },
      ),
      runLocalExperiment(
        {
          agent: 'openai',
          model: 'gpt-4.1-mini',
          maze,
          config: {
            openai: { base_url: `${openaiUrl}/v1` },
            retry: FAST_RETRY,
            max_moves: 30,
            observation: 'json',
            belief_probe_every: 2,
          },
        },
        { db, retryIntervals: { [STATES.InvokeOpenAIAgent]: 0 } },
      ),
    ]);
    for (const { experimentId } of runs) {
      const probes = await probesOf(experimentId!);
      expect(probes.length).toBeGreaterThan(0);
      for (const p of probes)
        expect([p.status, p.correct_cells, p.claimed_unshown, p.position_error]).toEqual([
          'scored',
          p.shown_cells,
          0,
          0,
        ]);
    }
  });
});

describe('an answer cut by the output cap', () => {
  it('is scored as far as it goes, and says it was cut', async () => {
    const { host } = await simulator({ faults: [{ kind: 'script', calls: ['move_east'] }] });
    const config = { ...HAND_CONFIG, belief_probe_every: 1, max_output_tokens: 16 };
    const id = await run(host, { maze: { grid: ROWS, start: { x: 1, y: 1 } } }, config);
    // 64 characters kept: the five rows, not the position line (the @ gives it)
    expect(await probesOf(id)).toEqual([
      expect.objectContaining({
        status: 'scored',
        problem: 'the answer was cut by the output cap (max_output_tokens)',
        stop_reason: 'length',
        answer: 'The maze as I believe it is:\n```\n?##??\n#.@.?\n?.#??\n?????\n?????\n`',
        correct_cells: 8,
        position_error: 0,
      }),
    ]);
  });
});

describe('a probe never changes the run', () => {
  // each pair on fresh simulators of the same model: the same requests, so the same answers, unless a probe leaks
  const SETTINGS: Array<Record<string, unknown>> = [
    { memory: 'fresh' },
    { memory: 'history' },
    { memory: 'conversation' },
    { memory: 'conversation', observation: 'image' },
    // the whole maze shown: every cell scored, as the simulator (which reads every tile) believes it
    { memory: 'fresh', observation: 'adjacency', success_rule: 'reached', max_actions_per_turn: 3 },
    { memory: 'fresh', observation: 'full_map', success_rule: 'reached', max_actions_per_turn: 3 },
  ];
  it.each(SETTINGS)(
    '%o: the same turns, requests and trajectory hash with a probe every turn as without',
    async (c) => {
      const plain = await simulator();
      const probed = await simulator();
      const config = { max_moves: 40, ...c };
      const without = await run(plain.host, {}, config);
      const withProbes = await run(probed.host, {}, { ...config, belief_probe_every: 1 });
      expect(await hashOf(withProbes)).toBe(await hashOf(without));
      expect(await actionLog(db, withProbes)).toEqual(await actionLog(db, without));
      expect(turnRequests(probed.sim)).toEqual(turnRequests(plain.sim));
      const turns = (await db.pool.query('SELECT turns_completed AS n FROM experiments WHERE id = $1', [withProbes]))
        .rows[0].n as number;
      expect(turns).toBeGreaterThan(2);
      const probes = await probesOf(withProbes);
      expect(probes.map((p) => [p.turn_number, p.status])).toEqual(
        Array.from({ length: turns }, (_, i) => [i + 1, 'scored']),
      );
      expect(probeRequests(probed.sim)).toHaveLength(turns);
      // the simulated model's belief is what it was shown
      for (const p of probes)
        expect([p.correct_cells, p.claimed_unshown, p.position_error]).toEqual([p.shown_cells, 0, 0]);
      if (c.observation === 'adjacency' || c.observation === 'full_map')
        expect(probes.every((p) => p.shown_cells === 121)).toBe(true);
    },
  );

  it('answers wrong (--belief-noise) without changing a turn: the same requests and trajectory hash', async () => {
    const plain = await simulator();
    const noisy = await simulator({ beliefNoise: 0.3 });
    const without = await run(plain.host, {}, { max_moves: 40 });
    const withProbes = await run(noisy.host, {}, { max_moves: 40, belief_probe_every: 1 });
    expect(await hashOf(withProbes)).toBe(await hashOf(without));
    expect(turnRequests(noisy.sim)).toEqual(turnRequests(plain.sim));
    const probes = await probesOf(withProbes);
    expect(probes.length).toBeGreaterThan(2);
    expect(probes.every((p) => p.status === 'scored')).toBe(true);
    const [wrong, shown] = [
      probes.reduce((n, p) => n + p.shown_cells! - p.correct_cells!, 0),
      probes.reduce((n, p) => n + p.shown_cells!, 0),
    ];
    // about the noise's share of the cells it was shown remembered wrong (each cell's draw is fixed)
    expect(wrong / shown).toBeGreaterThan(0.1);
    expect(wrong / shown).toBeLessThan(0.5);
  });

  it('keeps malformed answers and failed probe calls as such: the run goes on as it would without', async () => {
    const plain = await simulator();
    const failing: Fault[] = Array.from({ length: FAST_RETRY.max_attempts }, () => ({ kind: 'status', status: 500 }));
    const probed = await simulator({
      probeFaults: [{ kind: 'text-only' }, ...failing, { kind: 'empty' }, { kind: 'say', text: '#####\nno position' }],
    });
    const without = await run(plain.host, {}, { max_moves: 40 });
    const id = await run(probed.host, {}, { max_moves: 40, belief_probe_every: 1 });
    expect(await hashOf(id)).toBe(await hashOf(without));
    const probes = await probesOf(id);
    expect(probes.slice(0, 5).map((p) => [p.turn_number, p.status, p.problem])).toEqual([
      [1, 'malformed', "no map: no line of the legend's characters (. # G @ ?)"],
      [2, 'failed', expect.stringMatching(/^ProviderTransientError: .*500/) as unknown],
      [3, 'malformed', "no map: no line of the legend's characters (. # G @ ?)"],
      [4, 'scored', "1 rows for the maze's 11; 1 row(s) not 11 characters long; no position"],
      [5, 'scored', null],
    ]);
    // a malformed answer claims nothing: no cell right; a failed call has no answer, no score and no tokens
    expect(probes[0]).toMatchObject({ correct_cells: 0, claimed_unshown: 0, position_error: null });
    expect(probes[0].shown_cells).toBeGreaterThan(0);
    expect(probes[1]).toMatchObject({ answer: null, shown_cells: null, input_tokens: null, answered_by: null });
    // the summary's mean is over the answered probes, the two malformed ones as 0, the failed one left out
    const answered = probes.filter((p) => p.answer !== null);
    const json = JSON.parse(await summaryOutput(db, id, true)) as { belief_probes: { cell_accuracy: number } };
    const accuracy = answered.reduce((sum, p) => sum + p.correct_cells! / p.shown_cells!, 0) / answered.length;
    expect(json.belief_probes.cell_accuracy).toBeCloseTo(accuracy, 12);
    // the summary says what its means are over: the malformed answers in them as 0, the failed call in none
    const text = await summaryOutput(db, id, false);
    expect(text).toMatch(new RegExp(`^belief maps +${probes.length} probes \\(2 malformed, 1 failed\\): `, 'm'));
    expect(text).toMatch(
      new RegExp(
        `^ {13}means of the ${probes.length - 1} answered, each the same weight, a malformed one scoring 0; ` +
          'the 1 failed or skipped left out$',
        'm',
      ),
    );
    const { rows } = await db.pool.query('SELECT status, failure_reason FROM experiments WHERE id = $1', [id]);
    expect(rows[0]).toMatchObject({ status: expect.not.stringMatching(/failed/) as unknown, failure_reason: null });
    expect(await ledgerProblems(db, [id])).toEqual([]);
  });
});

describe('a probe past the budget', () => {
  it('is not asked: kept as skipped, naming the budget the turn spent', async () => {
    const { sim, host } = await simulator();
    const id = await run(host, {}, { max_moves: 40, max_tokens: 100, belief_probe_every: 1 });
    expect(probeRequests(sim)).toHaveLength(0);
    expect((await probesOf(id)).map((p) => [p.turn_number, p.status, p.problem, p.input_tokens])).toEqual([
      [1, 'skipped', 'the budget is spent (max_tokens)', null],
    ]);
  });
});

describe('a replay of a run with probes', () => {
  it('answers each probe from the record: the same trajectory and scores, nothing spent, no server asked', async () => {
    const { sim, host } = await simulator({ beliefNoise: 0.2 });
    const original = await run(host, {}, { max_moves: 40, belief_probe_every: 2 });
    const asked = sim.requests.length;
    const script = replayScript(db, original);
    const { experimentId } = await runLocalExperiment(await rerunRequest(db, original, 'probes-replayed'), {
      db,
      retryIntervals: NO_WAIT,
      // as `ariadne rerun --replay` does: each turn's cursor past the calls the replay committed
      agents: agentsWith({ replayFrom: async (run) => (await script).from(await answeredRequests(db, run)) }),
    });
    expect(sim.requests.length).toBe(asked);
    expect(await hashOf(experimentId!)).toBe(await hashOf(original));
    const scores = (rows: ProbeRow[]) =>
      rows.map(({ turn_number, status, correct_walls, correct_open, claimed_unshown, position_error }) => ({
        turn_number,
        status,
        correct_walls,
        correct_open,
        claimed_unshown,
        position_error,
      }));
    const recorded = await probesOf(original);
    const replayed = await probesOf(experimentId!);
    expect(scores(replayed)).toEqual(scores(recorded));
    // the noise is in the answers: some shown cells remembered wrong
    expect(recorded.some((p) => p.correct_cells! < p.shown_cells!)).toBe(true);
    expect(replayed.every((p) => p.answered_by === 'replay')).toBe(true);
    const spent = await db.pool.query('SELECT spent_tokens::int AS n FROM experiments WHERE id = $1', [experimentId]);
    expect(spent.rows[0].n).toBe(0);
  });
});

describe('belief probes in a sweep and through the command line', () => {
  const { ariadne, expectInputError } = cli(() => db);
  const SWEEP = 'probed-sweep';

  it('`stats` gives the mean cell accuracy per group over the mazes, counting what it leaves out', async () => {
    // one answer malformed (in the mean, as 0) and one call refused (400: no answer, in no mean, counted)
    const { host } = await simulator({
      beliefNoise: 0.15,
      probeFaults: [{ kind: 'text-only' }, { kind: 'status', status: 400 }],
    });
    const text = `sweep: ${SWEEP}
agents:
  - { agent: ollama, model: "${MODEL}" }
mazes: { generators: [medium], sizes: [11], seeds: [1, 2, 3] }
config: { max_moves: 24, belief_probe_every: 2, ollama: { host: "${host}" }, retry: { max_attempts: 2 } }
repeats: 2
`;
    await runLocalSweep(loadSweep(text, 'test'), { db, concurrency: 2 });
    // each run's mean accuracy over its answered probes, by maze, computed here from the rows
    const { rows } = await db.pool.query<{
      maze: number;
      accuracy: number | null;
      answered: number;
      malformed: number;
      unanswered: number;
    }>(
      `SELECT e.maze_id AS maze,
         avg(p.correct_cells::float8 / p.shown_cells) FILTER (WHERE p.answer IS NOT NULL) AS accuracy,
         count(*) FILTER (WHERE p.answer IS NOT NULL)::int AS answered,
         count(*) FILTER (WHERE p.status = 'malformed')::int AS malformed,
         count(*) FILTER (WHERE p.answer IS NULL)::int AS unanswered
       FROM belief_probes p JOIN experiments e ON e.id = p.experiment_id WHERE e.sweep_id = $1
       GROUP BY e.id, e.maze_id`,
      [SWEEP],
    );
    expect(rows).toHaveLength(6);
    const total = (k: 'answered' | 'malformed' | 'unanswered') => rows.reduce((n, r) => n + r[k], 0);
    expect([total('malformed'), total('unanswered')]).toEqual([1, 1]);
    const answered = rows.filter((r) => r.accuracy !== null);
    const mean = answered.reduce((s, r) => s + r.accuracy!, 0) / answered.length;
    expect(mean).toBeLessThan(1); // the noise: some cells remembered wrong
    const s = await sweepStatistics(db, SWEEP);
    const [group] = s.groups;
    expect(group.belief).toMatchObject({
      runs: answered.length,
      probes: { answered: total('answered'), malformed: 1, unanswered: 1 },
      unansweredRuns: rows.length - answered.length,
    });
    expect(group.belief.mean).toBeCloseTo(mean, 12);
    // a mean of runs' shares, one cluster per maze: clusterShare's interval on the logit scale
    const byMaze = new Map<number, { num: number; den: number }>();
    for (const r of answered) {
      const c = byMaze.get(r.maze) ?? { num: 0, den: 0 };
      byMaze.set(r.maze, { num: c.num + r.accuracy!, den: c.den + 1 });
    }
    const interval = clusterShare([...byMaze.values()])!;
    expect(group.belief.interval.mazes).toBe(byMaze.size);
    expect(group.belief.interval.low).toBeCloseTo(interval.low, 12);
    expect(group.belief.interval.high).toBeCloseTo(interval.high, 12);
    const r = await ariadne(['stats', SWEEP, '--wide']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\| belief \| +belief95$/m);
    expect(r.stdout).toContain(`${mean.toFixed(3)}`);
    const flat = r.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain("belief: over the runs with an answered belief probe, the mean of each run's");
    const left = [
      '1 failed or skipped',
      ...(answered.length < rows.length ? [`${rows.length - answered.length} run with no answered probe`] : []),
    ];
    expect(flat).toContain(
      `belief probes: ${MODEL}: ${total('answered')} answered (1 malformed, scored 0) in ${answered.length} runs; ` +
        `left out: ${left.join(', ')}`,
    );
  });

  it('refuses a bad --belief-probe-every or belief_probe_every, before writing anything', async () => {
    await expectInputError(
      ['run', '--agent', 'frontier', '--maze', 'medium', '--size', '11', '--belief-probe-every', '2.5'],
      /belief-probe-every/,
    );
    const r = await ariadne([
      'run',
      '--agent',
      'frontier',
      '--maze',
      'medium',
      '--size',
      '11',
      '--set',
      'belief_probe_every=-3',
    ]);
    expect([r.code, r.stderr]).toEqual([
      2,
      expect.stringContaining('must be 0 (off) or a number of turns N') as unknown,
    ]);
  });
});

describe('the turn engine and a probe', () => {
  const config = experimentConfigSchema.parse({ belief_probe_every: 1, prices: { m: PRICE } });
  const usage = { inputTokens: 1000, outputTokens: 100 };

  /** One turn of a scripted model agent on MAZE (a move east, then a probe answered `probe`), and its store. */
  function oneTurn(probe: Agent['probe'], store: Partial<EngineStore> = {}, sharedBudget?: SharedBudget) {
    const writes: TurnWrite[] = [];
    const abandoned: AbandonedCallsWrite[] = [];
    const experiment: ExperimentInfo = {
      ...{ id: 'e1', agent: 'ollama', model: 'm', promptText: '', agentSeed: 1, status: 'running' },
      ...{ config, startedAt: new Date(0) },
    };
    const engineStore: EngineStore = {
      loadTurnContext: () =>
        Promise.resolve({
          experiment,
          maze: MAZE,
          state: initialState(MAZE, config),
          agentState: null,
          agentMemory: null,
        }),
      findTurn: () => Promise.resolve(null),
      commitTurn: (w) => {
        writes.push(w);
        return Promise.resolve(true);
      },
      recordAbandonedCalls: (w) => {
        abandoned.push(w);
        return Promise.resolve();
      },
      ...store,
    };
    let replies = 0;
    const agent: Agent = {
      callsModel: true,
      act: () => Promise.resolve({ calls: replies++ === 0 ? [{ name: 'move_east', arguments: {} }] : [], usage }),
      probe,
    };
    const run = runTurn('e1', 1, { store: engineStore, agents: () => agent, sharedBudget });
    return { run, writes, abandoned };
  }
  const answer =
    (text: string): Agent['probe'] =>
    () =>
      Promise.resolve({
        text,
        usage,
        latencyMs: 5,
        stopReason: 'stop',
        truncated: false,
        simulator: null,
        answeredBy: 'model',
      });

  it('writes the probe with its turn, after the last action, and charges a shared budget for it', async () => {
    const shared = new SharedBudget({}, { tokens: 0, costUsd: 0 });
    const { run, writes } = oneTurn(answer('#####\n#.@.#'), {}, shared);
    await run;
    expect(writes[0].probe).toMatchObject({
      stepNumber: 1,
      status: 'scored',
      position: { x: 2, y: 1 },
      costUsd: (1000 * 3 + 100 * 15) / 1e6,
      answeredBy: 'model',
    });
    // the turn's own totals are its call's; the probe's are apart
    expect(writes[0].totals).toMatchObject({ llmCalls: 2, inputTokens: 2000, outputTokens: 200 });
    expect(shared.spent.tokens).toBe(3 * 1100);
  });

  it('keeps a probe that throws as failed: the turn is written all the same', async () => {
    const { run, writes } = oneTurn(() => Promise.reject(new Error('socket hang up')));
    await run;
    expect(writes[0].probe).toMatchObject({ status: 'failed', problem: 'Error: socket hang up', scores: null });
  });

  it("keeps the probe answered in a try that then failed with its abandoned calls, after the turn's", async () => {
    const failing = { commitTurn: () => Promise.reject(new Error('database gone')) };
    const { run, abandoned } = oneTurn(answer('#####'), failing);
    await expect(run).rejects.toThrow('database gone');
    expect(abandoned[0].calls.map((c) => [c.callIndex, c.inputTokens, c.costUsd])).toEqual([
      [0, 1000, (1000 * 3 + 100 * 15) / 1e6],
      [1, 1000, (1000 * 3 + 100 * 15) / 1e6],
      [2, 1000, (1000 * 3 + 100 * 15) / 1e6],
    ]);
  });
});

it('docs/prompts-and-observations.md quotes the question as it is asked', () => {
  const page = readFileSync(new URL('../docs/prompts-and-observations.md', import.meta.url), 'utf8');
  expect(page).toContain(beliefProbeQuestion(11, 11));
});
