// Stuck detection through the whole system: scripted agents (and the
// simulated Ollama server playing a script) run through the local state
// machine; each detector is checked under halt, observe and advise.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { AgentMonitor, ADVICE, type Detector } from '../core/engine/agent-monitor.ts';
import { executeCall, initialState } from '../core/engine/game.ts';
import { experimentConfigSchema } from '../core/config/experiment-config.ts';
import { buildMaze, Grid } from '../core/maze/index.ts';
import { frontierSearch } from '../core/engine/frontier.ts';
import { OllamaSim } from '../simulators/ollama-sim.ts';
import { scriptedAgents } from './support/scripted-agent.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { startExperiment } from '../core/engine/experiment.ts';
import { runTurn } from '../core/engine/turn.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';

let db: TestDatabase;
const ollama = new OllamaSim({ callsPerReply: 1 });
let ollamaUrl = '';
beforeAll(async () => {
  db = await testDatabase();
  ollamaUrl = await ollama.listen();
});
afterAll(async () => {
  await ollama.close();
  await db.drop();
});
beforeEach(() => {
  ollama.requests.length = 0;
  ollama.faults = [];
});

// 9x9 open field, start in the top-left corner, a wall to its east, the goal far away.
const grid = () => {
  const rows = Array.from({ length: 9 }, () => Array(9).fill(0));
  rows[0][1] = 1;
  rows[8][8] = 2;
  return rows;
};
const MAZE = { grid: grid(), start: { x: 0, y: 0 } };

const northWest = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 'move_north' : 'move_west'));
/** Each detector's script, one reply per turn, and the turn size that makes each reply one turn. */
const SCRIPTS: Record<'repeated_failed_move' | 'oscillation' | 'no_new_tiles', { turns: string[][]; perTurn: number }> =
  {
    // three identical moves into the wall east of the start
    repeated_failed_move: { turns: [['move_east', 'move_east', 'move_east', 'move_east']], perTurn: 4 },
    // down and up between (0,0) and (0,1)
    oscillation: {
      turns: [
        [
          'move_south',
          'move_north',
          'move_south',
          'move_north',
          'move_south',
          'move_north',
          'move_south',
          'move_north',
        ],
      ],
      perTurn: 8,
    },
    // bumping into the maze's edges, alternating, so no other detector trips first: nothing new for 20 actions
    no_new_tiles: {
      turns: [northWest(4), northWest(4), northWest(4), northWest(4), northWest(4), northWest(4)],
      perTurn: 4,
    },
  };

/** Where the detector must trip, from the agent monitor fed the same script directly (an independent replay). */
function expectedStep(detector: Detector, calls: string[]): number {
  const maze = buildMaze(Grid.fromRows(grid()), MAZE.start, 'test', null);
  const config = experimentConfigSchema.parse({});
  const state = initialState(maze, config);
  const monitor = new AgentMonitor(config.stuck_thresholds);
  for (const [i, name] of calls.entries()) {
    const r = executeCall(state, maze, config, { name, arguments: {} }, { callIndex: i, assistantText: null });
    const hit = monitor
      .observe(
        r,
        1,
        (below) => frontierSearch({ width: 9, height: 9, cells: state.known }, state.position, below)?.distance ?? null,
      )
      .signals.find((s) => s.detector === detector);
    if (hit) return hit.step;
  }
  throw new Error(`${detector} never trips on its script`);
}

const runScripted = (detector: keyof typeof SCRIPTS, policy: string) => {
  const { turns, perTurn } = SCRIPTS[detector];
  return runLocalExperiment(
    {
      agent: 'random',
      maze: MAZE,
      config: { stuck_policy: policy as 'halt', max_actions_per_turn: perTurn, max_turns: turns.length },
    },
    { db, agents: scriptedAgents(turns) },
  );
};

const signalsOf = async (id: string | null) =>
  (
    await db.pool.query(
      'SELECT turn_number, seq, step_number, detector, detail, policy FROM stuck_signals WHERE ' +
        'experiment_id = $1 ORDER BY turn_number, seq',
      [id],
    )
  ).rows;

