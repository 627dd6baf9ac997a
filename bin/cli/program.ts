// The ariadne program with every command registered, built without parsing
// anything, so tests can walk its commands and their help.
import { Command } from 'commander';
import { withExample } from './help.ts';
import { registerRunCommands } from './commands/run.ts';
import { registerMazeCommands } from './commands/mazes.ts';
import { registerSweepCommand } from './commands/sweep.ts';
import { registerListCommand } from './commands/list.ts';
import { registerResultCommands } from './commands/results.ts';
import { registerWorkflowCommand } from './commands/workflow.ts';
import { registerStackCommands } from './commands/stack.ts';
import { registerDatabaseCommands } from './commands/database.ts';
import { registerSimCommand } from './commands/sim.ts';

export function buildProgram(): Command {
  // Subcommands inherit these settings when they are created, so they come first.
  const program = new Command('ariadne')
    .description('Maze-navigation experiments for LLM agents: run locally, read results from Postgres.')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  withExample(program, 'ariadne run --agent frontier --maze medium --size 30 --seed 7');
  // In the order `ariadne --help` lists them.
  registerRunCommands(program);
  registerMazeCommands(program);
  registerSweepCommand(program);
  registerListCommand(program);
  registerResultCommands(program);
  registerWorkflowCommand(program);
  registerStackCommands(program);
  registerDatabaseCommands(program);
  registerSimCommand(program);
  return program;
}
