// How long `npm test` takes on this machine, whole (vitest's own start, the global setup, every file), with what it
// ran: the tests counted from vitest's JSON report, the slowest files, and the files' summed time against the wall
// time (how well the workers overlap). The target is CI's: the whole of .ci/run within 6 minutes on 2 cores.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordFigure } from './figures.ts';
import { fmt } from './support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CI_SECONDS = 360;

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  testResults: Array<{ name: string; startTime: number; endTime: number }>;
}

export function suiteTimeBench(): void {
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-suite-time-'));
  try {
    const out = join(dir, 'vitest.json');
    const started = process.hrtime.bigint();
    const r = spawnSync('npx', ['vitest', 'run', '--reporter=dot', '--reporter=json', `--outputFile.json=${out}`], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const report = JSON.parse(readFileSync(out, 'utf8')) as Report;
    const files = report.testResults
      .map((t) => ({ file: t.name.slice(ROOT.length), seconds: (t.endTime - t.startTime) / 1000 }))
      .sort((a, b) => b.seconds - a.seconds);
    const summed = files.reduce((sum, f) => sum + f.seconds, 0);
    console.log(
      `suite: npm test took ${fmt(seconds, 0)} s (${fmt(seconds / CI_SECONDS, 2)}x CI's 360 s for the whole run; ` +
        `${availableParallelism()} cores, load ${fmt(loadavg()[0], 2)}), exit ${r.status}: ` +
        `${report.numPassedTests} passed, ${report.numFailedTests} failed in ${files.length} files; the files' ` +
        `times add up to ${fmt(summed, 0)} s, ${fmt(summed / seconds, 2)}x the wall time`,
    );
    for (const f of files.slice(0, 5)) console.log(`  ${fmt(f.seconds, 1).padStart(6)} s  ${f.file}`);
    recordFigure({ what: 'npm test, whole (of CI: at most 6 min)', measured: seconds, target: CI_SECONDS, unit: 's' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) suiteTimeBench();
