// What bench/engine.ts times, compiled as the CLI is (bin/compile-cli.ts compileModule): the local runner and the
// store it writes through.
export { runLocalExperiment } from '../state-machine/local-experiment.ts';
export { openDatabase } from '../lambdas/store/database.ts';
