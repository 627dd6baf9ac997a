#!/usr/bin/env -S npx tsx
// The ariadne command line: run experiments locally, list and export mazes,
// show results.
import { readFileSync, writeFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { GENERATOR_NAMES, MAX_SIZE, MIN_SIZE, describeGenerator, generateMaze } from '../lambdas/maze/generators/index.ts';
import { MazeInputError } from '../lambdas/maze/errors.ts';
import { mazeToJson, parseMazeJson } from '../lambdas/maze/maze-file.ts';
import { renderAscii } from '../lambdas/maze/grid.ts';
import type { Maze } from '../lambdas/maze/maze.ts';
import { InvalidInputError } from '../lambdas/engine/errors.ts';
import { resolveConfig } from '../lambdas/engine/experiment.ts';
import { DatabaseConfigError } from '../lambdas/store/errors.ts';
import { SUCCESS_RULES } from '../lambdas/config/experiment-config.ts';
import { BASELINE_AGENTS, BASELINE_NAMES } from '../lambdas/providers/baselines.ts';
import { parseOrThrow } from '../lambdas/config/zod-errors.ts';
import { startRequestSchema, type StartExecutionInput } from '../state-machine/contracts.ts';
import { choiceOption, intOption, numberOption } from './cli/options.ts';
import { turnProgress } from './cli/progress.ts';
import { cliDatabase } from './cli/database.ts';
import { printSummary } from './cli/summary.ts';
import { formatTable } from './cli/table.ts';

// `ariadne sql ... | head` closes the pipe early: that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => { if (err.code === 'EPIPE') process.exit(0); throw err; });

const SEED = intOption('--seed', 0, 0xffffffff);

function mazeOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--maze <generator>', 'maze generator (see `ariadne mazes`)').default('medium').argParser(choiceOption('--maze', GENERATOR_NAMES)))
    .addOption(new Option('--size <n>', `square maze side, ${MIN_SIZE}-${MAX_SIZE}`).default(30).argParser(intOption('--size', MIN_SIZE, MAX_SIZE)))
    .addOption(new Option('--seed <n>', 'maze seed').default(7).argParser(SEED))
    .option('--maze-file <path>', 'use a maze from a JSON file ({"grid": [[0,1,2,...]], "start": {"x":1,"y":1}}) instead of a generator');
}

interface MazeOpts { maze: string; size: number; seed: number; mazeFile?: string }

