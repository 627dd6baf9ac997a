// The code that decides a maze suite's reference scores, and its content hash, recorded in the suite file so that a
// change to that code without making the scores again is caught (test/maze-suites.test.ts). The list: the maze
// generators and what they build on, the game's rules (turn, tools, moves, monitor, config defaults), the baselines,
// the sweep's cells, the statistics (reports/sweep-statistics.ts and the rows it reads, the noise floor), and every
// migration behind the sweep_runs view.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Files, or directories whose .ts files all count (not their subdirectories). */
const SUITE_CODE = [
  'core/maze/generators/',
  'core/maze/grid.ts',
  'core/maze/maze.ts',
  'core/maze/packed-grid.ts',
  'core/maze/rng.ts',
  'core/maze/solver.ts',
  'core/maze/vision.ts',
  'core/engine/game.ts',
  'core/engine/turn.ts',
  'core/engine/tools.ts',
  'core/engine/experiment.ts',
  'core/engine/agent-monitor.ts',
  'core/engine/frontier.ts',
  'core/config/experiment-config.ts',
  'core/providers/baselines.ts',
  'core/providers/random-agent.ts',
  'core/providers/frontier-agent.ts',
  'core/sweeps/sweep-spec.ts',
  'reports/sweep-statistics.ts',
  'reports/bootstrap.ts',
  'reports/noise-floor.ts',
  'results/statistics-runs.ts',
] as const;

/** A migration that creates or replaces the view the statistics read. */
const DEFINES_SWEEP_RUNS = /\bVIEW\s+sweep_runs\b/i;

/** The files of the stated list under `root`, sorted. */
export function suiteCodeFiles(root: string): string[] {
  const files = SUITE_CODE.flatMap((entry) =>
    entry.endsWith('/')
      ? readdirSync(join(root, entry))
          .filter((f) => f.endsWith('.ts'))
          .map((f) => `${entry}${f}`)
      : [entry],
  );
  const migrations = readdirSync(join(root, 'migrations'))
    .filter((f) => f.endsWith('.sql') && DEFINES_SWEEP_RUNS.test(readFileSync(join(root, 'migrations', f), 'utf8')))
    .map((f) => `migrations/${f}`);
  return [...files, ...migrations].sort();
}

/** SHA-256 over each file of the list in order: its path, its length in bytes, its bytes. */
export function suiteCodeHash(root: string): { files: string[]; hash: string } {
  const files = suiteCodeFiles(root);
  const hash = createHash('sha256');
  for (const f of files) {
    const bytes = readFileSync(join(root, f));
    hash.update(`${f}\n${bytes.length}\n`).update(bytes);
  }
  return { files, hash: hash.digest('hex') };
}

/** The commit checked out, and whether the listed files differ from it (then the code hash, not it, is the code). */
export function suiteCodeCommit(root: string, files: string[]): { commit: string; changed_since: boolean } {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  try {
    return { commit: git('rev-parse', 'HEAD'), changed_since: git('status', '--porcelain', '--', ...files) !== '' };
  } catch {
    return { commit: 'unknown (not a git checkout)', changed_since: true };
  }
}
