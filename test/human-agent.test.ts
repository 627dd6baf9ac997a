// The human agent (core/providers/human-agent.ts) through the local state machine with a scripted person: in every
// observation format the person is shown what a model would be sent in the same state, checked against the engine
// and the renderers themselves (system prompt, observations, tool results, pictures, carried memory); bad input goes
// as for a model (each takes a step); giving up ends the run not solved; a turn's deadline ends a turn with what it
// did, or an idle one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OBSERVATION_FORMATS, type ObservationFormat } from '../core/config/experiment-config.ts';
import { showsWholeMaze } from '../core/config/prompt-combinations.ts';
import { resolveConfig, startExperiment, systemPrompt } from '../core/engine/experiment.ts';
import { executeCall, initialState, type ActionResult } from '../core/engine/game.ts';
import { observationAt } from '../core/engine/observation.ts';
import { runTurn } from '../core/engine/turn.ts';
import { TurnDeadline } from '../core/engine/turn-deadline.ts';
import { generateMaze } from '../core/maze/generators/index.ts';
import { agents } from '../core/providers/agents.ts';
import { parseCommand, withHumanSeat, type HumanSeat } from '../core/providers/human-agent.ts';
import { describeHistory, historyEntries } from '../core/providers/llm/memory.ts';
import {
  observationPicture,
  renderObservation,
  renderResult,
  resultPictures,
} from '../core/providers/llm/observations/index.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { playLocally, playRequest } from '../state-machine/local-play.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { pathToGoal, scriptedSeat } from './support/human-seat.ts';

const MAZE = { generator: 'medium', size: 9, seed: 2 };
const maze = generateMaze({ generator: MAZE.generator, width: MAZE.size, height: MAZE.size, seed: MAZE.seed });
/** A move into the wall north of the start, a command that is no tool, then the shortest path to the goal. */
const COMMANDS = ['n', 'foo', ...pathToGoal(maze)];

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db?.drop();
});

/** The run's actions as the database keeps them, in step order. */
async function actionsOf(id: string) {
  const { rows } = await db.pool.query<{ step: number; tool: string; outcome: string; turn: number }>(
    `SELECT step_number AS step, tool, outcome, turn_number AS turn FROM actions
     WHERE experiment_id = $1 AND executed ORDER BY step_number`,
    [id],
  );
  return rows;
}

async function experimentRow(id: string) {
  const { rows } = await db.pool.query(
    `SELECT agent, provider, model, player, status, goal_found, stop_reason, prompt_text, actions_taken
     FROM experiments WHERE id = $1`,
    [id],
  );
  return rows[0];
}

/**
 * Plays COMMANDS in the engine's own pure functions, as the turn engine runs them, and checks each prompt the person
 * was shown against what a model would be sent at that point: the renderers' output for the same state.
 */
function expectShownAsAModel(
  prompts: ReturnType<typeof scriptedSeat>['prompts'],
  config: ReturnType<typeof resolveConfig>,
  format: ObservationFormat,
): ActionResult[] {
  const state = initialState(maze, config);
  const all: ActionResult[] = [];
  let turn = 1;
  let inTurn = 0;
  let k = 0;
  expect(prompts[0].system).toBe(systemPrompt(maze, config));
  for (const line of COMMANDS) {
    if (state.goalFound) break;
    const p = prompts[k++];
    const at = (results: ActionResult[]) =>
      observationAt(maze, config, state, {
        turnNumber: turn,
        results,
        phase: 'exploring',
        actionsLeftInTurn: config.max_actions_per_turn - inTurn,
      });
    expect(p.turn).toBe(turn);
    if (inTurn === 0) {
      // a turn opens with its observation, after the history a memory mode carries; a conversation carries the
      // results of the last turn's last move, which closed its exchange
      expect(p.turnStart).toBe(true);
      const obs = at([]);
      const history =
        config.memory === 'history' ? describeHistory(historyEntries(all).slice(-config.memory_history_actions)) : '';
      const last = all.at(-1);
      const closing =
        config.memory === 'conversation' && last
          ? [
              {
                role: 'tool',
                results: [
                  {
                    id: expect.any(String),
                    name: last.tool,
                    content: renderResult(format, last, obs),
                    ok: last.success,
                  },
                ],
              },
            ]
          : [];
      expect(p.messages).toEqual([
        ...closing,
        {
          role: 'user',
          text: [history, renderObservation(format, obs, config.max_moves)].filter(Boolean).join('\n\n'),
          ...(format === 'image' ? { images: [observationPicture(obs)] } : {}),
        },
      ]);
    } else {
      // then each move's result, as the tool result a model gets (and, for pictures, the picture after it)
      const last = all.at(-1)!;
      const obs = at([last]);
      expect(p.turnStart).toBe(false);
      expect(p.messages[0]).toEqual({
        role: 'tool',
        results: [
          { id: expect.any(String), name: last.tool, content: renderResult(format, last, obs), ok: last.success },
        ],
      });
      const pictures = format === 'image' ? resultPictures([last], obs) : [];
      expect(p.messages.slice(1)).toEqual(pictures.map((q) => ({ role: 'user', text: q.caption, images: [q.image] })));
    }
    const command = parseCommand(line);
    if (command.kind !== 'call') throw new Error(`not a call: ${line}`);
    all.push(executeCall(state, maze, config, command.call, { callIndex: inTurn, assistantText: null }));
    if (++inTurn === config.max_actions_per_turn) {
      turn++;
      inTurn = 0;
    }
  }
  expect(state.goalFound).toBe(true);
  expect(k).toBe(prompts.length);
  return all;
}

