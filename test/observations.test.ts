// What the model is shown in each observation format (config.observation), on
// one fixed small maze: golden texts of the turn's observation and of a tool
// result after a move and after a move into a wall; the simulated model reads
// every format back to the true tiles; the setting is a config key like any
// other (validated, from Parameter Store, swept).
import { describe, expect, it } from 'vitest';
import { Grid } from '../core/maze/grid.ts';
import { buildMaze } from '../core/maze/maze.ts';
import { visibleCells } from '../core/maze/vision.ts';
import {
  experimentConfigSchema,
  OBSERVATION_FORMATS,
  type ObservationFormat,
} from '../core/config/experiment-config.ts';
import { executeCall, initialState, toSeen, visionOf } from '../core/engine/game.ts';
import type { Observation } from '../core/engine/agent.ts';
import {
  observationPicture,
  renderObservation,
  renderResult,
  resultPictures,
} from '../core/providers/llm/observations/index.ts';
import { withPicturesRead } from '../simulators/picture-reader.ts';
import { isGameStart, readObservation } from '../simulators/observation-reader.ts';
import { ParameterCache } from '../core/config/parameters.ts';
import { fileSource } from '../core/config/file-source.ts';
import { loadSweep, SweepDefinitionError } from '../core/sweeps/sweep-spec.ts';
import { parametersFile } from './support/parameters-file.ts';
import { buildProgram } from '../bin/cli/program.ts';
import { shownAt } from '../reports/observation-sample.ts';
import { generateMaze } from '../core/maze/generators/index.ts';
import { cellsSeeing } from '../core/maze/vision.ts';
import { createRng } from '../core/maze/rng.ts';
import { GOAL, WALL } from '../core/maze/grid.ts';
import { resolveConfig } from '../core/engine/experiment.ts';
import { showsWholeMaze } from '../core/config/prompt-combinations.ts';
import { InvalidInputError } from '../core/errors.ts';
import { requestFromOptions } from '../bin/cli/experiment-input.ts';
import type { ExperimentOptions } from '../bin/cli/options.ts';

//   x 0123456
// y 0 ...#...
//   1 .#.#.#.
//   2 .#S..#G     S: the agent at (2,2); the goal at (6,2) is hidden behind the wall at (5,2)
//   3 .###.#.
//   4 .......
const ROWS = [
  [0, 0, 0, 1, 0, 0, 0],
  [0, 1, 0, 1, 0, 1, 0],
  [0, 1, 0, 0, 0, 1, 2],
  [0, 1, 1, 1, 0, 1, 0],
  [0, 0, 0, 0, 0, 0, 0],
];

function game(input: Record<string, unknown> = {}) {
  const maze = buildMaze(Grid.fromRows(ROWS), { x: 2, y: 2 }, 'test', null);
  const config = experimentConfigSchema.parse({ max_moves: 100, ...input });
  const state = initialState(maze, config);
  const obs: Observation = {
    turnNumber: 1,
    position: { ...state.position },
    visible: toSeen(maze, visibleCells(maze.grid, state.position, visionOf(config))),
    known: { width: maze.width, height: maze.height, cells: state.known },
    grid: maze.grid,
    results: [],
    actionsTaken: 0,
    tilesSeen: state.tilesSeen,
    phase: 'exploring',
    actionsLeftInTurn: 8,
    config,
  };
  const call = (name: string, callIndex: number) =>
    executeCall(state, maze, config, { name, arguments: {} }, { callIndex, assistantText: null });
  const moved = call('move_east', 0);
  const blocked = call('move_south', 1);
  return { maze, obs, moved, blocked };
}

