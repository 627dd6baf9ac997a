// npm run bench: every benchmark in turn, figures printed, nothing asserted.
import { engineBench } from './engine.ts';
import { providersBench } from './providers.ts';
import { costBench } from './cost.ts';
import { idleCostBench } from './idle-cost.ts';
import { detectorsBench } from './detectors.ts';
import { replayBench } from './replay.ts';
import { loadBench } from './load.ts';
import { mutationBench } from './mutation.ts';
import { rehearsalBench } from './rehearsal.ts';
import { resultsAwsBench } from './results-aws.ts';
import { viewerBench } from './viewer.ts';
import { summariesBench } from './summaries.ts';
import { searchBench } from './search.ts';
import { cliStartupBench } from './cli-startup.ts';

// in this order: the quick figures first, the long load, rehearsal and export runs last
const benches: Array<() => unknown> = [
  engineBench,
  providersBench,
  costBench,
  idleCostBench,
  detectorsBench,
  replayBench,
  viewerBench,
  summariesBench,
  searchBench,
  cliStartupBench,
  loadBench,
  rehearsalBench,
  resultsAwsBench,
];
for (const bench of benches) {
  await bench();
  console.log('');
}
mutationBench(); // from the last `npm run mutate` report: Stryker itself is never run here
