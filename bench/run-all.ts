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
import { cliStartupBench } from './cli-startup.ts';

await engineBench();
console.log('');
await providersBench();
console.log('');
await costBench();
console.log('');
idleCostBench();
console.log('');
detectorsBench();
console.log('');
await replayBench();
console.log('');
await viewerBench();
console.log('');
await cliStartupBench();
console.log('');
await loadBench();
console.log('');
await rehearsalBench();
console.log('');
await resultsAwsBench();
console.log('');
mutationBench(); // from the last `npm run mutate` report: Stryker itself is never run here