describe('what a person is shown', () => {
  const cases: Array<{ format: ObservationFormat; memory?: 'history' | 'conversation' }> = [
    ...OBSERVATION_FORMATS.map((format) => ({ format })),
    { format: 'local_grid', memory: 'history' },
    { format: 'rays', memory: 'conversation' },
  ];
  for (const { format, memory } of cases)
    it(`is what a model is sent, in ${format}${memory ? ` with memory ${memory}` : ''}; moves as run`, async () => {
      const seat = scriptedSeat(COMMANDS, 'ada');
      const request = playRequest({
        maze: MAZE,
        player: 'ada',
        config: {
          observation: format,
          max_actions_per_turn: 3,
          ...(memory ? { memory } : {}),
          // full_map and adjacency show the whole maze: only the goal reached ends it
          ...(showsWholeMaze(format) ? { success_rule: 'reached' } : {}),
        },
        experimentId: `shown-${format}${memory ? `-${memory}` : ''}`,
      });
      const { summary } = await playLocally(request, seat, { db });
      const config = resolveConfig(request.config);
      const played = expectShownAsAModel(seat.prompts, config, format);
      expect(summary).toMatchObject({ agent: 'human', player: 'ada', status: 'completed', goal_found: true });
      const row = await experimentRow(request.experimentId!);
      expect(row).toMatchObject({ agent: 'human', provider: 'human', model: null, player: 'ada' });
      // the system prompt a model would have: stored with the run, as a model run's is
      expect(row.prompt_text).toBe(systemPrompt(maze, config));
      const logged = await actionsOf(request.experimentId!);
      expect(logged.map((a) => [a.tool, a.outcome])).toEqual(played.map((a) => [a.tool, a.outcome]));
      expect(logged.length).toBe(row.actions_taken);
    });
});

