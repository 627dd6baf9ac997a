// The input of the AWS sweep machine, small for any number of runs: the sweep
// to register, where its run list is in S3, and MaxConcurrency. The run list
// (a JSON array the Distributed Map's ItemReader reads) holds one
// StartExecution input per run: the experiment machine's own input, so a
// child is exactly a local run (the sweep machine adds only its task token).
import { createHash } from 'node:crypto';
import { sweepRunInput, type LoadedSweep } from '../sweeps/sweep-spec.ts';
import type { StartExecutionInput } from './contracts.ts';
import { sweepRunOrder } from '../sweeps/sweep-order.ts';

/** Where the CLI puts run lists and the Map writes its results, in the stack's sweep bucket. */
export const RUNS_PREFIX = 'runs/';
export const RESULTS_PREFIX = 'results';

interface SweepRunItem {
  /** The child execution's name: its experiment id, so starting the sweep again cannot run it twice. */
  name: string;
  input: StartExecutionInput;
}

export interface SweepLaunch {
  /** The StartExecution input of the sweep machine. */
  input: {
    sweep: { id: string; specText: string };
    runsObject: { bucket: string; key: string };
    maxConcurrency: number;
  };
  /** The run list object to upload first: body at key in bucket. */
  runsObject: { bucket: string; key: string; body: string };
  runs: number;
}

/** The runs in the order they start (sweep-order.ts): a Distributed Map starts its items in the list's order. */
function sweepRunItems(sweep: LoadedSweep): SweepRunItem[] {
  return sweepRunOrder(sweep.spec.sweep, sweep.runs, sweep.spec.stop_when !== undefined).map((run) => {
    const input = sweepRunInput(sweep.spec.sweep, run, 1);
    return { name: input.experimentId!, input };
  });
}

/** The run list object and the sweep machine's input naming it; the key is content-addressed (same runs, same key). */
export function sweepLaunch(sweep: LoadedSweep, bucket: string, concurrency?: number): SweepLaunch {
  const body = JSON.stringify(sweepRunItems(sweep));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  const key = `${RUNS_PREFIX}${sweep.spec.sweep}/${hash}.json`;
  return {
    input: {
      sweep: { id: sweep.spec.sweep, specText: sweep.text },
      runsObject: { bucket, key },
      maxConcurrency: concurrency ?? sweep.spec.max_concurrency,
    },
    runsObject: { bucket, key, body },
    runs: sweep.runs.length,
  };
}
