// Prints the experiment and sweep machines' definitions (or, given `template`, the whole
// stack template) as JSON: run as a child process by synthesized() in
// definition.ts, so the memory CDK synthesis needs (hundreds of MB) is
// returned to the system before any experiment runs.
import { machineDefinition, synthesizeTemplate, type Machines } from './definition.ts';
import { ORCHESTRATIONS, type Orchestration } from '../core/machine/states.ts';

const orchestration = process.argv[3] as Orchestration;
if (!ORCHESTRATIONS.includes(orchestration))
  throw new Error(`orchestration ${orchestration}: ${ORCHESTRATIONS.join(' or ')}`);
const template = await synthesizeTemplate(orchestration);
const machines: Machines = {
  Experiments: machineDefinition(template, 'Experiments'),
  ...(orchestration === 'nested' ? { ExperimentsChunks: machineDefinition(template, 'ExperimentsChunks') } : {}),
  Sweeps: machineDefinition(template, 'Sweeps'),
};
process.stdout.write(JSON.stringify(process.argv[2] === 'template' ? template.toJSON() : machines));
