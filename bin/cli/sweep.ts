// ariadne sweep: read and validate a sweep file; with --aws, upload its run
// list to the stack's sweep bucket and start the sweep state machine, whose
// Distributed Map reads it and runs the experiment machine once per run (the
// same StartExecution inputs as a local sweep). The machine's input only
// names the object, so it stays small for any number of runs.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeFileError } from './file-errors.ts';
import { userDirectory } from './output-dir.ts';
import { InvalidInputError } from '../../core/errors.ts';
import { loadSweep, SweepDefinitionError, type LoadedSweep } from '../../core/sweeps/sweep-spec.ts';
import { sweepLaunch } from '../../core/machine/sweep-machine-input.ts';
import { regionOf } from './launch.ts';
import { envString } from '../../core/config/environment.ts';

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

// S3's rules for a general purpose bucket's name: 3-63 of a-z 0-9 . -, first and last a letter or digit.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** --bucket, else $ARIADNE_SWEEP_BUCKET: the stack's SweepBucketName output. */
export function sweepBucket(flag: string | undefined, env = process.env): string {
  const bucket = flag ?? envString('ARIADNE_SWEEP_BUCKET', env);
  if (!bucket)
    throw new InvalidInputError(
      '--bucket',
      bucket,
      '--aws needs a bucket: --bucket, ARIADNE_SWEEP_BUCKET, or a stack (--stack) whose output SweepBucketName ' +
        'names the bucket the run list is uploaded to for the sweep machine to read',
    );
  if (!BUCKET.test(bucket))
    throw new InvalidInputError('--bucket', bucket, `--bucket "${bucket}" is not an S3 bucket name`);
  return bucket;
}

/**
 * Uploads the run list (its key is a hash of its content: uploading it again changes nothing), then starts the sweep
 * machine; the execution's name is the sweep and a hash of its input, so starting it twice while it runs is harmless.
 */
export async function startAwsSweep(
  sweep: LoadedSweep,
  target: { stateMachineArn: string; bucket: string; endpoint?: string },
  concurrency?: number,
) {
  const region = regionOf(target.stateMachineArn);
  const launch = sweepLaunch(sweep, target.bucket, concurrency);
  const { PutObjectCommand, S3Client } = await import('@aws-sdk/client-s3');
  const { SFNClient, StartExecutionCommand } = await import('@aws-sdk/client-sfn');
  const s3 = new S3Client({ region });
  await s3.send(
    new PutObjectCommand({
      Bucket: launch.runsObject.bucket,
      Key: launch.runsObject.key,
      Body: launch.runsObject.body,
      ContentType: 'application/json',
    }),
  );
  const client = new SFNClient({ region, ...(target.endpoint ? { endpoint: target.endpoint } : {}) });
  const input = JSON.stringify(launch.input);
  const name = `${sweep.spec.sweep}-${createHash('sha256').update(input).digest('hex').slice(0, 12)}`;
  const res = await client.send(new StartExecutionCommand({ stateMachineArn: target.stateMachineArn, name, input }));
  return {
    executionArn: res.executionArn!,
    name,
    runs: launch.runs,
    runsObject: `s3://${launch.runsObject.bucket}/${launch.runsObject.key}`,
  };
}
