// The agent's phases over a run and its stuck signals: what `ariadne summary` shows below the numbers.
import type { Sql } from '../core/store/sql.ts';
import { readPaged } from '../core/store/pages.ts';

export interface AgentStory {
  /** Consecutive stretches of one phase: from the action after `fromStep` to `toStep`. */
  phases: Array<{ phase: string; fromStep: number; toStep: number }>;
  signals: Array<{ detector: string; step: number; turn: number; detail: string; policy: string }>;
  refusedTransitions: number;
}

/** A stuck signal as AgentStory has it, and its place in the turn (the key its pages are read by). */
type SignalRow = AgentStory['signals'][number] & { seq: number };

/** Read in keyset pages: a long run's transitions and signals can pass the Data API's 1 MiB per response. */
export async function agentStoryOf(db: Sql, experimentId: string, actions: number): Promise<AgentStory> {
  type TransitionRow = { turn_number: number; seq: number; step_number: number; to_phase: string; refused: boolean };
  const [t, g] = await Promise.all([
    readPaged<TransitionRow>(
      async (last, limit) =>
        (
          await db.query<TransitionRow>(
            `SELECT turn_number, seq, step_number, to_phase, refused FROM agent_state_transitions
             WHERE experiment_id = $1 AND machine = 'agent' AND (turn_number, seq) > ($2::int, $3::int)
             ORDER BY turn_number, seq LIMIT $4`,
            [experimentId, last?.turn_number ?? -1, last?.seq ?? -1, limit],
          )
        ).rows,
    ),
    readPaged<SignalRow>(
      async (last, limit) =>
        (
          await db.query<SignalRow>(
            `SELECT detector, step_number AS step, turn_number AS turn, detail, policy, seq FROM stuck_signals
             WHERE experiment_id = $1 AND (turn_number, seq) > ($2::int, $3::int) ORDER BY turn_number, seq LIMIT $4`,
            [experimentId, last?.turn ?? -1, last?.seq ?? -1, limit],
          )
        ).rows,
    ),
  ]);
  const phases: AgentStory['phases'] = [];
  let phase = 'exploring',
    from = 0;
  // the action that caused a transition is the first of the new phase
  for (const r of t.filter((x) => !x.refused)) {
    const at = Math.max(from, r.step_number - 1);
    phases.push({ phase, fromStep: from, toStep: at });
    phase = r.to_phase;
    from = at;
  }
  phases.push({ phase, fromStep: from, toStep: actions });
  return {
    phases: phases.filter((p) => p.toStep > p.fromStep || p === phases.at(-1)),
    signals: g.map(({ seq: _seq, ...signal }) => signal),
    refusedTransitions: t.filter((x) => x.refused).length,
  };
}
