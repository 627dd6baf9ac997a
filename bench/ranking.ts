// The family-wise error of all-pairs comparisons (reports/ranking-calibration.ts): 1,000 simulated families per
// line of K identical agents (K = 3, 5, 8) on 40 mazes with a strong maze effect, 1 and 3 repeats; printed: the
// share with any pair significant after Holm at 5% (target: at most 5% plus binomial slack), unadjusted, and their
// ratio; then how often one agent better by 2 logits stands alone at rank 1.
import { calibrateRanking, type RankingFigures } from '../reports/ranking-calibration.ts';
import { recordFigure } from './figures.ts';

const FAMILIES = 1_000;
const SHAPE = { mazes: 40, mazeSd: 2, base: 0 };
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function nullRow(f: RankingFigures): string {
  const ratio = f.holmFwer > 0 ? (f.rawFwer / f.holmFwer).toFixed(1) : '-';
  return [
    String(f.agents).padStart(6),
    String(f.agents * (f.agents - 1) * 0.5).padStart(6),
    String(f.repeats).padStart(8),
    pct(f.holmFwer).padStart(10),
    pct(f.rawFwer).padStart(12),
    ratio.padStart(11),
  ].join(' ');
}

export function rankingBench(): void {
  const slack = 0.05 + 2.33 * Math.sqrt((0.05 * 0.95) / FAMILIES);
  console.log(`\nranking: ${FAMILIES} simulated families per line, 40 mazes, maze difficulty sd 2 (logit), 5% level`);
  console.log(
    `${'agents'.padStart(6)} ${'pairs'.padStart(6)} repeats ${'Holm FWER'.padStart(10)} ` +
      `${'raw FWER'.padStart(12)} ${'raw / Holm'.padStart(11)}`,
  );
  for (const agents of [3, 5, 8])
    for (const repeats of [1, 3]) {
      const f = calibrateRanking({ ...SHAPE, agents, repeats, effect: 0 }, FAMILIES, 1000 + 10 * agents + repeats);
      console.log(nullRow(f));
      recordFigure({
        what: `FWER of all pairs with Holm, ${agents} agents, ${repeats} repeat${repeats === 1 ? '' : 's'}`,
        measured: f.holmFwer * 100,
        target: slack * 100,
        unit: '%',
      });
    }
  console.log('\none agent better by 2 logits, the others identical, 3 repeats');
  console.log(
    `${'agents'.padStart(6)} ${'alone at rank 1'.padStart(16)} ${'Holm FWER (identical pairs)'.padStart(28)}`,
  );
  for (const agents of [3, 5, 8]) {
    const f = calibrateRanking({ ...SHAPE, agents, repeats: 3, effect: 2 }, FAMILIES, 2000 + agents);
    console.log(`${String(agents).padStart(6)} ${pct(f.bestAlone).padStart(16)} ${pct(f.holmFwer).padStart(28)}`);
    recordFigure({
      what: `better agent alone at rank 1, ${agents} agents`,
      measured: f.bestAlone * 100,
      target: 50,
      unit: '%',
      higherIsBetter: true,
    });
  }
}
