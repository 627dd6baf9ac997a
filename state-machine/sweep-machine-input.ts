// The input of the AWS sweep machine: the sweep to register, then one
// StartExecution input per run for its Distributed Map (the experiment
// machine's own input, so a child is exactly a local run).
import { sweepRunInput, type LoadedSweep } from './sweep-spec.ts';

export function sweepStartInput(sweep: LoadedSweep, concurrency?: number) {
  return {
    sweep: {
      id: sweep.spec.sweep,
      specText: sweep.text,
    },
    maxConcurrency: concurrency ?? sweep.spec.max_concurrency,
    // each child is named by its experiment id: starting the sweep again cannot run it twice
    runs: sweep.runs.map((run) => {
      const input = sweepRunInput(sweep.spec.sweep, run, 1);
      return { name: input.experimentId!, input };
    }),
  };
}
