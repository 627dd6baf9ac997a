// Prints the experiment and sweep machines' definitions (or, given `template`, the whole
// stack template) as JSON: run as a child process by synthesized() in
// definition.ts, so the memory CDK synthesis needs (hundreds of MB) is
// returned to the system before any experiment runs.
import { machineDefinition, synthesizeTemplate } from './definition.ts';

const template = await synthesizeTemplate();
const machines = {
  Experiments: machineDefinition(template, 'Experiments'),
  Sweeps: machineDefinition(template, 'Sweeps'),
};
process.stdout.write(JSON.stringify(process.argv[2] === 'template' ? template.toJSON() : machines));
