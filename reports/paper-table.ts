// A sweep's statistics as a table to paste into a paper: Markdown (GitHub's pipe tables) or LaTeX (booktabs), with
// a caption that names the sweep and its factors and notes that say what each count and interval includes and
// excludes. The numbers are the stats command's (reports/sweep-statistics.ts), only laid out.
import { sequentialText, type SequentialState } from './sequential-stop.ts';
import type { GroupStatistics, SweepStatistics } from './sweep-statistics.ts';
import { MIN_BOOTSTRAP_MAZES } from './maze-inference.ts';
import { STOP_REASON_WORDS, STOP_REASONS } from '../results/stop-reasons.ts';
import type { SweepPlan } from '../results/sweep-plan.ts';
import { planComplete, planLines } from './plan-text.ts';
import { PAPER_BEHAVIOUR_NOTES } from './behaviour-text.ts';

export const PAPER_FORMATS = ['markdown', 'latex'] as const;

export interface PaperTable {
  caption: string;
  columns: Array<{ header: string; align: 'left' | 'right' }>;
  rows: string[][];
  /** What the counts and intervals include and exclude, one sentence each. */
  notes: string[];
}

const pct = (x: number | null) => (x === null ? '-' : (x * 100).toFixed(1));
const interval = (low: number | null, high: number | null) =>
  low === null || high === null ? '-' : `[${pct(low)}, ${pct(high)}]`;
const fixed = (x: number | null, digits: number) => (x === null ? '-' : x.toFixed(digits));

// cents, or two significant digits below a cent (a small model's sweep can cost $0.0031)
const usd = (x: number | null) => (x === null ? '-' : x === 0 || x >= 0.01 ? x.toFixed(2) : x.toPrecision(2));
const factorText = (v: unknown): string =>
  typeof v === 'string' ? v : v === null || v === undefined ? '-' : JSON.stringify(v);

/** The bootstrap cell: its interval, or why there is none. */
const bootstrapCell = (g: GroupStatistics) =>
  g.success.bootstrapStatus === 'too few mazes'
    ? 'too few mazes'
    : interval(g.success.bootstrap.low, g.success.bootstrap.high);

/** The behaviour columns (reports/behaviour-statistics.ts), where the statistics were asked for them. */
const BEHAVIOUR_COLUMNS: Array<{ header: string; cell: (g: GroupStatistics) => string }> = [
  { header: 'looped %', cell: (g) => pct(g.behaviour!.looped.value) },
  { header: 'looped 95% CI', cell: (g) => interval(g.behaviour!.looped.low, g.behaviour!.looped.high) },
  { header: 'revisit ratio', cell: (g) => fixed(g.behaviour!.revisitRatio.value, 3) },
  { header: 'wall bumps / 100 attempts', cell: (g) => fixed(g.behaviour!.wallBumpsPer100.value, 1) },
  { header: 'tiles vs frontier', cell: (g) => fixed(g.behaviour!.explorationEfficiency.value, 3) },
];

