// `ariadne play` as a person at a terminal plays it, with the moves piped in as typed commands: the game prints what a
// model would be sent (checked against the engine's own renderers, not a copy of their text), runs through the same
// local state machine as `ariadne run`, records the run as agent human with its player and every move, and ends with
// the usual summary. Bad input goes as for a model; quit gives up; input that ends, or Ctrl-C, stops the run as `run`
// stops (kept, interrupted, resumed by `play --resume`); the image format is refused with where to play it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig, systemPrompt } from '../core/engine/experiment.ts';
import { executeCall, initialState } from '../core/engine/game.ts';
import { observationAt } from '../core/engine/observation.ts';
import { generateMaze } from '../core/maze/generators/index.ts';
import { findSuite } from '../core/maze/suites.ts';
import { renderObservation, renderResult } from '../core/providers/llm/observations/index.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { ariadneProcess, cli, outputOf } from './support/cli.ts';
import { pathToGoal } from './support/human-seat.ts';
import { tempDir } from './support/temp-dir.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const { ariadne, expectInputError } = cli(() => db);
/** Hints as an installed `ariadne` prints them (tests run under `npm test`, which sets npm's variables). */
const INSTALLED = { npm_lifecycle_event: '', npm_package_name: '' };
const env = () => ({ DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema, ...INSTALLED });

const MAZE_ARGS = ['--maze', 'medium', '--size', '9', '--seed', '2'];
const maze = generateMaze({ generator: 'medium', width: 9, height: 9, seed: 2 });
const PATH = pathToGoal(maze);
/** A maze of the suite ariadne-mazes/v1, by its index. */
const suiteMaze = (index: number) => {
  const m = findSuite('ariadne-mazes/v1').suite.mazes[index];
  return generateMaze({ generator: m.generator, width: m.size, height: m.size, seed: m.seed });
};

/** `ariadne play` with `lines` piped to its stdin (stdin then ends). */
function play(args: string[], lines: string[]) {
  const child = ariadneProcess(['play', ...args], env());
  child.stdin.end(lines.map((l) => `${l}\n`).join(''));
  return outputOf(child);
}

async function actionsOf(id: string) {
  const { rows } = await db.pool.query<{ tool: string; outcome: string; reasoning: string | null }>(
    `SELECT tool, outcome, reasoning FROM actions WHERE experiment_id = $1 AND executed ORDER BY step_number`,
    [id],
  );
  return rows;
}

async function experimentRow(id: string) {
  const { rows } = await db.pool.query(
    `SELECT agent, provider, player, status, goal_found, stop_reason, actions_taken, interrupted_reason
     FROM experiments WHERE id = $1`,
    [id],
  );
  return rows[0];
}

