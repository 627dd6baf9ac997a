import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { RUN_DIR } from './test/support/run-dir.ts';
import { SlowestFirst } from './test/support/slow-first.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // The files of a worker run one after another in one process, sharing the modules they import: each file's
    // own fresh copy of the AWS SDK, pg, zod... cost 58 s of the suite's CPU (vitest's "import"), 14 s shared
    // (the suite 360 -> 300 s on 2 cores). What a file leaves behind must not reach the next: per-file.ts puts
    // process.env back; modules read the environment when called, not when imported (migrate.ts's MIGRATIONS_DIR).
    isolate: false,
    setupFiles: ['test/support/per-file.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Three files at a time on the 2-core CI machine (the default is one fewer than the cores): most files wait on
    // child processes (the CLI, Lambda bundles, Postgres), so a third keeps the cores busy (325 s against 358 s
    // with two, 2026-11-28).
    maxWorkers: 3,
    sequence: { sequencer: SlowestFirst },
    // On Node 20: the CLI's end-of-life line would be read as an error by the CLI tests that check stderr for
    // "ariadne:", and the AWS SDK's multi-line warning would repeat in each worker that builds a client.
    // test/node-version.test.ts clears both to see what a user sees. Spawned CLIs inherit process.env.
    // What a CLI writes beside the user's files (log lines, a default database, the once-a-day notice) goes into
    // this run's own directory: never the user's, never another run's.
    env: {
      ARIADNE_NO_NODE_WARNING: '1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ARIADNE_LOG_DIR: join(RUN_DIR, 'logs'),
      ARIADNE_DATA_DIR: join(RUN_DIR, 'postgres'),
      XDG_CACHE_HOME: join(RUN_DIR, 'cache'),
    },
  },
});
