// What `ariadne compare SWEEP --all` prints: per combination of the other settings, the table of every pair of
// agents (difference, interval, raw and Holm p) and the ranking in tie groups; --json the same data whole.
import type { AllPairsComparison, RankingGroup } from '../../reports/compare-all.ts';
import type { PairResult, RankedAgent } from '../../reports/agent-ranking.ts';
import { formatInterval, formatNumber, formatRate } from '../../reports/stat-format.ts';
import { renderTable, terminalWidth, wrapText, type Column } from './table.ts';

const interval = (low: number | null, high: number | null) =>
  low === null || high === null ? '- (too few mazes)' : `[${low.toFixed(4)}, ${high.toFixed(4)}]`;

const PAIR_COLUMNS: Column<PairResult>[] = [
  { header: 'a', cell: (p) => p.a, cut: true },
  { header: 'b', cell: (p) => p.b, cut: true },
  { header: 'mazes', cell: (p) => p.mazes, align: 'right' },
  { header: 'differ', cell: (p) => p.differing, align: 'right', drop: 1 },
  { header: 'a - b', cell: (p) => formatNumber(p.diff, 4), align: 'right' },
  { header: '95% interval', cell: (p) => interval(p.low95, p.high95) },
  { header: 'p', cell: (p) => formatNumber(p.p, 4), align: 'right' },
  { header: 'Holm p', cell: (p) => formatNumber(p.holmP, 4), align: 'right' },
];

const RANK_COLUMNS: Column<RankedAgent>[] = [
  { header: 'rank', cell: (r) => r.rank, align: 'right' },
  { header: 'agent', cell: (r) => r.agent, cut: true },
  { header: 'success', cell: (r) => formatRate(r.successRate), align: 'right' },
  { header: '95% interval', cell: (r) => formatInterval(r.low95, r.high95), drop: 1 },
  { header: 'mazes', cell: (r) => r.mazes, align: 'right', drop: 2 },
  { header: 'tie group', cell: (r) => r.tieGroup.join(', '), cut: true },
];

function settingsText(settings: Record<string, unknown>): string {
  const parts = Object.entries(settings).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return parts.length > 0 ? parts.join(' ') : 'all runs';
}

/** A sentence wrapped to the width, later lines indented under it. */
const say = (text: string, width: number) => wrapText(text, width, text.startsWith(' ') ? '    ' : '  ');

function groupLines(g: RankingGroup, width: number): string[] {
  // tables are fitted, not wrapped: wrapping would close up their padding
  const layout = { width: width - 2 };
  const pairs = renderTable(g.pairs, PAIR_COLUMNS, layout).lines;
  const ranks = renderTable(g.ranking, RANK_COLUMNS, layout).lines;
  return [
    ...say(`${settingsText(g.settings)}: ${g.tests} pairs tested, Holm's adjustment over them`, width),
    ...pairs.map((l) => `  ${l}`),
    ...say(
      `  ranking: rank = 1 + the agents significantly better (Holm p <= ${g.alpha}); a tie group shares a rank: ` +
        'the data cannot separate its agents at this level',
      width,
    ),
    ...ranks.map((l) => `  ${l}`),
    ...g.notes.flatMap((n) => say(`  ${n}`, width)),
  ];
}

/** The comparison as text fitted to the terminal, or as JSON. */
export function showAllPairs(c: AllPairsComparison, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(c, null, 2)}\n`);
    return;
  }
  const width = terminalWidth();
  const lines = [
    ...say(
      `every pair of ${c.agents.length} agents in sweep ${c.sweep} (same maze, settings, repeat; the maze is the ` +
        'unit: tests and intervals over mazes; differ: mazes whose pairs differ, which bound p; a - b: success of a ' +
        'minus b)',
      width,
    ),
    ...c.groups.flatMap((g) => groupLines(g, width)),
    ...c.notes.flatMap((n) => say(`  ${n}`, width)),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
