// The handler modules the local runner loads, by the file TASKS names for each Task state
// (core/machine/tasks.ts). Written out as import() of literal paths, not built from HANDLERS_DIR at run time, so
// that a bundle (the CLI compiled on npm install, bin/compile-cli.ts) carries them: a path made at run time would
// name a TypeScript source that plain Node cannot load. test/local-machine-validation.test.ts checks every file
// TASKS names has its loader here.
export const HANDLER_MODULES: Readonly<Record<string, () => Promise<Record<string, unknown>>>> = {
  'start-experiment.ts': () => import('../functions/start-experiment.ts'),
  'run-turn.ts': () => import('../functions/run-turn.ts'),
  'check-progress.ts': () => import('../functions/check-progress.ts'),
  'finalize.ts': () => import('../functions/finalize.ts'),
};
