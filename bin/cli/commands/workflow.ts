// ariadne workflow: check a workflow YAML file without running anything.
import type { Command } from 'commander';
import { withExample } from '../help.ts';
import { readWorkflowFile } from '../workflow-file.ts';

function checkWorkflow(file: string): void {
  const { workflow } = readWorkflowFile('workflow', file);
  const d = workflow.definition;
  process.stdout.write(
    `${file}: workflow "${d.workflow}" is valid: ${d.states.length} states (${d.states.join(', ')}), ` +
      `initial ${d.initial_state}, ${d.steps.length} steps, ${d.transitions.length} transitions, ` +
      `${Object.keys(d.variables).length} variables\n`,
  );
}

export function registerWorkflowCommand(program: Command): void {
  const workflowCommand = program
    .command('workflow')
    .description(
      'check a workflow YAML file: every state, step, variable and expression, with the YAML path of each problem',
    )
    .argument('<file>')
    .action(checkWorkflow);
  withExample(workflowCommand, 'ariadne workflow workflows/observe-plan-act.yaml');
}
