// Deterministic repeats in words: the statistics views count a run that
// exactly repeats a deterministic one (same agent, maze, seed and settings)
// once (migration 007). The report and `ariadne compare` say so next to the
// numbers, so nobody reads n = 20 where there were 4 observations.

/** An agent label's runs: all of them, and the independent observations among them. */
export interface LabelRuns {
  label: string;
  runs: number;
  independent: number;
}

/** Runs per label from sweep_stats rows (their n and n_independent), in the rows' order. */
export function labelRuns(stats: ReadonlyArray<Record<string, unknown>>): LabelRuns[] {
  const byLabel = new Map<string, LabelRuns>();
  for (const s of stats) {
    const label = String(s.label);
    const r = byLabel.get(label) ?? { label, runs: 0, independent: 0 };
    r.runs += Number(s.n);
    r.independent += Number(s.n_independent);
    byLabel.set(label, r);
  }
  return [...byLabel.values()];
}

/**
 * e.g. "frontier: its 5 repeats per cell are deterministic (same maze, seed and settings), counted once:
 * n = 4 independent runs, not 20"; null when none of the label's runs was a copy.
 */
export function repeatsNote(r: LabelRuns, repeats: number): string | null {
  if (r.independent >= r.runs) return null;
  const what =
    r.runs === r.independent * repeats
      ? `its ${repeats} repeats per cell are deterministic (same maze, seed and settings), counted once`
      : `${r.runs - r.independent} of its ${r.runs} runs exactly repeat a deterministic run ` +
        '(same maze, seed and settings) and are counted once';
  return `${r.label}: ${what}: n = ${r.independent} independent runs, not ${r.runs}`;
}
