// Every command's --help ends with one invocation that works as shown.
import type { Command } from 'commander';

export function withExample(cmd: Command, example: string): Command {
  return cmd.addHelpText('after', `\nExample:\n  $ ${example}`);
}