describe.each(Object.keys(SCRIPTS) as Array<keyof typeof SCRIPTS>)('%s', (detector) => {
  const step = expectedStep(detector, SCRIPTS[detector].turns.flat());

  it('under halt: the run ends at once with status stuck and the detector named', async () => {
    const { experimentId, summary } = await runScripted(detector, 'halt');
    expect(summary).toMatchObject({ status: 'stuck', stop_reason: detector, actions: step });
    expect(summary!.failure_reason).toMatch(
      detector === 'repeated_failed_move' ? /move_east failed 3 times in a row at \(0,0\)/ : /\S/,
    );
    const signals = await signalsOf(experimentId);
    expect(signals[0]).toMatchObject({ detector, step_number: step, policy: 'halt' });
    expect(signals.filter((s) => s.step_number > step)).toEqual([]);
    // the rest of the reply is logged, not executed
    const t = await db.pool.query(
      'SELECT stop_reason, halted_by FROM turns WHERE experiment_id = $1 ORDER BY turn_number DESC LIMIT 1',
      [experimentId],
    );
    expect(t.rows[0]).toMatchObject({ stop_reason: 'stuck', halted_by: { detector, step } });
    const view = await db.pool.query(
      'SELECT signals, first_detector, first_signal_step, stuck_policy FROM experiment_stuck_signals ' +
        'WHERE experiment_id = $1',
      [experimentId],
    );
    expect(view.rows[0]).toMatchObject({ first_detector: detector, first_signal_step: step, stuck_policy: 'halt' });
  });

  it('under observe: the signal is recorded and the run goes on unchanged', async () => {
    const { experimentId, summary } = await runScripted(detector, 'observe');
    expect(summary).toMatchObject({
      status: 'timeout',
      stop_reason: 'max_turns',
      actions: SCRIPTS[detector].turns.flat().length,
    });
    const signals = await signalsOf(experimentId);
    expect(signals.find((s) => s.detector === detector)).toMatchObject({ step_number: step, policy: 'observe' });
  });

  it(
    'under advise: the next prompt sent to the simulated Ollama server carries the Agent State section ' +
      'with the advice',
    async () => {
      const { turns, perTurn } = SCRIPTS[detector];
      ollama.faults = turns.map((calls) => ({ kind: 'script', calls }));
      const { experimentId, summary } = await runLocalExperiment(
        {
          agent: 'ollama',
          model: 'qwen2.5:7b',
          maze: MAZE,
          config: {
            stuck_policy: 'advise',
            max_actions_per_turn: perTurn,
            max_turns: turns.length + 60,
            ollama: { host: ollamaUrl },
          },
        },
        { db, retryIntervals: { [STATES.InvokeOllamaAgent]: 0 } },
      );
      // the first message of each turn: turn k's is the k-th request with a single user message
      const firsts = ollama.requests
        .filter(
          (r) =>
            r.path === '/api/chat' && r.body.messages.filter((m: { role: string }) => m.role !== 'system').length === 1,
        )
        .map((r) => r.body.messages.at(-1).content as string);
      const tripTurn = Math.ceil(step / perTurn);
      const before = firsts.slice(0, tripTurn),
        after = firsts[tripTurn];
      for (const text of before) expect(text).not.toMatch(/Status: STUCK/);
      expect(before[0]).toMatch(/## Agent State\nPhase: exploring \(for 0 actions, 0 turns\)\nStatus: HEALTHY$/);
      expect(after).toMatch(/\n## Agent State\nPhase: stuck/);
      expect(after).toMatch(/Status: STUCK/);
      expect(after).toContain(`Detected (${detector}): `);
      expect(after).toContain(`Advice: ${ADVICE[detector]}`);
      expect(after).toMatch(/actions this turn\.\n\n## Agent State\n/); // at the end of the prompt, after the view
      // advice does not stop the run: the simulated model goes on and finds the goal
      expect(summary).toMatchObject({ status: 'completed' });
      expect((await signalsOf(experimentId)).find((s) => s.detector === detector)).toMatchObject({
        step_number: step,
        policy: 'advise',
      });
    },
  );
});

describe('a long productive run', () => {
  it.each([
    ['rooms_and_corridors', 1],
    ['perfect', 2],
  ])(
    'the frontier agent on a 101x101 %s maze under halt: up to 3,000 actions, no stuck signal',
    async (generator, seed) => {
      const { experimentId, summary } = await runLocalExperiment(
        {
          agent: 'frontier',
          maze: { generator, size: 101, seed },
          config: { stuck_policy: 'halt', max_moves: 3_000, success_rule: 'reached', max_actions_per_turn: 64 },
        },
        { db },
      );
      expect(summary!.status).not.toBe('stuck');
      expect(summary!.actions).toBeGreaterThan(1_000);
      expect(await signalsOf(experimentId)).toEqual([]);
    },
  );
});

describe('persistence', () => {
  it(
    'the agent state survives between turns in the database, not in process memory: a streak split ' +
      'across turns and processes is still caught',
    async () => {
      const first = new PgStore(db);
      const { experimentId } = await startExperiment(
        { agent: 'random', provider: 'baseline', maze: { kind: 'inline', ...MAZE }, config: { stuck_policy: 'halt' } },
        first,
      );
      const t1 = await runTurn(experimentId, 1, { store: first, agents: scriptedAgents([['move_east', 'move_east']]) });
      expect(t1).toMatchObject({ actionsExecuted: 2, halt: null });
      // a cold process: a new store with nothing cached reads the monitor's snapshot from the row
      const t2 = await runTurn(experimentId, 2, {
        store: new PgStore(db),
        agents: scriptedAgents([['move_east', 'move_south']]),
      });
      expect(t2).toMatchObject({
        actionsExecuted: 1,
        callsRefused: 1,
        stopReason: 'stuck',
        halt: { detector: 'repeated_failed_move', step: 3 },
      });
      // and a replay of that turn returns the same, from the database
      expect(await runTurn(experimentId, 2, { store: new PgStore(db), agents: scriptedAgents([]) })).toMatchObject({
        replayed: true,
        halt: { detector: 'repeated_failed_move', step: 3 },
        phase: 'stuck',
      });
    },
  );
});

describe('idle turns', () => {
  it('three turns in a row without a tool call halt the run under halt', async () => {
    const { experimentId, summary } = await runLocalExperiment(
      { agent: 'random', maze: MAZE, config: { stuck_policy: 'halt', max_turns: 10 } },
      { db, agents: scriptedAgents([]) },
    );
    expect(summary).toMatchObject({ status: 'stuck', stop_reason: 'idle_turns', turns: 3, actions: 0 });
    expect(await signalsOf(experimentId)).toMatchObject([{ detector: 'idle_turns', turn_number: 3, policy: 'halt' }]);
  });
});

describe('phase transitions', () => {
  it(
    'a full frontier run records every transition, in order, each starting where the last ended; the ' +
      'run finishes in finishing',
    async () => {
      const { experimentId, summary } = await runLocalExperiment(
        { agent: 'frontier', maze: { generator: 'rooms_and_corridors', size: 31, seed: 4 } },
        { db },
      );
      expect(summary!.status).toBe('completed');
      const { rows } = await db.pool.query(
        `SELECT turn_number, seq, step_number, from_phase, to_phase, cause, refused FROM agent_state_transitions
       WHERE experiment_id = $1 ORDER BY turn_number, seq`,
        [experimentId],
      );
      expect(rows.length).toBeGreaterThan(2);
      expect(rows[0].from_phase).toBe('exploring');
      rows.forEach((r, i) => {
        if (i > 0) {
          expect(r.from_phase).toBe(rows[i - 1].to_phase);
          expect(r.step_number).toBeGreaterThanOrEqual(rows[i - 1].step_number);
        }
        expect(r.refused).toBe(false);
      });
      expect(rows.at(-1)).toMatchObject({ to_phase: 'finishing', cause: 'goal found', step_number: summary!.actions });
      // the same history, recomputed from the action log by a fresh monitor
      const log = await db.pool.query(
        'SELECT turn_number, step_number, outcome, new_tiles_seen, goal_found, tool FROM actions WHERE ' +
          'experiment_id = $1 AND executed ORDER BY step_number',
        [experimentId],
      );
      const phases = rows.map((r) => r.to_phase);
      expect(new Set(phases)).toContain('backtracking');
      expect(log.rows.at(-1).goal_found).toBe(true);
      const timeline = await db.pool.query(
        'SELECT count(*)::int AS n FROM agent_phase_timeline WHERE experiment_id = $1',
        [experimentId],
      );
      expect(timeline.rows[0].n).toBe(rows.length);
      const state = await db.pool.query(
        'SELECT agent_state FROM turns WHERE experiment_id = $1 ORDER BY turn_number DESC LIMIT 1',
        [experimentId],
      );
      expect(state.rows[0].agent_state.phase).toBe('finishing');
    },
  );
});
