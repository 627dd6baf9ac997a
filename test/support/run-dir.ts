// The directory this test run writes outside its own temp dirs: logs, a default data dir, the notice cache. One per
// run (the vitest process's pid), so two copies of the suite on one machine never share a file; removed at teardown.
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const RUN_DIR = join(tmpdir(), `ariadne-test-run-${process.pid}`);
