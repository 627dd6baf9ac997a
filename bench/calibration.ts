// The maze-level statistics (reports/maze-inference.ts) calibrated by simulating known truth: 1,000 sweeps a
// setting, two agents on 4 to 32 mazes of strongly varying difficulty (logit sd 2), 4 repeats a maze. Printed: the
// 5% sign-flip test's type-I error (target <= 6.6% with binomial slack), the 95% intervals' coverage of the true
// difference and rate (target >= 93%), the test's power; then the behaviour figures' intervals of a share beside
// the plain one.
import { calibrate, calibrateRatio, type CalibrationFigures } from '../reports/calibration.ts';
import { recordFigure } from './figures.ts';

const SWEEPS = 1_000;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function row(label: string, f: CalibrationFigures): string {
  return [
    label.padEnd(34),
    String(f.mazes).padStart(5),
    pct(f.rejected).padStart(10),
    pct(f.differenceCoverage).padStart(13),
    pct(f.rateCoverage).padStart(9),
    `${(f.trueDifference * 100).toFixed(1)} pts`.padStart(10),
  ].join(' ');
}

export function calibrationBench(): void {
  const slack = 0.05 + 2.33 * Math.sqrt((0.05 * 0.95) / SWEEPS);
  console.log(`\ncalibration: ${SWEEPS} simulated sweeps per line, 4 repeats a maze, maze difficulty sd 2 (logit)`);
  console.log(
    `${'setting'.padEnd(34)} mazes ${'rejects'.padStart(9)} ${'diff. cover'.padStart(13)} ${'rate cov'.padStart(9)} ` +
      `${'truth'.padStart(10)}`,
  );
  for (const mazes of [4, 8, 16, 32]) {
    const none = calibrate({ mazes, repeats: 4, mazeSd: 2, effect: 0, base: 0 }, SWEEPS, mazes);
    const some = calibrate({ mazes, repeats: 4, mazeSd: 2, effect: 1, base: 1 }, SWEEPS, 100 + mazes);
    const near = calibrate({ mazes, repeats: 4, mazeSd: 2, effect: 0.5, base: 3 }, SWEEPS, 200 + mazes);
    console.log(row('identical agents (type-I error)', none));
    console.log(row('a better by 1 logit (power)', some));
    console.log(row('both near the ceiling', near));
    recordFigure({
      what: `type-I error of the 5% test, ${mazes} mazes`,
      measured: none.rejected * 100,
      target: slack * 100,
      unit: '%',
    });
    for (const [what, f] of [
      ['null', none],
      ['effect', some],
      ['ceiling', near],
    ] as const)
      recordFigure({
        what: `95% coverage of the difference (${what}), ${mazes} mazes`,
        measured: f.differenceCoverage * 100,
        target: 93,
        unit: '%',
        higherIsBetter: true,
      });
    recordFigure({
      what: `95% coverage of a rate near the ceiling, ${mazes} mazes`,
      measured: near.rateCoverage * 100,
      target: 93,
      unit: '%',
      higherIsBetter: true,
    });
  }
  ratioBench();
}

/** The behaviour figures' shares: their intervals' coverage beside the plain cluster-robust one. */
function ratioBench(): void {
  console.log(
    `\nshares (behaviour figures): ${SWEEPS} simulated sweeps per line, 4 runs a maze of 20-200 moves; coverage of ` +
      'the 95% intervals',
  );
  console.log(
    `${'maze spread'.padEnd(34)} mazes ${'truth'.padStart(8)} ${'of moves'.padStart(9)} ${'mean logit'.padStart(11)} ` +
      `${'mean plain'.padStart(11)}`,
  );
  for (const mazes of [4, 8, 16, 32])
    for (const [label, base, mazeSd] of [
      ['moderate (logit -2, sd 1)', -2, 1],
      ['strong (logit -3, sd 2)', -3, 2],
      ['around 50% (logit 0, sd 0.5)', 0, 0.5],
    ] as const) {
      const f = calibrateRatio({ mazes, repeats: 4, mazeSd, base, minDen: 20, maxDen: 200 }, SWEEPS, mazes);
      console.log(
        [
          label.padEnd(34),
          String(mazes).padStart(5),
          pct(f.truth).padStart(8),
          pct(f.pooledCoverage).padStart(9),
          pct(f.meanCoverage).padStart(11),
          pct(f.plainCoverage).padStart(11),
        ].join(' '),
      );
      if (mazeSd === 1)
        recordFigure({
          what: `95% coverage of a mean of shares (logit), moderate spread, ${mazes} mazes`,
          measured: f.meanCoverage * 100,
          target: 93,
          unit: '%',
          higherIsBetter: true,
        });
    }
}