describe('bad input, as for a model', () => {
  it('a move into a wall fails and an unknown command is an unknown tool: each takes a step', async () => {
    const seat = scriptedSeat(['n', 'foo', 'quit'], 'ada');
    const request = playRequest({ maze: MAZE, player: 'ada', experimentId: 'bad-input' });
    await playLocally(request, seat, { db });
    expect((await actionsOf('bad-input')).map((a) => [a.step, a.tool, a.outcome])).toEqual([
      [1, 'move_north', 'blocked_by_wall'],
      [2, 'foo', 'unknown_tool'],
    ]);
    // the person read what a model reads after each
    const [, afterWall, afterUnknown] = seat.prompts;
    expect(afterWall.messages[0]).toMatchObject({ role: 'tool', results: [{ name: 'move_north', ok: false }] });
    expect(JSON.stringify(afterWall.messages[0])).toContain('cannot move north: a wall');
    expect(JSON.stringify(afterUnknown.messages[0])).toContain('unknown tool \\"foo\\"');
  });

  it('quit gives up: the run ends timeout (gave_up), not solved, with the moves made', async () => {
    const seat = scriptedSeat(['s', 'e', 'quit'], 'bo');
    const request = playRequest({ maze: MAZE, player: 'bo', experimentId: 'gave-up' });
    const { summary } = await playLocally(request, seat, { db });
    expect(summary).toMatchObject({ status: 'timeout', stop_reason: 'gave_up', goal_found: false, actions: 2 });
    expect(await experimentRow('gave-up')).toMatchObject({ player: 'bo', status: 'timeout', stop_reason: 'gave_up' });
  });

  it("refuses a bad player id, a suite maze out of range and a change of a suite's fixed setting", () => {
    expect(() => playRequest({ maze: MAZE, player: 'not ok!' })).toThrow(/player/);
    expect(() => playRequest({ maze: { suite: 'ariadne-mazes/v1', index: 500 }, player: 'ada' })).toThrow(
      /has 120 mazes: a maze index is 0 to 119/,
    );
    expect(() =>
      playRequest({ maze: { suite: 'ariadne-mazes/v1', index: 0 }, player: 'ada', config: { vision_range: 5 } }),
    ).toThrow(/suite ariadne-mazes\/v1 fixes vision_range 3/);
  });
});

describe('where a person cannot play', () => {
  it('in Lambda (a deployed stack), agent human is refused before a write, naming where to play', async () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'ariadne-start-experiment';
    try {
      const before = Number((await db.pool.query('SELECT count(*) AS n FROM experiments')).rows[0].n);
      const request = playRequest({ maze: MAZE, player: 'ada', experimentId: 'in-lambda' });
      await expect(playLocally(request, scriptedSeat([]), { db })).rejects.toThrow(
        /agent "human" is a person at the keyboard, and a deployed stack has none: play on your machine/,
      );
      expect(Number((await db.pool.query('SELECT count(*) AS n FROM experiments')).rows[0].n)).toBe(before);
    } finally {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    }
  });
});

describe("a turn's deadline", () => {
  /** A seat that answers `moves` then waits for good: the turn's deadline has to end the wait. */
  const waitingSeat = (moves: string[]): HumanSeat => {
    const left = [...moves];
    return {
      player: 'cy',
      playedIn: 'terminal',
      next(_prompt, signal) {
        const line = left.shift();
        if (line !== undefined)
          return Promise.resolve({ call: (parseCommand(line) as unknown as { call: never }).call });
        return new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('the turn ended', { cause: signal.reason }))),
        );
      },
    };
  };

  async function started(id: string) {
    const store = new PgStore(db);
    await startExperiment(
      {
        experimentId: id,
        agent: 'human',
        provider: 'human',
        player: 'cy',
        maze: { kind: 'generated', spec: { generator: 'medium', width: 9, height: 9, seed: 2 } },
        config: {},
      },
      store,
    );
    return store;
  }

  it('ends a turn with the moves made when the person does not move again in time', async () => {
    const store = await started('deadline-after-moves');
    const agentsHere = withHumanSeat(waitingSeat(['s', 'e']), agents);
    const turn = await runTurn('deadline-after-moves', 1, {
      store,
      agents: agentsHere,
      deadline: TurnDeadline.after(300),
    });
    expect(turn).toMatchObject({ stopReason: 'deadline', actionsExecuted: 2 });
  });

  it('ends an idle turn (no move at all) empty, committed, and the next turn asks again', async () => {
    const store = await started('deadline-idle');
    const idle = await runTurn('deadline-idle', 1, {
      store,
      agents: withHumanSeat(waitingSeat([]), agents),
      deadline: TurnDeadline.after(200),
    });
    expect(idle).toMatchObject({ stopReason: 'empty_reply', actionsExecuted: 0 });
    const next = await runTurn('deadline-idle', 2, {
      store,
      agents: withHumanSeat(waitingSeat(['s']), agents),
      deadline: TurnDeadline.after(300),
    });
    expect(next).toMatchObject({ stopReason: 'deadline', actionsExecuted: 1 });
  });

  it('is refused to a model agent: a human run needs a seat', async () => {
    const store = await started('no-seat');
    await expect(runTurn('no-seat', 1, { store, agents })).rejects.toThrow(/agent "human" is a person/);
  });
});
