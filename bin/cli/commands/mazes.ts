// ariadne mazes and ariadne maze: the generators, and one maze as ASCII or JSON.
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { GENERATOR_NAMES, describeGenerator } from '../../../lambdas/maze/generators/index.ts';
import { mazeToJson } from '../../../lambdas/maze/maze-file.ts';
import { renderAscii } from '../../../lambdas/maze/grid.ts';
import { mazeFromOptions } from '../experiment-input.ts';
import { withExample } from '../help.ts';
import { addMazeOptions, type MazeOptions } from '../options.ts';

function listGenerators(): void {
  for (const name of GENERATOR_NAMES) {
    const info = describeGenerator(name);
    process.stdout.write(`${name.padEnd(20)} ${info.description}${info.oddSizes ? ' (odd sizes only)' : ''}\n`);
  }
}

function showMaze(o: MazeOptions & { out?: string }): void {
  const { maze } = mazeFromOptions(o);
  process.stdout.write(`${renderAscii(maze.grid, [{ at: maze.start, ch: 'S' }])}\n`);
  process.stdout.write(
    `${maze.generator} ${maze.width}x${maze.height} seed ${maze.seed ?? '-'} ` +
      `start (${maze.start.x},${maze.start.y}) goal (${maze.goal.x},${maze.goal.y}) ` +
      `shortest path ${maze.shortestPath} to sight ${maze.shortestPathToSight} hash ${maze.hash}\n`,
  );
  if (o.out) {
    writeFileSync(o.out, `${JSON.stringify(mazeToJson(maze))}\n`);
    process.stdout.write(`written to ${o.out}\n`);
  }
}

export function registerMazeCommands(program: Command): void {
  withExample(program.command('mazes').description('list the maze generators').action(listGenerators), 'ariadne mazes');

  const mazeCommand = program
    .command('maze')
    .description('show a maze (ASCII: # wall, . empty, G goal, S start) and optionally export it as JSON');
  addMazeOptions(mazeCommand)
    .option('--out <path>', 'write the maze as JSON (importable with --maze-file)')
    .action(showMaze);
  withExample(mazeCommand, 'ariadne maze --maze spiral --size 11 --seed 2 --out spiral.json');
}
