// The order test files start in: the slowest first. On a clean clone (CI) vitest has no timings of its own and
// starts the largest files first, so the long ones (the rehearsal, 60 s of CPU, 3 KB of text) started half way and
// ended alone while the other worker had nothing left: 289 s for 512 s of files on two workers. The files below,
// slowest first as CI measured them, start before the rest; the rest keep vitest's order (its timings when it has
// them). Only the order changes: a file missing from the list, or a renamed one, runs all the same.
import { basename } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const SLOWEST = [
  'rehearsal',
  'readme-commands',
  'cli',
  'cli-exit-codes',
  'rate-limits',
  'sweep-db-restart',
  'cdk-stack',
  'sweeps',
  'results-same-bytes',
  'results-aws',
  'cli-tables',
  'store-data-api',
  'cli-startup',
  'cli-providers',
  'faults',
  'cli-json',
  'launch',
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
