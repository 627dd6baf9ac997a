// Calibration of the all-pairs ranking (agent-ranking.ts) by simulation of known truth: families of K agents on the
// same mazes (reports/calibration.ts's simulator, strong maze effect), every pair tested, Holm over the family.
// Counts how often a family rejects a true null at all (the family-wise error Holm controls), beside how often it
// would unadjusted, and how often one clearly better agent stands alone at rank 1. bench/ranking.ts prints them.
import { createRng } from '../core/maze/rng.ts';
import { rankAgents, outcomeCounts, type AgentRanking } from './agent-ranking.ts';
import { simulateOutcomes, type SweepShape } from './calibration.ts';

export interface RankingSetting extends SweepShape {
  /** K: how many agents each family ranks. */
  agents: number;
  /** The first agent's advantage on the logit scale; the others are identical. 0: the null family. */
  effect: number;
}

export interface RankingFigures extends RankingSetting {
  families: number;
  /** Share of families with any pair of identical agents significant after Holm at 5%: the family-wise error. */
  holmFwer: number;
  /** The same without adjustment (each raw p at 5%): what Holm saves a reader from. */
  rawFwer: number;
  /** Share of families where the first agent is alone at rank 1 (only meaningful with an effect). */
  bestAlone: number;
}

const ALPHA = 0.05;

/** The family rejected a pair of identical agents: after Holm, and raw. */
function falseRejections(r: AgentRanking, effect: number, best: string) {
  const nulls = r.pairs.filter((p) => effect === 0 || (p.a !== best && p.b !== best));
  return {
    holm: nulls.some((p) => p.holmP !== null && p.holmP <= ALPHA),
    raw: nulls.some((p) => p.p !== null && p.p <= ALPHA),
  };
}

/** The figures of `families` simulated families under one setting, seeded. */
export function calibrateRanking(s: RankingSetting, families: number, seed = 1): RankingFigures {
  const rng = createRng(seed);
  const names = Array.from({ length: s.agents }, (_, k) => `agent ${k + 1}`);
  const effects = names.map((_, k) => (k === 0 ? s.effect : 0));
  let [holmAny, rawAny, alone] = [0, 0, 0];
  for (let f = 0; f < families; f++) {
    const { agents, pairs } = outcomeCounts(names, simulateOutcomes(s, effects, rng));
    const ranking = rankAgents(agents, pairs, ALPHA);
    const wrong = falseRejections(ranking, s.effect, names[0]);
    if (wrong.holm) holmAny++;
    if (wrong.raw) rawAny++;
    const [first] = ranking.ranking;
    if (first.agent === names[0] && first.tieGroup.length === 1) alone++;
  }
  return {
    ...s,
    families,
    holmFwer: holmAny / families,
    rawFwer: rawAny / families,
    bestAlone: alone / families,
  };
}
