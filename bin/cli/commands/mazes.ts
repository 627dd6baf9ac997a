// ariadne mazes and ariadne maze: the generators, and one maze as ASCII or JSON.
import { Option, type Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { GENERATOR_NAMES, describeGenerator } from '../../../core/maze/generators/index.ts';
import { mazeToJson } from '../../../core/maze/maze-file.ts';
import { renderAscii } from '../../../core/maze/grid.ts';
import { mazeFromOptions } from '../experiment-input.ts';
import { withExample } from '../help.ts';
import { addMazeOptions, jsonOption, type MazeOptions } from '../options.ts';
import { hiddenNote, renderTable, type Column } from '../table.ts';
import { addTableOutputOptions, printTableOutput, type TableOutputOptions } from '../table-output.ts';
import { describeSize, outDirOption, outputFile, writeOutput } from '../output-dir.ts';

type Generator = { name: string } & ReturnType<typeof describeGenerator>;

const GENERATOR_COLUMNS: Column<Generator>[] = [
  { header: 'name', cell: (g) => g.name },
  { header: 'sizes', cell: (g) => (g.oddSizes ? 'odd only' : 'any') },
  { header: 'description', cell: (g) => g.description, cut: true },
];

function listGenerators(o: TableOutputOptions): void {
  const generators: Generator[] = GENERATOR_NAMES.map((name) => ({ name, ...describeGenerator(name) }));
  printTableOutput(o, {
    table: (layout) => {
      const { lines, hidden } = renderTable(generators, GENERATOR_COLUMNS, layout);
      return [...lines, ...hiddenNote(hidden)];
    },
    csv: () => generators,
    json: () => generators,
  });
}

interface ShowMazeOptions extends MazeOptions {
  /** A file name, or true for the default name in the output directory. */
  out?: string | true;
  outDir?: string;
  json?: boolean;
}

function showMaze(o: ShowMazeOptions, cmd: Command): void {
  if (o.outDir !== undefined && o.out === undefined)
    throw new InvalidInputError('--out-dir', o.outDir, '--out-dir goes with --out: add --out to write the maze');
  const { maze } = mazeFromOptions(o);
  const json = mazeToJson(maze) as Record<string, unknown>;
  const shown =
    `${renderAscii(maze.grid, [{ at: maze.start, ch: 'S' }])}\n` +
    `${maze.generator} ${maze.width}x${maze.height} seed ${maze.seed ?? '-'} ` +
    `start (${maze.start.x},${maze.start.y}) goal (${maze.goal.x},${maze.goal.y}) ` +
    `shortest path ${maze.shortestPath} to sight ${maze.shortestPathToSight} hash ${maze.hash}\n`;
  if (o.out === undefined) {
    process.stdout.write(o.json ? `${JSON.stringify(json)}\n` : shown);
    return;
  }
  const name = `maze-${maze.generator}-${maze.width}x${maze.height}-s${maze.seed ?? maze.hash.slice(0, 12)}.json`;
  const target = outputFile(cmd, o.out === true ? undefined : o.out, name);
  const file = writeOutput(target, `${JSON.stringify(json)}\n`);
  if (o.json) {
    // what was written, without the grid: the file has it
    const { grid: _grid, ...about } = json;
    process.stdout.write(`${JSON.stringify({ file: file.path, bytes: file.bytes, ...about }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${shown}written to ${file.path} (${describeSize(file.bytes)})\n`);
}

export function registerMazeCommands(program: Command): void {
  withExample(
    addTableOutputOptions(program.command('mazes'), 'the generators as JSON')
      .description('list the maze generators')
      .action(listGenerators),
    'ariadne mazes',
  );

  const mazeCommand = program
    .command('maze')
    .description('show a maze (ASCII: # wall, . empty, G goal, S start) and optionally export it as JSON');
  addMazeOptions(mazeCommand)
    .addOption(
      new Option(
        '--out [file]',
        'write the maze as JSON (importable with --maze-file) to this file (relative to the directory you run ' +
          'ariadne from), or without a name to maze-<generator>-<width>x<height>-s<seed>.json in the output directory',
      ),
    )
    .addOption(outDirOption())
    .addOption(jsonOption('the maze as JSON (with --out: the file written)'))
    .action(showMaze);
  withExample(mazeCommand, 'ariadne maze --maze spiral --size 11 --seed 2 --out spiral.json');
}
