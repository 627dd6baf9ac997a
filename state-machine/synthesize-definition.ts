// Prints the experiment machine's definition as JSON: run as a child process
// by experimentDefinition(), so the memory CDK synthesis needs (hundreds of
// MB) is returned to the system before any experiment runs.
import { machineDefinition, synthesizeTemplate } from './definition.ts';

process.stdout.write(JSON.stringify(machineDefinition(synthesizeTemplate(), 'Experiments')));