const GOLDEN: Record<ObservationFormat, { observation: string; moved: string; blocked: string }> = {
  rays: {
    observation: `Turn 1. Actions taken so far: 0 of 100.
You are at (2,2).
north: ..
south: #
east: ..#
west: #
You may take up to 8 actions this turn.`,
    moved: `ok: moved east to (3,2)
You are at (3,2).
north: #
south: #
east: .#
west: .#`,
    blocked: `failed: cannot move south: a wall
You are at (3,2).
north: #
south: #
east: .#
west: .#`,
  },
  local_grid: {
    observation: `Turn 1. Actions taken so far: 0 of 100.
You are at (2,2).
In sight around you, columns x=0..5 (west to east), rows y=0..4 (north to south):
??.???
??.???
?#@..#
??#???
??????
Legend: @ you, . open, # wall, G goal, ? out of sight.
You may take up to 8 actions this turn.`,
    moved: `ok: moved east to (3,2)
You are at (3,2).
In sight around you, columns x=0..6 (west to east), rows y=0..4 (north to south):
???????
???#???
?#.@.#?
???#???
???????`,
    blocked: `failed: cannot move south: a wall
You are at (3,2).
In sight around you, columns x=0..6 (west to east), rows y=0..4 (north to south):
???????
???#???
?#.@.#?
???#???
???????`,
  },
  full_map: {
    observation: `Turn 1. Actions taken so far: 0 of 100.
You are at (2,2).
The whole maze, columns x=0..6 (west to east), rows y=0..4 (north to south):
...#...
.#.#.#.
.#@..#G
.###.#.
.......
Legend: @ you, . open, # wall, G goal.
You may take up to 8 actions this turn.`,
    moved: `ok: moved east to (3,2)
You are at (3,2).`,
    blocked: `failed: cannot move south: a wall
You are at (3,2).`,
  },
  coordinates: {
    observation: `Turn 1. Actions taken so far: 0 of 100.
You are at (2,2).
Open moves: north to (2,1), east to (3,2).
Blocked: south (wall at (2,3)), west (wall at (1,2)).
Open cells in sight: (2,0) (2,1) (3,2) (4,2)
Walls in sight: (1,2) (5,2) (2,3)
Goal in sight: none
You may take up to 8 actions this turn.`,
    moved: `ok: moved east to (3,2)
You are at (3,2).
Open moves: east to (4,2), west to (2,2).
Blocked: north (wall at (3,1)), south (wall at (3,3)).
Open cells in sight: (2,2) (4,2)
Walls in sight: (3,1) (1,2) (5,2) (3,3)
Goal in sight: none`,
    blocked: `failed: cannot move south: a wall
You are at (3,2).
Open moves: east to (4,2), west to (2,2).
Blocked: north (wall at (3,1)), south (wall at (3,3)).
Open cells in sight: (2,2) (4,2)
Walls in sight: (3,1) (1,2) (5,2) (3,3)
Goal in sight: none`,
  },
  json: {
    observation:
      '{"turn":1,"actions":0,"max_moves":100,"actions_left_in_turn":8,"position":[2,2],' +
      '"view":{"north":"..","south":"#","east":"..#","west":"#"}}',
    moved:
      '{"ok":true,"result":"moved east to (3,2)","position":[3,2],' +
      '"view":{"north":"#","south":"#","east":".#","west":".#"}}',
    blocked:
      '{"ok":false,"result":"cannot move south: a wall","position":[3,2],' +
      '"view":{"north":"#","south":"#","east":".#","west":".#"}}',
  },
  image: {
    observation: `Turn 1. Actions taken so far: 0 of 100.
You are at (2,2).
The picture shows the tiles in sight around you: columns x=0..5 (west to east), rows y=0..4 (north to south).
In the picture each tile is a square, north at the top: black is a wall, white is open floor, green is the goal, \
gray is out of sight, and the red dot is you.
You may take up to 8 actions this turn.`,
    moved: `ok: moved east to (3,2)
You are at (3,2).
Your view from here is in a picture after these results.`,
    blocked: `failed: cannot move south: a wall
You are at (3,2).
Your view from here is in a picture after these results.`,
  },
  adjacency: {
    observation: `Turn 1. Actions taken so far: 0 of 100.
You are at (2,2).
Links between open tiles (x 0..6, y 0..4): (0,0) <--> (1,0) ; (0,0) <--> (0,1) ; (1,0) <--> (2,0) ; \
(2,0) <--> (2,1) ; (4,0) <--> (5,0) ; (4,0) <--> (4,1) ; (5,0) <--> (6,0) ; (6,0) <--> (6,1) ; (0,1) <--> (0,2) ; \
(2,1) <--> (2,2) ; (4,1) <--> (4,2) ; (6,1) <--> (6,2) ; (0,2) <--> (0,3) ; (2,2) <--> (3,2) ; (3,2) <--> (4,2) ; \
(4,2) <--> (4,3) ; (6,2) <--> (6,3) ; (0,3) <--> (0,4) ; (4,3) <--> (4,4) ; (6,3) <--> (6,4) ; (0,4) <--> (1,4) ; \
(1,4) <--> (2,4) ; (2,4) <--> (3,4) ; (3,4) <--> (4,4) ; (4,4) <--> (5,4) ; (5,4) <--> (6,4)
Open tiles in no link: none
Goal: (6,2)
You may take up to 8 actions this turn.`,
    moved: `ok: moved east to (3,2)
You are at (3,2).`,
    blocked: `failed: cannot move south: a wall
You are at (3,2).`,
  },
};