function mazeFromOptions(o: MazeOpts): { maze: Maze; input: StartExecutionInput['maze'] } {
  if (o.mazeFile) {
    let text: string;
    try {
      text = readFileSync(o.mazeFile, 'utf8');
    } catch (err) {
      throw new InvalidInputError('--maze-file', o.mazeFile, `--maze-file "${o.mazeFile}" cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const maze = parseMazeJson(text, `--maze-file ${o.mazeFile}`);
    return { maze, input: { grid: maze.grid.toRows(), start: maze.start } };
  }
  const spec = { generator: o.maze, width: o.size, height: o.size, seed: o.seed };
  return { maze: generateMaze(spec), input: { generator: o.maze, size: o.size, seed: o.seed } };
}

const program = new Command('ariadne')
  .description('Maze-navigation experiments for LLM agents: run locally, read results from Postgres.')
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride();

mazeOptions(program.command('run')
  .description('run one experiment through the local state machine, with live progress and a summary')
  .addOption(new Option('--agent <name>', `agent: ${BASELINE_NAMES.map((n) => `${n} (${BASELINE_AGENTS[n]})`).join('; ')}`).default('frontier').argParser(choiceOption('--agent', BASELINE_NAMES))))
  .addOption(new Option('--agent-seed <n>', 'seed of the random agent (default: derived from the experiment id)').argParser(intOption('--agent-seed', 0, 0xffffffff)))
  .addOption(new Option('--max-moves <n>', 'stop after this many actions').argParser(intOption('--max-moves', 1, 1_000_000)))
  .addOption(new Option('--max-duration-minutes <n>', 'stop after this long').argParser(numberOption('--max-duration-minutes', 0.01, 10080)))
  .addOption(new Option('--max-actions-per-turn <n>', 'tool actions per turn').argParser(intOption('--max-actions-per-turn', 1, 64)))
  .addOption(new Option('--vision-range <n>', 'how far the agent sees').argParser(intOption('--vision-range', 0, 50)))
  .option('--see-through', 'see every tile within vision range, walls do not block')
  .addOption(new Option('--success-rule <rule>', 'seen: the goal is in view; reached: the agent stands on it').argParser(choiceOption('--success-rule', SUCCESS_RULES)))
  .addOption(new Option('--recall-interval <n>', 'actions between two recall_all calls').argParser(intOption('--recall-interval', 0, 100_000)))
  .addOption(new Option('--max-recall-actions <n>', 'how many recent actions recall_all covers').argParser(intOption('--max-recall-actions', 1, 100_000)))
  .option('--experiment-id <id>', 'experiment id (default: derived from the execution)')
  .option('--json', 'print the summary as JSON on stdout')
  .option('--quiet', 'no progress line')
  .action(async (o) => {
    const { maze, input } = mazeFromOptions(o);
    const config = Object.fromEntries(Object.entries({
      max_moves: o.maxMoves, max_duration_minutes: o.maxDurationMinutes, max_actions_per_turn: o.maxActionsPerTurn,
      vision_range: o.visionRange, see_through: o.seeThrough, success_rule: o.successRule,
      recall_interval: o.recallInterval, max_recall_actions: o.maxRecallActions,
    }).filter(([, v]) => v !== undefined));
    const request = parseOrThrow(startRequestSchema, {
      agent: o.agent, maze: input, config, ...(o.agentSeed !== undefined ? { agentSeed: o.agentSeed } : {}),
      ...(o.experimentId !== undefined ? { experimentId: o.experimentId } : {}),
    }, 'input');
    const resolved = resolveConfig(request.config);
    const log = (line: string) => { if (!o.json) process.stderr.write(`${line}\n`); };
    log(`maze: ${maze.generator} ${maze.width}x${maze.height} seed ${maze.seed ?? '-'} (shortest path ${maze.shortestPath}, to sight ${maze.shortestPathToSight})`);
    const db = await cliDatabase(log);
    try {
      const { runLocalExperiment } = await import('../state-machine/local-experiment.ts');
      const { experimentDefinition } = await import('../state-machine/definition.ts');
      experimentDefinition(); // synthesize first, so the progress rate measures the experiment only
      const progress = turnProgress(resolved.max_moves);
      const result = await runLocalExperiment(request, { db, onTurn: (t) => { if (!o.quiet && !o.json) progress.update(t); } });
      progress.done();
      if (!result.summary) throw new Error(`the experiment did not start: ${JSON.stringify(result.output)}`);
      if (o.json) process.stdout.write(`${JSON.stringify(result.summary, null, 2)}\n`);
      else printSummary(result.summary);
      if (result.summary.status === 'failed') process.exitCode = 1;
    } finally {
      await db.close();
    }
  });

program.command('mazes')
  .description('list the maze generators')
  .action(() => {
    for (const name of GENERATOR_NAMES) {
      const info = describeGenerator(name);
      process.stdout.write(`${name.padEnd(20)} ${info.description}${info.oddSizes ? ' (odd sizes only)' : ''}\n`);
    }
  });

mazeOptions(program.command('maze')
  .description('show a maze (ASCII: # wall, . empty, G goal, S start) and optionally export it as JSON'))
  .option('--out <path>', 'write the maze as JSON (importable with --maze-file)')
  .action((o) => {
    const { maze } = mazeFromOptions(o);
    process.stdout.write(`${renderAscii(maze.grid, [{ at: maze.start, ch: 'S' }])}\n`);
    process.stdout.write(`${maze.generator} ${maze.width}x${maze.height} seed ${maze.seed ?? '-'} start (${maze.start.x},${maze.start.y}) goal (${maze.goal.x},${maze.goal.y}) shortest path ${maze.shortestPath} to sight ${maze.shortestPathToSight} hash ${maze.hash}\n`);
    if (o.out) {
      writeFileSync(o.out, `${JSON.stringify(mazeToJson(maze))}\n`);
      process.stdout.write(`written to ${o.out}\n`);
    }
  });

program.command('summary')
  .description('show the summary of a stored experiment')
  .argument('<experiment-id>')
  .option('--json', 'as JSON')
  .action(async (id: string, o: { json?: boolean }) => {
    const db = await cliDatabase((line) => process.stderr.write(`${line}\n`));
    try {
      const { summaryOf } = await import('../state-machine/local-experiment.ts');
      const summary = await summaryOf(db, id);
      if (!summary) throw new InvalidInputError('experiment-id', id, `no experiment with id "${id}"; list them with: SELECT experiment_id FROM experiment_summary`);
      if (o.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      else printSummary(summary);
    } finally {
      await db.close();
    }
  });

program.command('sql')
  .description('run a SQL query against the results database and print the rows')
  .argument('<query>', 'e.g. "SELECT * FROM experiment_summary ORDER BY started_at DESC LIMIT 5"')
  .option('--json', 'rows as JSON')
  .action(async (query: string, o: { json?: boolean }) => {
    const db = await cliDatabase((line) => process.stderr.write(`${line}\n`));
    try {
      const result = await db.pool.query(query);
      if (o.json) process.stdout.write(`${JSON.stringify(result.rows, null, 2)}\n`);
      else process.stdout.write(`${formatTable(result.rows, result.fields.map((f) => f.name))}\n`);
    } catch (err) {
      throw new InvalidInputError('query', query, `the query failed: ${(err as Error).message}`);
    } finally {
      await db.close();
    }
  });

program.command('db')
  .description('start the embedded results database and keep it running, printing its URL (for psql, notebooks, BI tools); Ctrl-C stops it')
  .action(async () => {
    const db = await cliDatabase((line) => process.stderr.write(`${line}\n`));
    process.stdout.write(`DATABASE_URL=${process.env.DATABASE_URL ?? db.url}\n`);
    process.stderr.write('serving until Ctrl-C\n');
    await new Promise<void>((resolve) => { process.once('SIGINT', resolve); process.once('SIGTERM', resolve); });
    await db.close();
  });

function isInputError(err: unknown): err is Error & { field?: string } {
  return err instanceof InvalidInputError || err instanceof MazeInputError || err instanceof DatabaseConfigError;
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // help and version exit 0; usage errors were already printed by commander
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else if (isInputError(err)) {
    process.stderr.write(`\nariadne: ${err.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`\nariadne: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}\n`);
    process.exitCode = 1;
  }
}
