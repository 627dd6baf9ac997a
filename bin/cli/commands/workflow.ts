// ariadne workflow: check a workflow YAML file without running anything.
import type { Command } from 'commander';
import { withExample } from '../help.ts';
import { jsonOption } from '../options.ts';
import { readWorkflowFile } from '../workflow-file.ts';

function checkWorkflow(file: string, o: { json?: boolean }): void {
  const { workflow } = readWorkflowFile('workflow', file);
  const d = workflow.definition;
  if (o.json) {
    const check = {
      file,
      valid: true,
      workflow: d.workflow,
      states: d.states,
      initial_state: d.initial_state,
      steps: d.steps.map((s) => s.name),
      transitions: d.transitions.length,
      variables: Object.keys(d.variables),
    };
    process.stdout.write(`${JSON.stringify(check, null, 2)}\n`);
    return;
  }
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
    .addOption(jsonOption('the check result as JSON (a problem is still an error on stderr, exit 2)'))
    .action(checkWorkflow);
  withExample(workflowCommand, 'ariadne workflow examples/workflows/observe-plan-act.yaml');
}
