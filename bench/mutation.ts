// The mutation score per area, read from the last Stryker JSON report
// (mutation-testing-report-schema). `npm run mutate` prints it after Stryker;
// `npm run bench` prints it from the last report and never runs Stryker itself
// (a full run takes tens of minutes). `tsx bench/mutation.ts --files` adds one
// line per file, weakest first.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import { fmt } from './support.ts';

export const REPORT = 'reports/mutation/mutation.json';
const AREAS = ['engine', 'maze', 'store'] as const;

interface Counts {
  mutants: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  /** Ignored (static, with ignoreStatic) and compile or runtime errors: outside the score, as in Stryker. */
  invalid: number;
}

const empty = (): Counts => ({ mutants: 0, killed: 0, timeout: 0, survived: 0, noCoverage: 0, invalid: 0 });

/** Stryker's mutation score: detected over valid mutants (killed + timeout + survived + no coverage). */
export function score(c: Counts): number | null {
  const valid = c.killed + c.timeout + c.survived + c.noCoverage;
  return valid === 0 ? null : (100 * (c.killed + c.timeout)) / valid;
}

function add(c: Counts, status: string): void {
  c.mutants++;
  if (status === 'Killed') c.killed++;
  else if (status === 'Timeout') c.timeout++;
  else if (status === 'Survived') c.survived++;
  else if (status === 'NoCoverage') c.noCoverage++;
  else c.invalid++;
}

interface Report {
  files: Record<string, { mutants: Array<{ status: string }> }>;
}

/** Counts per area and per file; a file outside the three areas counts only in the total. */
export function tally(report: Report): { areas: Map<string, Counts>; files: Map<string, Counts> } {
  const areas = new Map<string, Counts>([...AREAS, 'total'].map((a) => [a, empty()]));
  const files = new Map<string, Counts>();
  for (const [path, file] of Object.entries(report.files)) {
    const rel = relative(process.cwd(), path).split('\\').join('/');
    const area = AREAS.find((a) => rel.startsWith(`core/${a}/`));
    const perFile = empty();
    for (const m of file.mutants) {
      add(perFile, m.status);
      if (area) add(areas.get(area)!, m.status);
      add(areas.get('total')!, m.status);
    }
    files.set(rel, perFile);
  }
  return { areas, files };
}

function table(rows: Array<[string, Counts]>): string {
  const head = ['', 'mutants', 'killed', 'timeout', 'survived', 'no coverage', 'ignored', 'score %'];
  const body = rows.map(([name, c]) => {
    const s = score(c);
    return [name, c.mutants, c.killed, c.timeout, c.survived, c.noCoverage, c.invalid]
      .map(String)
      .concat(s === null ? '-' : fmt(s, 1));
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  return [line(head), ...body.map(line)].join('\n');
}

export function mutationBench(options: { files?: boolean } = {}): void {
  console.log('mutation score (Stryker over core/engine, core/maze, core/store)');
  if (!existsSync(REPORT)) {
    console.log(`no report yet (${REPORT}): run \`npm run mutate\` to make one`);
    return;
  }
  const report = JSON.parse(readFileSync(REPORT, 'utf8')) as Report;
  console.log(`report ${REPORT} of ${statSync(REPORT).mtime.toISOString()}`);
  const { areas, files } = tally(report);
  console.log(table([...areas]));
  if (options.files) {
    const weakest = [...files].sort(([, a], [, b]) => (score(a) ?? 100) - (score(b) ?? 100));
    console.log('');
    console.log(table(weakest));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) mutationBench({ files: process.argv.includes('--files') });
