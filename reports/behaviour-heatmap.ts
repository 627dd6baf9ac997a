// Where a group's runs went on one maze (the viewer's heatmap): one cell of a sweep is one agent and setting on one
// maze, and its runs that ended as a success or a failure (copies included: a deterministic agent's copies walk the
// same path) are summed cell by cell, each cell's entries by a move (cellEntries), with the cell where each run that
// failed stopped making progress (reports/behaviour.ts).
import type { Sql } from '../core/store/sql.ts';
import { finishedCellRuns } from '../results/run-moves.ts';
import { cellEntries } from './behaviour.ts';
import { packMaze, type ReplayData } from './replay-data.ts';
import { loadRuns, type LoadedRun } from './run-behaviours.ts';

export interface CellHeatmap {
  cell: number;
  /** The maze as every page draws it; null when the cell has no finished run yet. */
  maze: ReplayData['maze'] | null;
  /** Each run counted: its repeat, outcome, moves, and for a failure where its progress stopped. */
  runs: Array<{
    experimentId: string;
    repeat: number;
    goalFound: boolean;
    moves: number;
    progress: { lastStep: number; x: number; y: number; stepsAfter: number } | null;
  }>;
  /** Every cell entered by a move, [x, y, entries summed over the runs], most entered first (ties by y, x). */
  visits: Array<[number, number, number]>;
  /** Every cell where some run's progress stopped, [x, y, runs], most first (ties by y, x). */
  stuck: Array<[number, number, number]>;
}

/** Counts by cell index as [x, y, count], most first, then by y and x. */
function ranked(counts: Map<number, number> | Uint32Array, width: number): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  counts.forEach((n, i) => {
    if (n > 0) out.push([i % width, Math.floor(i / width), n]);
  });
  return out.sort((a, b) => b[2] - a[2] || a[1] - b[1] || a[0] - b[0]);
}

function summed(runs: LoadedRun[], width: number, height: number) {
  const visits = new Uint32Array(width * height);
  const stuck = new Map<number, number>();
  for (const r of runs) {
    cellEntries(r.trace, width, height).forEach((n, i) => (visits[i] += n));
    const p = r.behaviour.progress;
    if (p) stuck.set(p.y * width + p.x, (stuck.get(p.y * width + p.x) ?? 0) + 1);
  }
  return { visits: ranked(visits, width), stuck: ranked(stuck, width) };
}

/** The heatmap of cell `cell` of sweep `sweepId`: every finished run of it, summed on its maze. */
export async function cellHeatmap(db: Sql, sweepId: string, cell: number): Promise<CellHeatmap> {
  const finished = await finishedCellRuns(db, sweepId, cell);
  const loaded = await loadRuns(
    db,
    finished.map((r) => r.experiment_id),
  );
  const repeatOf = new Map(finished.map((r) => [r.experiment_id, r.repeat]));
  const runs = loaded.sort((a, b) => repeatOf.get(a.row.experiment_id)! - repeatOf.get(b.row.experiment_id)!);
  const maze = runs[0]?.maze;
  return {
    cell,
    maze: maze ? packMaze(maze) : null,
    runs: runs.map((r) => ({
      experimentId: r.row.experiment_id,
      repeat: repeatOf.get(r.row.experiment_id)!,
      goalFound: r.row.goal_found,
      moves: r.behaviour.moves,
      progress: r.behaviour.progress,
    })),
    ...(maze ? summed(runs, maze.width, maze.height) : { visits: [], stuck: [] }),
  };
}
