// The figures with targets: each benchmark records its own as it prints it, and `npm run bench`
// ends with all of them side by side, measured in the one run, each beside its target as a ratio.
import { fmt } from './support.ts';

export interface Figure {
  /** What was measured, and on what (the size goes in the words: "on 1,000,000 actions"). */
  what: string;
  measured: number;
  target: number;
  unit: string;
  /** Higher is better (a throughput ratio); by default lower is (a time, a size). */
  higherIsBetter?: boolean;
}

const figures: Figure[] = [];

export function recordFigure(figure: Figure): void {
  figures.push(figure);
}

/** What this process recorded. */
export function recordedFigures(): Figure[] {
  return [...figures];
}

/** Figures as a table: measured, target, measured / target, and whether the target is met. */
export function figuresTable(figures: readonly Figure[]): string {
  if (figures.length === 0) return '';
  const rows = figures.map((f) => {
    const met = f.higherIsBetter ? f.measured >= f.target : f.measured <= f.target;
    const digits = (n: number) => (Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2);
    return [
      f.what,
      `${fmt(f.measured, digits(f.measured))} ${f.unit}`,
      `${f.higherIsBetter ? '>=' : '<='} ${fmt(f.target, digits(f.target))} ${f.unit}`,
      `${fmt(f.measured / f.target, 2)}x`,
      met ? 'met' : 'NOT MET',
    ];
  });
  const head = ['figure', 'measured', 'target', 'ratio', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return ['figures against their targets (this run):', line(head), ...rows.map(line)].join('\n');
}
