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
import { figuresTable } from './figures.ts';

// in this order: the quick figures first, the long load, rehearsal and export runs last; by name,
// `npm run bench -- summaries search` runs those alone (the mutation report is read only when none is named)
const benches: Record<string, () => unknown> = {
  engine: engineBench,
  providers: providersBench,
  cost: costBench,
  'idle-cost': idleCostBench,
  detectors: detectorsBench,
  replay: replayBench,
  viewer: viewerBench,
  summaries: summariesBench,
  search: searchBench,
  'cli-startup': cliStartupBench,
  load: loadBench,
  rehearsal: rehearsalBench,
  'results-aws': resultsAwsBench,
};
const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in benches));
if (unknown.length > 0) {
  console.error(
    `npm run bench: no benchmark named ${unknown.join(', ')}; the names: ${Object.keys(benches).join(', ')}`,
  );
  process.exit(2);
}
for (const [name, bench] of Object.entries(benches)) {
  if (asked.length > 0 && !asked.includes(name)) continue;
  await bench();
  console.log('');
}
console.log(figuresTable());
if (asked.length === 0) mutationBench(); // from the last `npm run mutate` report: Stryker itself is never run here
