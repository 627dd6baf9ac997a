// What is running now, in words: a sweep's totals and how many experiments run (results/live-status.ts reads them;
// the CLI shows the running experiments as a table under these lines).
import type { RunningExperiment, SweepTotals } from '../results/live-status.ts';

/**
 * The lines above the table of running experiments (the CLI's, redrawn in place by the caller): the sweep's
 * totals, if one is asked for, and how many run.
 */
export function statusLines(running: RunningExperiment[], totals: SweepTotals | null): string[] {
  const lines: string[] = [];
  if (totals) {
    const done = totals.completed + totals.failed;
    lines.push(
      `sweep ${totals.sweep_id}: ${done}/${totals.runs} done, ${totals.running} running, ` +
        `${totals.runs - totals.started} not started, ${totals.failed} failed, goal found ${totals.goal_found}, ` +
        `${totals.actions} actions, $${totals.cost_usd.toFixed(4)} so far`,
    );
  }
  const stale = running.filter((r) => r.stale).length;
  const interrupted = running.filter((r) => r.interrupted).length;
  lines.push(
    `${running.length} experiment(s) running${stale ? `, ${stale} stale` : ''}` +
      `${interrupted ? `, ${interrupted} interrupted (resumable)` : ''}`,
  );
  return lines;
}