/** The table: one row per group, the factors first; rates and intervals in percent. */
export function paperTable(
  sweepId: string,
  s: SweepStatistics,
  plan?: SweepPlan,
  sequential?: SequentialState | null,
): PaperTable {
  const excluded = (g: GroupStatistics) => g.errors + g.wallClock + g.running;
  // baselines cost nothing: the column only where some group's runs called a model (or its price is unknown)
  const anyCost = s.groups.some((g) => g.costUsd !== 0);
  const behaviour = s.groups.length > 0 && s.groups.every((g) => g.behaviour) ? BEHAVIOUR_COLUMNS : [];
  const columns: PaperTable['columns'] = [
    ...s.factors.map((f) => ({ header: f, align: 'left' as const })),
    { header: 'n', align: 'right' },
    { header: 'independent', align: 'right' },
    { header: 'mazes', align: 'right' },
    { header: 'success %', align: 'right' },
    { header: 'maze-level 95% CI', align: 'right' },
    { header: 'maze bootstrap 95% CI', align: 'right' },
    { header: 'excluded', align: 'right' },
    { header: 'SPL', align: 'right' },
    { header: 'efficiency of successes', align: 'right' },
    { header: 'actions', align: 'right' },
    ...(anyCost ? [{ header: 'cost (USD)', align: 'right' as const }] : []),
    ...behaviour.map((c) => ({ header: c.header, align: 'right' as const })),
  ];
  const rows = s.groups.map((g) => [
    // a factor's value is a label, a number, a boolean or a setting's JSON value
    ...s.factors.map((f) => factorText(g.factors[f])),
    String(g.n),
    String(g.independent),
    String(g.mazes),
    pct(g.success.rate),
    interval(g.success.maze.low, g.success.maze.high),
    bootstrapCell(g),
    String(excluded(g)),
    fixed(g.spl.mean, 3),
    fixed(g.efficiency.mean, 3),
    fixed(g.meanActions, 1),
    ...(anyCost ? [usd(g.costUsd)] : []),
    ...behaviour.map((c) => c.cell(g)),
  ]);
  return {
    caption:
      `Sweep ${sweepId}: success by ${s.factors.join(' x ')}` +
      (plan && !planComplete(plan) ? ` (incomplete: ${plan.ended} of ${plan.planned} planned runs).` : '.') +
      (sequential?.decided ? ` Stopped by its stop_when rule after ${sequential.decided.atMazes} mazes.` : ''),
    columns,
    rows,
    notes: [
      ...paperNotes(s, anyCost),
      ...(behaviour.length > 0 ? PAPER_BEHAVIOUR_NOTES : []),
      ...provenanceNotes(s),
      // how much of the design the table covers (the caption says when it is incomplete): the cells it misses
      ...(plan ? planLines(plan) : []),
      // an adaptive stop: the sequence is what holds, and the fixed-sample intervals above are not valid after it
      ...(sequential ? [sequentialText(sequential, plan !== undefined && !planComplete(plan))] : []),
    ],
  };
}

/** What each count and interval of the paper table includes and excludes, with the sweep's own numbers. */
function paperNotes(s: SweepStatistics, anyCost: boolean): string[] {
  const total = (f: (g: GroupStatistics) => number) => s.groups.reduce((sum, g) => sum + f(g), 0);
  const dependent = total((g) => g.n - g.independent);
  const ended = STOP_REASONS.map((r) => [r, total((g) => g.stopReasons[r])] as const).filter(([, n]) => n > 0);
  return [
    'n counts the runs that succeeded or failed, every repeat.',
    `Excluded from every denominator: runs ended by an infrastructure error (${total((g) => g.errors)} in all), ` +
      `runs stopped by the wall clock (${total((g) => g.wallClock)}: how far a run got in its minutes depends on ` +
      `the serving stack) and runs still running (${total((g) => g.running)}).`,
    `How the runs ended: ${ended.map(([r, n]) => `${STOP_REASON_WORDS[r]} ${n}`).join(', ') || 'none ended'}.`,
    `Attempts: ${total((g) => g.attempts)} for ${total((g) => g.runs)} runs; ${total((g) => g.erroredAttempts)} ` +
      `ended in error (${total((g) => g.retriedErrors)} of them retried to a finished run); tokens and cost count ` +
      'every attempt and every answered call.',
    'Success % and its intervals are over the independent runs (independent): the repeats of a deterministic ' +
      `agent that took the same trajectory count once (${dependent} such repeat${dependent === 1 ? '' : 's'} in ` +
      'all).',
    'The maze is the unit of replication (mazes: how many each row is over). The maze-level 95% interval is ' +
      "Korn and Graubard's Clopper-Pearson interval on the effective sample size (the design effect of repeats on " +
      'one maze, the worst case at 0% or 100%) with Student t on mazes - 1 degrees of freedom.',
    `The maze bootstrap 95% interval resamples mazes (${s.resamples} resamples, seed ${s.seed}, percentile); it ` +
      `is not drawn from fewer than ${MIN_BOOTSTRAP_MAZES} mazes (too few mazes), and the maze-level interval ` +
      'stands in where it collapses at 0% or 100%.',
    'SPL is success weighted by path length (optimal / max(actions, optimal) for a success, 0 for a failure), ' +
      'over the independent runs; efficiency is the mean of optimal moves / actions over the independent ' +
      'successes only, so it rises when failures end early; actions is the mean over the independent runs' +
      (anyCost
        ? "; cost is what every run of the group cost in all, errors included ('-' when a run's model has no price)."
        : '.'),
  ];
}