describe('each observation format on a fixed maze', () => {
  it.each(OBSERVATION_FORMATS)('%s: the observation, a move and a move into a wall', (format) => {
    const { obs, moved, blocked } = game();
    expect(renderObservation(format, obs, 100)).toBe(GOLDEN[format].observation);
    expect(renderResult(format, moved, obs)).toBe(GOLDEN[format].moved);
    expect(renderResult(format, blocked, obs)).toBe(GOLDEN[format].blocked);
  });

  it('rays, the default, is plain text: no machine line for simulators', () => {
    expect(experimentConfigSchema.parse({}).observation).toBe('rays');
    const { obs } = game();
    expect(renderObservation('rays', obs, 100)).not.toMatch(/STATE|\{/);
  });

  it.each(OBSERVATION_FORMATS)('%s: a recall lists its tiles and a found goal is said', (format) => {
    const { obs, maze } = game({ recall_interval: 0 });
    const state = initialState(maze, obs.config);
    const recall = executeCall(
      state,
      maze,
      obs.config,
      { name: 'recall_all', arguments: {} },
      {
        callIndex: 0,
        assistantText: null,
      },
    );
    const text = renderResult(format, { ...recall, goalFound: true }, obs);
    // the wall south of the start, as seen at the start; coordinates names no tile characters, only lists
    expect(text).toMatch(format === 'coordinates' ? /^Recalled walls: .*\(2,3\)/m : /2,3#/);
    expect(text).toMatch(format === 'json' ? /"goal_found":true/ : /^Goal found\.$/m);
  });

  it.each(OBSERVATION_FORMATS)('%s: the advise policy section comes last', (format) => {
    const { obs } = game({ stuck_policy: 'advise' });
    const advised: Observation = {
      ...obs,
      agentState: { phase: 'exploring', actionsInPhase: 0, turnsInPhase: 0, healthy: true, detected: [] },
    };
    expect(renderObservation(format, advised, 100)).toMatch(
      /\n\n## Agent State\nPhase: exploring \(for 0 actions, 0 turns\)\nStatus: HEALTHY$/,
    );
  });
});

describe('the simulated model reads every format', () => {
  it.each(OBSERVATION_FORMATS)('%s: back to the position and only true tiles, at least those in sight', (format) => {
    const { obs, moved } = game();
    const truth = (x: number, y: number) => ROWS[y][x];
    // the image format's tiles are in its pictures only: the model reads them with the text
    const seen = (text: string, pictures: Uint8Array[]) =>
      format === 'image' ? withPicturesRead(text, pictures) : text;
    const first = readObservation(seen(renderObservation(format, obs, 100), [observationPicture(obs).png]));
    expect(first.position).toEqual([2, 2]);
    for (const [x, y, t] of first.cells) expect([x, y, t]).toEqual([x, y, truth(x, y)]);
    const read = new Set(first.cells.map(([x, y]) => `${x},${y}`));
    for (const [x, y] of obs.visible) expect(read).toContain(`${x},${y}`);
    const shot = resultPictures([moved], obs);
    const after = readObservation(
      seen(
        [renderResult(format, moved, obs), ...shot.map((p) => p.caption)].join('\n'),
        shot.map((p) => p.image.png),
      ),
    );
    expect(after.position).toEqual([3, 2]);
    for (const [x, y, t] of after.cells) expect([x, y, t]).toEqual([x, y, truth(x, y)]);
    // a result answered as text ("move_east: <result>", calls parsed from text) reads the same
    expect(readObservation(`move_east: ${renderResult(format, moved, obs)}`).position).toEqual([3, 2]);
  });

  it.each(OBSERVATION_FORMATS)('%s: the first observation of a game is known as such, a later one is not', (format) => {
    const { obs } = game();
    expect(isGameStart(renderObservation(format, obs, 100))).toBe(true);
    expect(isGameStart(renderObservation(format, { ...obs, actionsTaken: 3 }, 100))).toBe(false);
    expect(isGameStart(renderObservation(format, { ...obs, turnNumber: 2 }, 100))).toBe(false);
  });
});

describe('config.observation', () => {
  it('is one of the formats; anything else is refused naming them', () => {
    for (const format of OBSERVATION_FORMATS)
      expect(experimentConfigSchema.parse({ observation: format, success_rule: 'reached' }).observation).toBe(format);
    const refused = experimentConfigSchema.safeParse({ observation: 'ascii' });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues[0]).toMatchObject({ path: ['observation'] });
    expect(refused.error!.issues[0].message).toMatch(/rays.*local_grid.*full_map.*coordinates.*json/);
  });

  it('is read from /ariadne/config/observation', async () => {
    const file = parametersFile(['/ariadne/config/observation: local_grid']);
    expect((await new ParameterCache(fileSource(file)).get()).config).toEqual({ observation: 'local_grid' });
  });

  it('is swept like any setting: one cell per format, each run configured with it', () => {
    // a model agent: a baseline is refused the image format (it sees no picture)
    const sweep = loadSweep(
      `sweep: formats
agents:
  - { agent: ollama, model: qwen2.5:7b }
mazes: { generators: [perfect], sizes: [11], seeds: [1] }
settings: { observation: [rays, local_grid, full_map, coordinates, json, image, adjacency] }
config: { success_rule: reached }
`,
      'test',
    );
    expect(sweep.cells.map((c) => c.config.observation)).toEqual([...OBSERVATION_FORMATS]);
    expect(() =>
      loadSweep(
        `sweep: formats
agents:
  - { agent: random }
mazes: { generators: [perfect], sizes: [11], seeds: [1] }
settings: { observation: [rays, ascii] }
`,
        'test',
      ),
    ).toThrow(SweepDefinitionError);
  });

  it('is given on the command line with --observation; anything else is refused naming the formats', async () => {
    const parsed = async (argv: string[]) => {
      const program = buildProgram().exitOverride();
      const run = program.commands.find((c) => c.name() === 'run')!;
      run.exitOverride().configureOutput({ writeErr: () => {} });
      run.action(() => {});
      await program.parseAsync(['run', ...argv], { from: 'user' });
      return requestFromOptions(run.opts<ExperimentOptions>()).config;
    };
    expect(await parsed(['--observation', 'full_map'])).toMatchObject({ observation: 'full_map' });
    expect(await parsed([])).not.toHaveProperty('observation'); // left to the parameters, then the default
    await expect(parsed(['--observation', 'ascii'])).rejects.toThrow(
      /--observation "ascii" is not one of: rays, local_grid, full_map, coordinates, json/,
    );
  });
});

describe('every cell in sight is shown (success under "seen" never comes from a cell the model was not shown)', () => {
  const read = (text: string) => new Map(readObservation(text).cells.map(([x, y, t]) => [`${x},${y}`, t]));
  const cases = OBSERVATION_FORMATS.flatMap((format) =>
    [false, true].map((seeThrough) => [format, seeThrough] as const),
  );

  it.each(cases)(
    '%s, see_through %s: on seeded mazes, at random cells and where the goal comes into sight',
    (f, st) => {
      let goalShown = 0;
      for (const [generator, seed] of [
        ['medium', 1],
        ['sparse', 2],
        ['rooms_and_corridors', 3],
        ['perfect', 4],
      ] as const) {
        const maze = generateMaze({ generator, width: 15, height: 15, seed });
        const config = resolveConfig({
          observation: f,
          see_through: st,
          vision_range: 3,
          success_rule: showsWholeMaze(f) ? 'reached' : 'seen',
          max_moves: 100,
        });
        const rng = createRng(seed);
        const open = Array.from(maze.grid.cells).flatMap((t, i) => (t === WALL ? [] : [i]));
        // cells from which the goal is in sight, not the goal itself: standing on it, a run has ended
        const goalAt = maze.goal.y * maze.width + maze.goal.x;
        const seeing = cellsSeeing(maze.grid, maze.goal, visionOf(config)).filter((i) => i !== goalAt);
        const sampled = Array.from({ length: 30 }, () => rng.pick(open)).filter((i) => i !== goalAt);
        const at = [...sampled, ...seeing].map((i) => ({
          x: i % maze.width,
          y: Math.floor(i / maze.width),
        }));
        for (const p of at) {
          const shown = shownAt(maze, config, p);
          // the image format's tiles are in its pictures, read with the text as a vision model would
          const first = read(withPicturesRead(shown.observationText, shown.pictures.observation));
          const result = read(withPicturesRead(shown.resultText, shown.pictures.result));
          // full_map, adjacency: a result gives the position only; the maze it goes with is the turn's observation
          const after = showsWholeMaze(f) ? new Map([...first, ...result]) : result;
          for (const [cells, position, reading] of [
            [shown.observation.visible, p, first],
            [shown.result.vision, shown.result.to, after],
          ] as const)
            for (const [x, y, t] of cells) {
              if (x === position.x && y === position.y) continue; // the agent's own cell: its position
              expect([x, y, reading.get(`${x},${y}`)]).toEqual([x, y, t]);
              if (t === GOAL) goalShown++;
            }
          // the rule the engine applies: whenever it counts the goal found, the text showed the goal
          // (a move onto the goal stands on it: it was in sight, and shown, in the turn's observation)
          if (shown.result.goalFound && config.success_rule === 'seen')
            expect([first, after].map((r) => r.get(`${maze.goal.x},${maze.goal.y}`))).toContain(GOAL);
        }
      }
      expect(goalShown).toBeGreaterThan(0); // the goal case was exercised, not only empty corridors
    },
  );

  it('rays and json under see_through: the off-axis cells by coordinates, on the fixed maze', () => {
    const { obs, moved } = game({ see_through: true, vision_range: 1 });
    expect(renderObservation('rays', obs, 100)).toContain(
      'west: #\nAlso in sight: open none; walls (1,1) (3,1) (1,3) (3,3); goal none.\n',
    );
    expect(JSON.parse(renderResult('json', moved, obs))).toMatchObject({
      view: { north: '#', south: '#', east: '.', west: '.' },
      also_in_sight: {
        open: [
          [2, 1],
          [4, 1],
          [4, 3],
        ],
        walls: [[2, 3]],
        goal: [],
      },
    });
    // under walls-block vision nothing lies off the rays: the default texts are unchanged (golden above)
    expect(renderObservation('rays', game().obs, 100)).not.toContain('Also in sight');
  });

  it('local_grid under see_through has no "?" and its legend does not name it', () => {
    const { obs } = game({ see_through: true });
    const text = renderObservation('local_grid', obs, 100);
    expect(text).not.toContain('?');
    expect(text).toMatch(/^Legend: @ you, \. open, # wall, G goal\.$/m);
  });
});

describe('settings that measure nothing are refused', () => {
  const refusal = (input: Record<string, unknown>) => {
    try {
      resolveConfig(input);
    } catch (e) {
      return e as InvalidInputError;
    }
    throw new Error(`${JSON.stringify(input)} was accepted`);
  };

  it('full_map with success_rule "seen": the goal is on the map from the first turn', () => {
    const e = refusal({ observation: 'full_map' });
    expect(e).toBeInstanceOf(InvalidInputError);
    expect([e.field, e.value]).toEqual(['config.observation', 'full_map']);
    expect(e.message).toMatch(/"full_map" with success_rule "seen" measures nothing/);
    expect(e.message).toMatch(/use success_rule "reached"/);
    expect(resolveConfig({ observation: 'full_map', success_rule: 'reached' }).observation).toBe('full_map');
  });

  it('recall_all under full_map: off when left out, refused when asked for; on elsewhere by default', () => {
    expect(resolveConfig({ observation: 'full_map', success_rule: 'reached' }).recall_tool).toBe(false);
    expect(resolveConfig({ observation: 'local_grid' }).recall_tool).toBe(true);
    expect(resolveConfig({ observation: 'rays', recall_tool: false }).recall_tool).toBe(false);
    const e = refusal({ observation: 'full_map', success_rule: 'reached', recall_tool: true });
    expect([e.field, e.value]).toEqual(['config.recall_tool', true]);
    expect(e.message).toMatch(/with observation "full_map" offers a tool that measures nothing.*set it false/);
  });

  it('a sweep refuses such a cell at validation, where the setting is varied', () => {
    const load = (extra: string) => () =>
      loadSweep(
        `sweep: formats
agents:
  - { agent: frontier }
mazes: { generators: [perfect], sizes: [11], seeds: [1] }
settings: { observation: [rays, full_map] }
${extra}
`,
        'test',
      );
    expect(load('')).toThrow(SweepDefinitionError);
    expect(load('')).toThrow(/settings\.observation.*"full_map" with success_rule "seen" measures nothing/);
    expect(load('config: { success_rule: reached }')().cells).toHaveLength(2);
  });
});
