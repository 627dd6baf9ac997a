// A sweep against its plan in words (results/sweep-plan.ts), the same in `ariadne stats`, the report, the viewer's
// sweep page and the paper tables: "N of M planned runs ended", and when some did not, which cells miss which
// repeats, the first few named and the rest summed by agent.
import type { SweepPlan } from '../results/sweep-plan.ts';
import { plural } from './words.ts';

/** Cells named in a table's notes; the rest are summed by agent. */
const NAMED = 10;

/** Whether every planned run ended. */
export const planComplete = (p: SweepPlan): boolean => p.ended === p.planned;

/** "24 of 24 planned runs ended", or, cut short, "incomplete: 4 of 24 planned runs ended (...)". */
function planSentence(p: SweepPlan): string {
  if (planComplete(p)) return `${p.ended} of ${p.planned} planned runs ended.`;
  const parts = [
    p.running > 0 ? `${p.running} started and not ended (running or interrupted)` : null,
    p.not_started > 0 ? `${p.not_started} not started` : null,
  ].filter(Boolean);
  return (
    `Incomplete: ${p.ended} of ${p.planned} planned runs ended (${parts.join(', ')}); ` +
    `${plural(p.missing_cell_count, 'cell')} miss runs, so these numbers are over a subset of the design.`
  );
}

/** One missing cell: "cell 3 gpt-4.1-mini | perfect 21 seed 3 | vision_range=3: repeats 1, 2 (2 not started)". */
function missingCellText(c: SweepPlan['missing_cells'][number]): string {
  const where = [c.label, c.maze, c.settings].filter(Boolean).join(' | ');
  const notStarted = c.not_started_repeats.length;
  const which =
    notStarted === c.missing_repeats.length
      ? 'not started'
      : notStarted === 0
        ? 'running or interrupted'
        : `${notStarted} not started, the rest running or interrupted`;
  return (
    `cell ${c.cell_index} ${where}: ${c.missing_repeats.length === 1 ? 'repeat' : 'repeats'} ` +
    `${c.missing_repeats.join(', ')} (${which})`
  );
}

/** The sentence, then the missing cells (the first NAMED), then the rest summed by agent. */
export function planLines(p: SweepPlan, named = NAMED): string[] {
  if (planComplete(p)) return [planSentence(p)];
  const shown = p.missing_cells.slice(0, named);
  const more = p.missing_cell_count - shown.length;
  return [
    planSentence(p),
    ...shown.map((c) => `missing: ${missingCellText(c)}`),
    ...(more > 0
      ? [
          `and ${plural(more, 'more cell')}; runs not ended by agent: ` +
            p.missing_by_label.map((l) => `${l.label} ${l.missing} (${l.not_started} not started)`).join(', '),
        ]
      : []),
  ];
}