/**
 * What the rows rest on when it is not what they name: prompts cut to a server's window, simulated answers, runs
 * the cache answered.
 */
export function provenanceNotes(s: {
  groups: ReadonlyArray<Pick<GroupStatistics, 'runs' | 'promptTruncatedRuns' | 'simulatedRuns' | 'cached'>>;
}): string[] {
  const total = (f: (g: (typeof s.groups)[number]) => number) => s.groups.reduce((sum, g) => sum + f(g), 0);
  const cut = total((g) => g.promptTruncatedRuns);
  const simulated = total((g) => g.simulatedRuns);
  const runs = total((g) => g.runs);
  const cached = total((g) => g.cached);
  const notes: string[] = [];
  if (cached > 0)
    notes.push(
      `${cached} run${cached === 1 ? ' was' : 's were'} answered wholly from the cache (config.cache): a copy of ` +
        'answers a counted run already gave, in no n and no denominator.',
    );
  if (cut > 0)
    notes.push(
      `${cut} run${cut === 1 ? '' : 's'} had a prompt cut to the server's context window (the model was not shown ` +
        'all of its prompt); they are counted as they ended.',
    );
  if (simulated > 0)
    notes.push(
      simulated === runs
        ? 'Every row is simulated: a bundled simulator answered the model calls, not the models named.'
        : `Rows with simulated true (${simulated} run${simulated === 1 ? '' : 's'}) were answered by a bundled ` +
            'simulator, not the models named; they are never pooled with real runs.',
    );
  return notes;
}

/** A Markdown pipe table, the caption above it and the notes below it. */
export function markdownTable(t: PaperTable): string {
  const cell = (text: string) => text.replaceAll('\\', '\\\\').replaceAll('|', '\\|').replace(/\s+/g, ' ');
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [
    `**${cell(t.caption)}**`,
    '',
    line(t.columns.map((c) => c.header)),
    `|${t.columns.map((c) => (c.align === 'right' ? ' ---: ' : ' :--- ')).join('|')}|`,
    ...t.rows.map(line),
    '',
    ...t.notes.map(cell),
    '',
  ].join('\n');
}

const LATEX_SPECIALS: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '{': '\\{',
  '}': '\\}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
};

/** Text as LaTeX typesets it literally: its ten special characters escaped. */
export function latexText(text: string): string {
  return text.replace(/[\\&%$#_{}~^]/g, (c) => LATEX_SPECIALS[c]).replace(/\s+/g, ' ');
}

/** A booktabs table in a table float (needs \usepackage{booktabs}), the notes under the rule, the caption above. */
export function latexTable(t: PaperTable, label: string): string {
  const spec = t.columns.map((c) => (c.align === 'right' ? 'r' : 'l')).join('');
  // a row's first cell opening with "[" would be read as the optional argument of the \\ before it: braced
  const line = (cells: string[]) =>
    `    ${cells.map((c) => (c.startsWith('[') ? `{}${latexText(c)}` : latexText(c))).join(' & ')} \\\\`;
  return [
    '% needs \\usepackage{booktabs}',
    '\\begin{table}[t]',
    '  \\centering',
    `  \\caption{${latexText(t.caption)}}`,
    `  \\label{${label.replace(/[^A-Za-z0-9:_-]/g, '-')}}`,
    `  \\begin{tabular}{${spec}}`,
    '    \\toprule',
    line(t.columns.map((c) => c.header)),
    '    \\midrule',
    ...t.rows.map(line),
    '    \\bottomrule',
    '  \\end{tabular}',
    '',
    `  \\par\\smallskip\\footnotesize ${t.notes.map(latexText).join(' ')}`,
    '\\end{table}',
    '',
  ].join('\n');
}
