// npm run bench: every benchmark in turn, figures printed, nothing asserted. Each runs in a child process of its
// own, so one's peak RSS, heap and warmed caches are not another's (the load benchmark's peak RSS was the whole
// run's, 704 MB after the million-action seeds, against 208 MB alone); each child hands its figures back in a file,
// and the parent prints them side by side at the end.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { figuresTable, recordedFigures, type Figure } from './figures.ts';

// in this order: the quick figures first, the long load, rehearsal and export runs last; by name,
// `npm run bench -- summaries search` runs those alone (the mutation report is read only when none is named)
const benches: Record<string, () => Promise<unknown>> = {
  calibration: async () => (await import('./calibration.ts')).calibrationBench(),
  sequential: async () => (await import('./sequential.ts')).sequentialBench(),
  ranking: async () => (await import('./ranking.ts')).rankingBench(),
  power: async () => (await import('./power.ts')).powerBench(),
  engine: async () => (await import('./engine.ts')).engineBench(),
  providers: async () => (await import('./providers.ts')).providersBench(),
  'flight-recorder': async () => (await import('./flight-recorder.ts')).flightRecorderBench(),
  cost: async () => (await import('./cost.ts')).costBench(),
  'idle-cost': async () => (await import('./idle-cost.ts')).idleCostBench(),
  'function-lengths': async () => (await import('./function-lengths.ts')).functionLengthsBench(),
  detectors: async () => (await import('./detectors.ts')).detectorsBench(),
  replay: async () => (await import('./replay.ts')).replayBench(),
  viewer: async () => (await import('./viewer.ts')).viewerBench(),
  summaries: async () => (await import('./summaries.ts')).summariesBench(),
  'sweep-pairs': async () => (await import('./sweep-pairs.ts')).sweepPairsBench(),
  search: async () => (await import('./search.ts')).searchBench(),
  'cli-startup': async () => (await import('./cli-startup.ts')).cliStartupBench(),
  'suite-time': async () => (await import('./suite-time.ts')).suiteTimeBench(),
  load: async () => (await import('./load.ts')).loadBench(),
  rehearsal: async () => (await import('./rehearsal.ts')).rehearsalBench(),
  'results-aws': async () => (await import('./results-aws.ts')).resultsAwsBench(),
  soak: async () => (await import('./soak.ts')).soakBench(),
};

const [mode, name, figuresFile] = process.argv.slice(2);
if (mode === '--child') {
  // one benchmark, its figures written where the parent reads them
  await benches[name]();
  writeFileSync(figuresFile, JSON.stringify(recordedFigures()));
} else {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((n) => !(n in benches));
  if (unknown.length > 0) {
    console.error(
      `npm run bench: no benchmark named ${unknown.join(', ')}; the names: ${Object.keys(benches).join(', ')}`,
    );
    process.exit(2);
  }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-bench-'));
  const figures: Figure[] = [];
  const failed: string[] = [];
  try {
    for (const bench of Object.keys(benches)) {
      if (asked.length > 0 && !asked.includes(bench)) continue;
      const file = join(dir, `${bench}.json`);
      const child = spawnSync(
        process.execPath,
        ['--import', tsx, fileURLToPath(import.meta.url), '--child', bench, file],
        { stdio: 'inherit' },
      );
      if (child.status === 0) figures.push(...(JSON.parse(readFileSync(file, 'utf8')) as Figure[]));
      else failed.push(`${bench} (exit ${child.status ?? child.signal})`);
      console.log('');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(figuresTable(figures));
  if (asked.length === 0) (await import('./mutation.ts')).mutationBench(); // the last `npm run mutate` report
  if (failed.length > 0) {
    console.error(`npm run bench: failed: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}