describe('ariadne play, moves piped in', () => {
  it('plays to the goal: shown what a model is sent, recorded as agent human with its player and moves', async () => {
    const lines = ['n', 'foo', 'help', `${PATH[0]} the way on`, ...PATH.slice(1)];
    const r = await play([...MAZE_ARGS, '--player', 'ada', '--experiment-id', 'piped-goal'], lines);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const config = resolveConfig({});
    // the system prompt, the first observation and the result of the move into the wall, as the renderers make them
    expect(r.stdout).toContain(
      `--- system prompt (a model is sent it with every call) ---\n${systemPrompt(maze, config)}\n`,
    );
    const state = initialState(maze, config);
    const first = (left: number) =>
      observationAt(maze, config, state, { turnNumber: 1, results: [], phase: 'exploring', actionsLeftInTurn: left });
    expect(r.stdout).toContain(`--- turn 1: 8 actions ---\n${renderObservation('rays', first(8), config.max_moves)}\n`);
    const wall = executeCall(
      state,
      maze,
      config,
      { name: 'move_north', arguments: {} },
      { callIndex: 0, assistantText: null },
    );
    expect(r.stdout).toContain(
      `> move_north\n--- tool result: move_north ---\n${renderResult('rays', wall, first(7))}\n`,
    );
    const unknown = executeCall(
      state,
      maze,
      config,
      { name: 'foo', arguments: {} },
      { callIndex: 1, assistantText: null },
    );
    expect(r.stdout).toContain(`> foo\n--- tool result: foo ---\n${renderResult('rays', unknown, first(6))}\n`);
    // help is no move; a move's reason is kept as its reasoning
    expect(r.stdout).toMatch(/help shows this/);
    expect(r.stdout).toContain(
      `> move_${{ n: 'north', s: 'south', e: 'east', w: 'west' }[PATH[0]]} (reasoning: the way on)`,
    );
    // the summary
    expect(r.stdout).toMatch(/status\s+completed \(goal_found\)/);
    expect(r.stdout).toMatch(/agent\s+human \(a person: player ada\)/);

    const row = await experimentRow('piped-goal');
    expect(row).toMatchObject({
      agent: 'human',
      provider: 'human',
      player: 'ada',
      status: 'completed',
      goal_found: true,
    });
    const logged = await actionsOf('piped-goal');
    expect(logged.length).toBe(row.actions_taken);
    const tools = lines
      .filter((l) => l !== 'help')
      .map((l) => l.split(' ')[0])
      .map((w) => ({ n: 'move_north', s: 'move_south', e: 'move_east', w: 'move_west' })[w] ?? w);
    // the game ended as soon as the goal was in sight: the moves made are the first of those piped
    expect(logged.map((a) => a.tool)).toEqual(tools.slice(0, logged.length));
    expect(logged.slice(0, 3)).toEqual([
      { tool: 'move_north', outcome: 'blocked_by_wall', reasoning: null },
      { tool: 'foo', outcome: 'unknown_tool', reasoning: null },
      { tool: tools[2], outcome: 'moved', reasoning: 'the way on' },
    ]);

    // list and summary show the player
    const listed = await ariadne(['list', '--agent', 'ada']);
    expect(listed.stdout).toMatch(/piped-goal\s+\|\s+human ada/);
    const summary = await ariadne(['summary', 'piped-goal', '--json']);
    expect(JSON.parse(summary.stdout)).toMatchObject({ agent: 'human', player: 'ada', goal_found: true });
    // nothing plays a person's game again in the person's place
    const rerun = await ariadne(['rerun', 'piped-goal']);
    expect(rerun.code).toBe(2);
    expect(rerun.stderr).toMatch(/a person's game \(agent human\): nothing can play it again/);
  });

  it('quit gives up: the run ends not solved (gave_up); --json prints the summary alone on stdout', async () => {
    const r = await play([...MAZE_ARGS, '--player', 'bo', '--experiment-id', 'piped-quit', '--json'], ['s', 'quit']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      experiment_id: 'piped-quit',
      agent: 'human',
      player: 'bo',
      status: 'timeout',
      stop_reason: 'gave_up',
      goal_found: false,
      actions: 1,
    });
    // the game went to stderr
    expect(r.stderr).toContain('> quit (the player gave up)');
  });

  it('input that ends mid-game stops it as Ctrl-C does (kept, interrupted); play --resume finishes it', async () => {
    const cut = await play([...MAZE_ARGS, '--player', 'cy', '--experiment-id', 'piped-cut'], PATH.slice(0, 2));
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(
      /piped-cut interrupted after turn 1 of 5000, its log kept; resume with: ariadne play --resume piped-cut/,
    );
    expect(await experimentRow('piped-cut')).toMatchObject({
      status: 'running',
      actions_taken: 2,
      interrupted_reason: 'the input ended (no more moves) to ariadne play',
    });
    // `ariadne resume` has no person to ask
    const refused = await ariadne(['resume', 'piped-cut'], INSTALLED);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/a person's game \(agent human\): resume it with ariadne play --resume piped-cut/);
    const other = await play(['--resume', 'piped-cut', '--player', 'dee'], PATH.slice(2));
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/experiment piped-cut is cy's game: a game keeps its player/);
    const resumed = await play(['--resume', 'piped-cut'], PATH.slice(2));
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/resuming cy's game piped-cut at turn 2/);
    expect(await experimentRow('piped-cut')).toMatchObject({ status: 'completed', goal_found: true, player: 'cy' });
    expect((await actionsOf('piped-cut')).map((a) => a.outcome).every((o) => o === 'moved')).toBe(true);
  });

  it('Ctrl-C lets the turn in flight commit and keeps the run, interrupted, with how to resume it', async () => {
    const child = ariadneProcess(['play', ...MAZE_ARGS, '--player', 'ed', '--experiment-id', 'ctrl-c'], env());
    const ended = outputOf(child);
    let stdout = '';
    const moved = new Promise<void>((resolve) =>
      child.stdout.on('data', (d) => {
        stdout += d;
        if (stdout.includes(`--- tool result: `)) resolve();
      }),
    );
    child.stdin.write(`${PATH[0]}\n`); // stdin stays open: the game waits for the next move
    await moved;
    child.kill('SIGINT');
    const r = await ended;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/Ctrl-C: stopping after the turn in flight/);
    expect(r.stderr).toMatch(
      /experiment ctrl-c interrupted after turn 1 of 5000, its log kept; resume with: ariadne play --resume ctrl-c/,
    );
    expect(await experimentRow('ctrl-c')).toMatchObject({
      status: 'running',
      actions_taken: 1,
      interrupted_reason: 'Ctrl-C (SIGINT) to ariadne play',
    });
  });

  it("plays a suite's maze under its config; suite show --humans has its human reference", async () => {
    const first = suiteMaze(0);
    const solved = await play(
      ['--suite', 'ariadne-mazes/v1', '--maze-index', '0', '--player', 'ada'],
      pathToGoal(first),
    );
    expect(solved.code).toBe(0);
    expect(solved.stdout).toMatch(/^ada plays ariadne-mazes\/v1 maze 0: perfect 11x11 seed 1 /);
    const quit = await play(['--suite', 'ariadne-mazes/v1', '--maze-index', '0', '--player', 'bo'], ['quit']);
    expect(quit.code).toBe(0);
    const again = await play(['--suite', 'ariadne-mazes/v1', '--maze-index', '0', '--player', 'bo'], pathToGoal(first));
    expect(again.stdout).toMatch(/suite maze\s+ariadne-mazes\/v1 maze 0/);
    const { rows } = await db.pool.query(
      `SELECT player, suite, suite_maze, config ->> 'max_moves' AS max_moves FROM experiments
       WHERE suite IS NOT NULL ORDER BY started_at`,
    );
    expect(rows).toEqual(
      ['ada', 'bo', 'bo'].map((player) => ({ player, suite: 'ariadne-mazes/v1', suite_maze: 0, max_moves: '1000' })),
    );
    const shown = await ariadne(['suite', 'show', 'ariadne-mazes/v1', '--humans', '--json']);
    expect(shown.code).toBe(0);
    const { database_human_reference: h } = JSON.parse(shown.stdout);
    // bo's second game on the maze is practice: left out
    expect(h.left_out).toEqual({ replayed: 1, not_by_the_rules: 0, not_the_suites_maze: 0 });
    const overall = (player: string | null) =>
      h.rows.find((r: { player: string | null; generator: string }) => r.player === player && r.generator === 'all');
    // two players on one maze are one cluster: no interval over a single maze, not Wilson's over two games
    expect(overall(null)).toMatchObject({
      observation: 'rays',
      n: 2,
      successes: 1,
      success_rate: 0.5,
      mazes: 1,
      interval: 'maze',
      low95: null,
      high95: null,
    });
    expect(overall('ada')).toMatchObject({ n: 1, successes: 1, interval: 'wilson', low95: 0.206549, high95: 1 });
    expect(overall('bo')).toMatchObject({ n: 1, successes: 0, mean_efficiency: null, interval: 'wilson' });
    const table = await ariadne(['suite', 'show', 'ariadne-mazes/v1', '--humans', '--wide']);
    expect(table.stdout).toMatch(/reference scores: each baseline once on every maze/);
    expect(table.stdout).toMatch(/human reference \(agent human's games on ariadne-mazes\/v1 in this database/);
    expect(table.stdout).toMatch(/all players\s+\|\s+rays\s+\|\s+all\s+\|\s+all\s+\|\s+2\s/);

    // shipped: written into a copy of the suite file, which then shows it without the database
    const copy = join(tempDir('play-suite'), 'ariadne-mazes-v1.json');
    const recorded = await ariadne(['suite', 'record-humans', 'ariadne-mazes/v1', '--file', copy, '--json']);
    expect(recorded.code).toBe(0);
    const file = JSON.parse(readFileSync(copy, 'utf8'));
    expect(file.human_reference.rows).toEqual(h.rows);
    expect(file.human_reference.left_out).toEqual(h.left_out);
    expect(file.mazes).toEqual(findSuite('ariadne-mazes/v1').suite.mazes);
    const fromFile = await ariadne(['suite', 'show', copy, '--wide']);
    expect(fromFile.stdout).toMatch(/human reference \(shipped with the suite: recorded \d{4}-\d\d-\d\d by ariadne/);
    expect(fromFile.stdout).toMatch(/ada\s+\|\s+rays\s+\|\s+all\s+\|\s+all\s+\|\s+1\s/);
    const csv = await ariadne(['suite', 'show', copy, '--format', 'csv']);
    expect(csv.stdout.split('\n')[0]).toMatch(/^reference,agent,player,observation,generator,size,mazes,n,/);
    expect(csv.stdout).toMatch(/\nshipped,human,ada,rays,all,all,1,1,1,1,0.206549,1,wilson,/);
  });

  it('refuses the image format (a terminal cannot show its picture), saying where to play it', async () => {
    await expectInputError(
      ['play', ...MAZE_ARGS, '--player', 'ada', '--observation', 'image'],
      new RegExp(
        'observation "image" shows a model a picture .* a terminal cannot show: play it on the play page of .*' +
          'view --play, or choose a text format with --observation \\(rays, local_grid, full_map, coordinates, json',
        's',
      ),
    );
    await expectInputError(['play', ...MAZE_ARGS, '--player', 'not ok'], /--player "not ok": a player id/);
    await expectInputError(
      ['play', '--suite', 'ariadne-mazes/v1', '--player', 'ada'],
      /needs --maze-index <n>, 0 to 119/,
    );
    await expectInputError(
      ['play', '--suite', 'ariadne-mazes/v1', '--maze-index', '0', '--size', '11', '--player', 'ada'],
      /--suite ariadne-mazes\/v1 gives the maze/,
    );
  });
});
