// The ariadne program with every command registered, built without parsing
// anything, so tests can walk its commands and their help.
import { Command } from 'commander';
import { withExample } from './help.ts';
import { EXIT_CODES_HELP } from './exit-codes.ts';
import { packageVersion } from './invocation.ts';
import { outDirOption } from './output-dir.ts';
import { registerRunCommands } from './commands/run.ts';
import { registerRerunCommand } from './commands/rerun.ts';
import { registerPlayCommand } from './commands/play.ts';
import { registerMazeCommands } from './commands/mazes.ts';
import { registerSuiteCommands } from './commands/suite.ts';
import { registerSweepCommand } from './commands/sweep.ts';
import { registerListCommand } from './commands/list.ts';
import { registerResultCommands } from './commands/results.ts';
import { registerStatsCommand } from './commands/stats.ts';
import { registerReplicateCommand } from './commands/replicate.ts';
import { registerPlanCommand } from './commands/plan.ts';
import { registerViewCommand } from './commands/view.ts';
import { registerWorkflowCommand } from './commands/workflow.ts';
import { registerStackCommands } from './commands/stack.ts';
import { registerDatabaseCommands } from './commands/database.ts';
import { registerSimCommand } from './commands/sim.ts';
import { registerPolicyCommands } from './commands/policy.ts';
import { registerSecretCommands } from './commands/secret.ts';
import { registerDoctorCommand } from './commands/doctor.ts';

export function buildProgram(): Command {
  // Subcommands inherit these settings when they are created, so they come first.
  const program = new Command('ariadne')
    .description('Maze-navigation experiments for LLM agents: run locally, read results from Postgres.')
    .version(packageVersion(), '-V, --version', 'print the version')
    // --out-dir before the command is the program's, after it the command's own: each command that writes files
    // takes it too, and the nearer one wins
    .enablePositionalOptions()
    .addOption(outDirOption())
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  // one code a line: the contract is what scripts read the help for
  program.addHelpText('after', `\n${EXIT_CODES_HELP.replace(': ', ':\n  ').replaceAll('; ', '\n  ')}`);
  withExample(program, 'ariadne run --agent frontier --maze medium --size 30 --seed 7');
  // In the order `ariadne --help` lists them.
  registerRunCommands(program);
  registerRerunCommand(program);
  registerPlayCommand(program);
  registerMazeCommands(program);
  registerSuiteCommands(program);
  registerSweepCommand(program);
  registerListCommand(program);
  registerResultCommands(program);
  registerStatsCommand(program);
  registerReplicateCommand(program);
  registerPlanCommand(program);
  registerViewCommand(program);
  registerWorkflowCommand(program);
  registerStackCommands(program);
  registerPolicyCommands(program);
  registerSecretCommands(program);
  registerDoctorCommand(program);
  registerDatabaseCommands(program);
  registerSimCommand(program);
  return program;
}
