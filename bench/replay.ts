/// <reference lib="dom" />
// The replay of a 10,000-action run (random agent, 101x101 perfect maze):
// file size, and time to first draw in headless Chromium (navigation start to
// the viewer's first frame), medians of 5 loads. Targets: under 5 MB, under 1 s.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openDatabase } from '../core/store/database.ts';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { loadReplay } from '../reports/replay-data.ts';
import { replayHtml } from '../reports/replay-page.ts';
import { launchBrowser } from '../test/support/browser.ts';
import { benchPostgres, fmt, timed } from './support.ts';

const LOADS = 5;

export async function replayBench(): Promise<void> {
  const pgServer = await benchPostgres();
  const db = await openDatabase({ url: pgServer.url, schema: 'bench_replay', poolSize: 4 });
  const browser = await launchBrowser();
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-replay-bench-'));
  try {
    const { experimentId, summary } = await runLocalExperiment(
      {
        agent: 'random',
        agentSeed: 1,
        maze: { generator: 'perfect', size: 101, seed: 1 },
        config: { max_moves: 10_000 },
      },
      { db },
    );
    const built = await timed(async () => replayHtml(await loadReplay(db, experimentId!)));
    const file = join(dir, 'replay.html');
    writeFileSync(file, built.value);
    const bytes = Buffer.byteLength(built.value);
    const draws: number[] = [];
    const scrubs: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const page = await browser.newPage({ viewport: { width: 1300, height: 950 } });
      await page.goto(pathToFileURL(file).href);
      await page.waitForFunction(() => (window as any).__replay);
      draws.push(await page.evaluate(() => (window as any).__replay.firstDrawMs));
      // one redraw at the last step: the whole path and the known map
      scrubs.push(
        await page.evaluate(() => {
          const t = performance.now();
          (window as any).__replay.go(10_000);
          return performance.now() - t;
        }),
      );
      await page.close();
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(
      `replay: ${fmt(summary!.actions)}-action run (random agent, perfect 101x101), medians of ${LOADS} ` +
        `loads in headless Chromium`,
    );
    console.log(
      `  file ${fmt(bytes / 1e6, 2)} MB (target < 5 MB; ${fmt(bytes / 5e6, 2)}x of target), built from ` +
        `the database in ${fmt(built.seconds, 2)} s`,
    );
    console.log(
      `  first draw ${fmt(median(draws))} ms after navigation start (target < 1,000 ms; ` +
        `${fmt(median(draws) / 1000, 2)}x of target)`,
    );
    console.log(
      `  one frame at the last step (whole path, known map, cone) ${fmt(median(scrubs), 1)} ms ` +
        `(${fmt(1000 / median(scrubs))} frames/s possible)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await browser.close();
    await db.close();
    await pgServer.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await replayBench();
