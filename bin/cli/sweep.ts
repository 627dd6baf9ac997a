// ariadne sweep: read and validate a sweep file; with --aws, start the
// stack's sweep state machine, whose Distributed Map runs the experiment
// machine once per run (the same StartExecution inputs as a local sweep).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeFileError } from './file-errors.ts';
import { userDirectory } from './output-dir.ts';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { InvalidInputError } from '../../lambdas/engine/errors.ts';
import { loadSweep, SweepDefinitionError, type LoadedSweep } from '../../state-machine/sweep-spec.ts';
import { sweepStartInput } from '../../state-machine/sweep-machine-input.ts';
import { regionOf } from './launch.ts';

export function readSweepFile(file: string): LoadedSweep {
  let text: string;
  try {
    text = readFileSync(resolve(userDirectory(), file), 'utf8');
  } catch (err) {
    throw new InvalidInputError('file', file, `sweep file "${file}" cannot be read: ${describeFileError(err)}`);
  }
  try {
    return loadSweep(text, file);
  } catch (err) {
    if (err instanceof SweepDefinitionError) throw new InvalidInputError(err.path, file, err.message);
    throw err;
  }
}

/**
 * Starts the sweep machine; its name is the sweep and a hash of its spec, so starting it twice while it runs is
 * harmless.
 */
export async function startAwsSweep(
  sweep: LoadedSweep,
  stateMachineArn: string,
  concurrency?: number,
  endpoint?: string,
) {
  const client = new SFNClient({ region: regionOf(stateMachineArn), ...(endpoint ? { endpoint } : {}) });
  const input = sweepStartInput(sweep, concurrency);
  const name = `${sweep.spec.sweep}-${createHash('sha256').update(JSON.stringify(input)).digest('hex').slice(0, 12)}`;
  const res = await client.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }));
  return { executionArn: res.executionArn!, name, runs: input.runs.length };
}
