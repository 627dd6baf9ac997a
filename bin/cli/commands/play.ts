// ariadne play: a person plays one maze as agent `human` (the human baseline, core/providers/human-agent.ts), through
// the same local state machine and turn engine as `ariadne run`, shown exactly what a model is shown in the run's
// observation format, and recorded with a player id beside the baselines' and models' runs.
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { Option, type Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import {
  mergeConfig,
  OBSERVATION_FORMATS,
  type ExperimentConfigInput,
} from '../../../core/config/experiment-config.ts';
import { FLAGGED_SETTINGS, providerOf } from '../../../core/config/settings-table.ts';
import { PROMPTS } from '../../../core/config/prompts.ts';
import { generateMaze } from '../../../core/maze/generators/index.ts';
import { findSuite } from '../../../core/maze/suites.ts';
import type { Maze } from '../../../core/maze/maze.ts';
import { HUMAN_AGENT, PLAYER_HELP, PLAYER_PATTERN } from '../../../core/providers/human.ts';
import { COMMANDS_HELP } from '../../../core/providers/human-agent.ts';
import { settingReaches } from '../../../reports/setting-reach.ts';
import { summaryOf } from '../../../results/summary-row.ts';
import { experimentState } from '../../../results/run-state.ts';
import { resumeInput } from '../../../state-machine/local-experiment.ts';
import type { StartExecutionInput } from '../../../core/machine/contracts.ts';
import { experimentDefinition } from '../../../state-machine/definition.ts';
import { playConfig, playLocally, playRequest, type PlayMaze } from '../../../state-machine/local-play.ts';
import { withCliDatabase } from '../database.ts';
import type { Database } from '../../../core/store/database.ts';
import { EXIT } from '../exit-codes.ts';
import { mazeFromOptions } from '../experiment-input.ts';
import { withExample } from '../help.ts';
import { commandPrefix } from '../invocation.ts';
import { localParameters } from '../local-parameters.ts';
import {
  addMazeOptions,
  addPlaySettingOptions,
  collectRepeated,
  givenOptions,
  intOption,
  jsonOption,
  optionKey,
  type MazeOptions,
} from '../options.ts';
import { openRunLog } from '../run-log.ts';
import { setAt, settingsFromSet } from '../set-option.ts';
import { showSummary } from '../summary.ts';
import { keyCommands, lineCommands, terminalSeat, type CommandSource } from '../terminal-seat.ts';
import { interruptibleSummary } from './run.ts';

/** The setting flags a person's game takes: those that reach a person (not --cache: a person calls no model). */
const PLAY_SETTINGS = FLAGGED_SETTINGS.filter(
  (r) => providerOf(r) === undefined && r.path !== 'cache' && settingReaches(r.path, HUMAN_AGENT),
);

interface PlayOptions extends MazeOptions {
  suite?: string;
  mazeIndex?: number;
  player?: string;
  experimentId?: string;
  resume?: string;
  json?: boolean;
  set?: string[];
  [setting: string]: unknown;
}

const TEXT_FORMATS = OBSERVATION_FORMATS.filter((f) => f !== 'image');

/** The image format's picture cannot be shown on a terminal: refused, naming where it can be played and the others. */
function refuseImage(observation: string): void {
  if (observation !== 'image') return;
  throw new InvalidInputError(
    '--observation',
    observation,
    'observation "image" shows a model a picture of the square in sight, which a terminal cannot show: play it on ' +
      `the play page of ${commandPrefix()} view --play, or choose a text format with --observation ` +
      `(${TEXT_FORMATS.join(', ')}; local_grid shows the same square as text)`,
  );
}

/** Who plays: --player, else this machine's login name when it is a valid player id. */
function playerOf(given: string | undefined): string {
  if (given !== undefined) {
    if (!PLAYER_PATTERN.test(given))
      throw new InvalidInputError('--player', given, `--player "${given}": ${PLAYER_HELP}`);
    return given;
  }
  let login = '';
  try {
    login = userInfo().username;
  } catch {
    // no login name (a container without a passwd entry): --player is needed
  }
  if (PLAYER_PATTERN.test(login)) return login;
  throw new InvalidInputError('--player', undefined, `--player <id> is needed (${PLAYER_HELP})`);
}

/** The maze the options name: a generator's, a file's (parsed), or a suite's by index; contradictions refused. */
function playMaze(o: PlayOptions): { maze: PlayMaze; parsed: Maze | null } {
  if (o.suite === undefined) {
    if (o.mazeIndex !== undefined)
      throw new InvalidInputError('--maze-index', o.mazeIndex, '--maze-index goes with --suite <name>');
    const { maze, input } = mazeFromOptions(o);
    return { maze: input as PlayMaze, parsed: o.mazeFile === undefined ? null : maze };
  }
  const given = givenOptions(o);
  for (const key of ['maze', 'size', 'seed', 'mazeFile'])
    if (given.has(key))
      throw new InvalidInputError(
        `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
        o[key],
        `--suite ${o.suite} gives the maze (by --maze-index); drop --maze, --size, --seed and --maze-file`,
      );
  const { suite, ref } = findSuite(o.suite);
  if (o.mazeIndex === undefined)
    throw new InvalidInputError(
      '--maze-index',
      undefined,
      `--suite ${ref} needs --maze-index <n>, 0 to ${suite.mazes.length - 1} (${commandPrefix()} suite show ${ref} ` +
        '--json lists the mazes in order)',
    );
  return { maze: { suite: ref, index: o.mazeIndex }, parsed: null };
}

/** The maze a request plays, for the line that opens the game. */
function requestMaze(request: StartExecutionInput, parsed: Maze | null): Maze {
  const m = request.maze;
  if (parsed || 'grid' in m) return parsed!;
  return generateMaze({
    generator: m.generator,
    width: m.width ?? m.size!,
    height: m.height ?? m.size!,
    seed: m.seed ?? 1,
  });
}

/** The settings the flags and --set give. */
function givenConfig(o: PlayOptions): ExperimentConfigInput {
  const config: Record<string, unknown> = {};
  for (const row of PLAY_SETTINGS) {
    const value = o[optionKey(row.flag!)];
    if (value !== undefined) setAt(config, row.path.split('.'), value);
  }
  return mergeConfig(config, settingsFromSet(o.set ?? [], givenOptions(o)));
}

/** Where the game is shown: stdout, or stderr when stdout carries the --json summary. */
const gameStream = (o: PlayOptions): NodeJS.WriteStream => (o.json ? process.stderr : process.stdout);

/** The person's commands: keys on a terminal, lines otherwise. */
function commandSource(out: NodeJS.WritableStream): CommandSource {
  return process.stdin.isTTY ? keyCommands(out) : lineCommands();
}

/** A game to play: a new one's input, or one that prepares a resume's with the database open. */
interface Game {
  player: string;
  experimentId: string;
  input: (db: Database, out: NodeJS.WritableStream) => Promise<unknown>;
  /** A resume's own execution name (the first execution's is taken). */
  executionName?: string;
}

/**
 * The game, from its first move to its summary: Ctrl-C stops it as `run` does (the turn in flight commits, the run
 * is kept, interrupted); the input ending before the game does stops it the same way (exit 1).
 */
async function playGame(o: PlayOptions, game: Game, parameters: ReturnType<typeof localParameters>): Promise<void> {
  const out = gameStream(o);
  const runLog = openRunLog();
  const ended = new AbortController();
  await withCliDatabase(
    async (db) => {
      const input = await game.input(db, out);
      experimentDefinition();
      const commands = commandSource(out);
      let summary;
      try {
        summary = await interruptibleSummary(
          'ariadne play',
          (signal) => {
            const stopped = AbortSignal.any([signal, ended.signal]);
            const seat = terminalSeat({
              player: game.player,
              commands,
              out,
              stopped,
              onEnd: () => ended.abort('the input ended (no more moves) to ariadne play'),
            });
            const opts = { db, parameters, signal: stopped, telemetry: runLog.telemetry };
            return playLocally(input, seat, game.executionName ? { ...opts, executionName: game.executionName } : opts);
          },
          { done: () => undefined },
          () => game.experimentId,
          (id) => `${commandPrefix()} play --resume ${id}`,
        );
      } finally {
        commands.close();
      }
      if (!summary) {
        if (ended.signal.aborted && !process.exitCode) process.exitCode = EXIT.workFailed;
        return;
      }
      await showSummary(db, summary, o.json === true);
      if (summary.status === 'failed') process.exitCode = EXIT.workFailed;
    },
    { log: (line) => out.write(`${line}\n`) },
  ).finally(() => runLog.close());
}

/** A game to resume: a person's, interrupted, by the same player; its input once checked. */
async function resumedInput(db: Database, id: string, o: PlayOptions) {
  const state = await experimentState(db, id);
  const summary = state && (await summaryOf(db, id));
  if (!state || !summary || state.agent !== HUMAN_AGENT)
    throw new InvalidInputError(
      '--resume',
      id,
      state
        ? `experiment ${id} is agent ${state.agent}, not a person's game: resume it with ` +
            `${commandPrefix()} resume ${id}`
        : `no experiment ${id}; ${commandPrefix()} list --agent human lists the games`,
    );
  const player = summary.player!;
  if (o.player !== undefined && o.player !== player)
    throw new InvalidInputError(
      '--player',
      o.player,
      `experiment ${id} is ${player}'s game: a game keeps its player (leave --player out)`,
    );
  refuseImage(state.config.observation);
  if (state.status !== 'running')
    throw new InvalidInputError(
      '--resume',
      id,
      `experiment ${id} is ${state.status}: only an interrupted game resumes`,
    );
  return { player, input: await resumeInput(db, id) };
}

/** --resume: an interrupted game of a person, from its next turn, by the same player. */
async function resumeGame(o: PlayOptions, id: string): Promise<void> {
  const kept = ['suite', 'mazeIndex', 'maze', 'size', 'seed', 'mazeFile', 'experimentId', 'set'];
  for (const key of [...kept, ...PLAY_SETTINGS.map((r) => optionKey(r.flag!))])
    if (givenOptions(o).has(key))
      throw new InvalidInputError(
        '--resume',
        id,
        '--resume goes on with the game as it was started: its maze and settings are stored; give --resume alone ' +
          '(with --player, --json)',
      );
  const game: Game = {
    player: o.player ?? '',
    experimentId: id,
    executionName: `${id}-resume-${Date.now()}`,
    input: async (db, out) => {
      const { player, input } = await resumedInput(db, id, o);
      game.player = player;
      out.write(`resuming ${player}'s game ${id} at turn ${input.resume.turnNumber}\n`);
      return input;
    },
  };
  await playGame(o, game, localParameters());
}

async function play(o: PlayOptions): Promise<void> {
  if (o.resume !== undefined) return resumeGame(o, o.resume);
  const player = playerOf(o.player);
  const { maze, parsed } = playMaze(o);
  const experimentId = o.experimentId ?? randomUUID();
  const request = playRequest({ maze, player, config: givenConfig(o), experimentId });
  const shown = requestMaze(request, parsed);
  const which = request.suiteMaze ? `${request.suiteMaze.suite} maze ${request.suiteMaze.index}: ` : '';
  const label = `${which}${shown.generator} ${shown.width}x${shown.height} seed ${shown.seed ?? '-'}`;
  const parameters = localParameters();
  const fromFile = await parameters?.get();
  const config = playConfig(request, fromFile?.config);
  refuseImage(config.observation);
  const prompts = fromFile?.prompts ?? {};
  if (!Object.hasOwn(PROMPTS, config.prompt_version) && !Object.hasOwn(prompts, config.prompt_version))
    throw new InvalidInputError(
      '--prompt-version',
      config.prompt_version,
      `--prompt-version "${config.prompt_version}" is not defined; ` +
        `choose one of: ${[...Object.keys(PROMPTS), ...Object.keys(prompts)].join(', ')}`,
    );
  gameStream(o).write(
    `${player} plays ${label} (shortest path ${shown.shortestPath}, to sight ${shown.shortestPathToSight}) as ` +
      `agent human, observation ${config.observation}, experiment ${experimentId}\n` +
      `${COMMANDS_HELP}\n`,
  );
  await playGame(o, { player, experimentId, input: () => Promise.resolve(request) }, parameters);
}

export function registerPlayCommand(program: Command): void {
  const command = addMazeOptions(
    program
      .command('play')
      .description(
        'play one maze yourself as agent human (the human baseline): shown exactly what a model is shown in the ' +
          'observation format, moves by arrow keys (typed commands n/s/e/w/recall/quit when stdin is not a ' +
          'terminal), through the same engine as run, recorded with your player id',
      ),
  )
    .option('--suite <name>', "play a maze of a suite (ariadne-mazes/v1) under the suite's config, with --maze-index")
    .addOption(
      new Option('--maze-index <n>', "the suite's maze to play, by its place in the suite's list (from 0)").argParser(
        intOption('--maze-index', 0, 100_000),
      ),
    )
    .option('--player <id>', `who plays (${PLAYER_HELP}); default: your login name`)
    .option('--experiment-id <id>', 'experiment id (default: a new UUID)')
    .option(
      '--resume <experiment-id>',
      'go on with an interrupted game (Ctrl-C, or the input ended) from its next turn',
    );
  addPlaySettingOptions(command, PLAY_SETTINGS)
    .option(
      '--set <key=value>',
      'any experiment setting, repeatable, as run takes it (a suite fixes its own: they cannot be changed)',
      collectRepeated,
    )
    .addOption(jsonOption('print the summary as JSON on stdout (the game is shown on stderr)'))
    .action((o: PlayOptions) => play(o));
  withExample(command, 'ariadne play --suite ariadne-mazes/v1 --maze-index 0 --observation local_grid --player ada');
}
