// A run's belief probes (migration 033, core/engine/belief-probe.ts) as `ariadne summary` shows them: each probe's
// scores, and their means over the answered probes, each weighing the same. A malformed answer counts (it claims no
// cell: accuracy 0); a failed or skipped probe has no answer and counts only as asked, in no mean.
import type { Sql } from '../core/store/sql.ts';
import { readPaged } from '../core/store/pages.ts';

/** One probe's scores: accuracies over the cells it was shown; null where there is nothing to divide by. */
export interface BeliefProbeScores {
  turn: number;
  step: number;
  status: 'scored' | 'malformed' | 'failed' | 'skipped';
  problem: string | null;
  shown_cells: number | null;
  cell_accuracy: number | null;
  wall_accuracy: number | null;
  open_accuracy: number | null;
  claimed_unshown: number | null;
  claimed_unshown_correct: number | null;
  position_error: number | null;
}

/** The probes of a run together: counts by status and the means of their scores (each probe weighs the same). */
export interface BeliefProbeTotals {
  asked: number;
  scored: number;
  malformed: number;
  failed: number;
  skipped: number;
  /** Scored and malformed: the probes the means are over (failed and skipped ones are in none). */
  answered: number;
  /** Over the answered probes, a malformed one counting 0. */
  cell_accuracy: number | null;
  wall_accuracy: number | null;
  open_accuracy: number | null;
  /** Cells claimed that the model was never shown, per answered probe (a malformed one claims none). */
  claimed_unshown: number | null;
  /** Over the probes that gave a position, and how many did. */
  position_error: number | null;
  positions_given: number;
}

type Row = Omit<BeliefProbeScores, 'turn' | 'step'> & { turn_number: number; step_number: number };

/** Each belief probe of `experimentId`, in turn order, read in pages (a long run may have thousands). */
export async function beliefProbesOf(db: Sql, experimentId: string): Promise<BeliefProbeScores[]> {
  const rows = await readPaged<Row>(
    async (last, limit) =>
      (
        await db.query<Row>(
          `SELECT turn_number, step_number, status, problem, shown_cells,
             correct_cells::float8 / nullif(shown_cells, 0) AS cell_accuracy,
             correct_walls::float8 / nullif(shown_walls, 0) AS wall_accuracy,
             correct_open::float8 / nullif(shown_open, 0) AS open_accuracy,
             claimed_unshown, claimed_unshown_correct, position_error
           FROM belief_probes WHERE experiment_id = $1 AND turn_number > $2 ORDER BY turn_number LIMIT $3`,
          [experimentId, last?.turn_number ?? 0, limit],
        )
      ).rows,
  );
  return rows.map(({ turn_number, step_number, ...r }) => ({ turn: turn_number, step: step_number, ...r }));
}

const mean = (xs: Array<number | null>): number | null => {
  const kept = xs.filter((x): x is number => x !== null);
  return kept.length === 0 ? null : kept.reduce((a, b) => a + b, 0) / kept.length;
};

/** The probes' counts and mean scores; null when the run asked none. */
export function beliefProbeTotals(probes: readonly BeliefProbeScores[]): BeliefProbeTotals | null {
  if (probes.length === 0) return null;
  const answered = probes.filter((p) => p.status === 'scored' || p.status === 'malformed');
  const count = (status: BeliefProbeScores['status']) => probes.filter((p) => p.status === status).length;
  const given = answered.filter((p) => p.position_error !== null);
  return {
    asked: probes.length,
    scored: count('scored'),
    malformed: count('malformed'),
    failed: count('failed'),
    skipped: count('skipped'),
    answered: answered.length,
    cell_accuracy: mean(answered.map((p) => p.cell_accuracy)),
    wall_accuracy: mean(answered.map((p) => p.wall_accuracy)),
    open_accuracy: mean(answered.map((p) => p.open_accuracy)),
    claimed_unshown: mean(answered.map((p) => p.claimed_unshown)),
    position_error: mean(given.map((p) => p.position_error)),
    positions_given: given.length,
  };
}
