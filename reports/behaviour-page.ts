// The sweep report's behaviour section: per agent, settings and maze, how the runs moved (reports/behaviour-statistics
// .ts), each figure with its maze-level interval in the words behaviour-text.ts writes, and what each counts.
import { escapeHtml } from './html.ts';
import type { ReportData } from './report-data.ts';
import { BEHAVIOUR_NOTES, behaviourText } from './behaviour-text.ts';
import { settingsText } from './stat-text.ts';

const HEADINGS = [
  'agent',
  'settings',
  'maze',
  'size',
  'runs',
  'looped (maze 95%)',
  'revisit ratio',
  'wall bumps / 100 move attempts',
  'dead-end re-entries / 100 moves',
  'oscillation moves / 100 moves',
  'tiles vs frontier',
  'steps after progress stopped (failures)',
];

/** One row per statistics row that has its behaviour. */
function rows(stats: ReportData['stats']): string[] {
  return stats.flatMap((r) => {
    if (!r.behaviour) return [];
    const t = behaviourText(r.behaviour);
    const text = [r.label, settingsText(r.settings), r.maze_generator];
    const numbers = [r.maze_size, r.behaviour.runs, t.looped, t.revisits, t.wallBumps, t.deadEnds, t.oscillations];
    return [
      `<tr>${text.map((v) => `<td>${escapeHtml(v)}</td>`).join('')}` +
        `${[...numbers, t.exploration, t.stalled].map((v) => `<td class="n">${escapeHtml(v)}</td>`).join('')}</tr>`,
    ];
  });
}

/** The section, or nothing when the statistics were read without behaviour. */
export function behaviourSection(stats: ReportData['stats']): string {
  const body = rows(stats);
  if (body.length === 0) return '';
  return `<h2>How the runs moved (why runs fail)</h2>
<ul class="note" id="behaviour-notes">${BEHAVIOUR_NOTES.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>
<table id="behaviour"><thead><tr>${HEADINGS.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>
${body.join('\n')}
</tbody></table>`;
}
