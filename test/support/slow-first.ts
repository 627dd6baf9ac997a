// The order test files start in: the slowest first. On a clean clone (CI) vitest has no timings of its own and
// starts the largest files first, so a long one started late ends alone while the other workers have nothing left.
// The files below, the suite's 24 longest (2026-11-28), first, start before the rest; the rest keep vitest's order
// (its timings when it has them). Only the order changes: a file missing from the list, or renamed, runs all the same.
import { basename } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const SLOWEST = [
  'rehearsal',
  'readme-commands',
  'cdk-stack',
  'maze-suites',
  'status-outage',
  'faults',
  'rate-limits',
  'openai-provider',
  'cli-startup',
  'viewer',
  'provider-parity',
  'store-data-api',
  'prompt-combinations',
  'sweep-db-restart',
  'sweeps',
  'spend-budgets',
  'provider-accounting',
  'node-version',
  'turn-deadline',
  'llm-agents',
  'viewer-live-updates',
  'image-observations',
  'sweep-order',
  'rehearsal-runtime',
];

export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = SLOWEST.indexOf(basename(f.moduleId, '.test.ts'));
      return i < 0 ? SLOWEST.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b)); // stable: the rest keep vitest's order
  }
}
