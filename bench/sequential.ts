// The sweep watched after every maze (reports/confidence-sequence.ts), calibrated by simulation of known truth: 1,000
// simulated sweeps of at most 60 mazes per line. Identical agents give the type-I error under continuous monitoring
// (target: at most 5%) beside that of naive repeated looks with the fixed-sample 5% sign-flip test; real differences
// give the share decided, the mazes saved by stopping (goal: 30% on a clear difference) and coverage at the stop.
import { ConfidenceSequence } from '../reports/confidence-sequence.ts';
import { calibrateSequential, type SequentialFigures } from '../reports/sequential-calibration.ts';
import type { CalibrationSetting } from '../reports/calibration.ts';
import { recordFigure } from './figures.ts';

const SWEEPS = 1_000;
const MAZES = 60;
const LEVEL = 0.05;
const SAVED_GOAL = 0.3;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const ratio = (x: number, of: number) => `${(x / of).toFixed(2)}x`;

const NULLS: Array<[string, CalibrationSetting]> = [1, 3].flatMap((repeats) =>
  [0, 1].map((base): [string, CalibrationSetting] => [
    `identical, ${repeats} rep., base ${base}`,
    { mazes: MAZES, repeats, mazeSd: 2, effect: 0, base },
  ]),
);

/** The clear difference the savings goal is set on first; then smaller or noisier ones, to show where it fades. */
const DIFFERENCES: Array<[string, CalibrationSetting]> = [
  ['a +2 logits, maze sd 1, base -1', { mazes: MAZES, repeats: 3, mazeSd: 1, effect: 2, base: -1 }],
  ['a +1.5 logits, maze sd 1, base -1', { mazes: MAZES, repeats: 3, mazeSd: 1, effect: 1.5, base: -1 }],
  ['a +2 logits, maze sd 2, base 0', { mazes: MAZES, repeats: 3, mazeSd: 2, effect: 2, base: 0 }],
];

function nullRow(label: string, f: SequentialFigures): string {
  return [
    label.padEnd(34),
    `${pct(f.decided)} (${ratio(f.decided, LEVEL)})`.padStart(15),
    pct(f.coverage).padStart(9),
    `${pct(f.naiveRejected)} (${ratio(f.naiveRejected, LEVEL)})`.padStart(15),
    pct(f.fixedRejected).padStart(9),
  ].join(' ');
}

function differenceRow(label: string, f: SequentialFigures): string {
  return [
    label.padEnd(34),
    `${(f.trueDifference * 100).toFixed(1)} pts`.padStart(9),
    pct(f.decided).padStart(8),
    pct(f.decidedForB).padStart(7),
    `${(f.mazesUsed * MAZES).toFixed(1)} (${f.mazesUsed.toFixed(2)}x)`.padStart(13),
    `${pct(f.saved)} (${ratio(f.saved, SAVED_GOAL)})`.padStart(15),
    pct(f.coverage).padStart(9),
    pct(f.fixedRejected).padStart(9),
  ].join(' ');
}

function nullSettings(): void {
  console.log(`\nsequential: ${SWEEPS} simulated sweeps per line, at most ${MAZES} mazes, no stop before maze 5`);
  console.log('identical agents, maze difficulty sd 2 (logit): how often each way of looking declares a difference');
  console.log('(ratios to the 5% level; naive looks: the fixed-sample 5% sign-flip test at every maze from the 5th)');
  console.log(
    `${'setting'.padEnd(34)} ${'CS, every maze'.padStart(15)} ${'coverage'.padStart(9)} ` +
      `${'naive looks'.padStart(15)} ${'fixed 60'.padStart(9)}`,
  );
  NULLS.forEach(([label, setting], i) => {
    const f = calibrateSequential(setting, SWEEPS, 1 + i);
    console.log(nullRow(label, f));
    recordFigure({
      what: `sequential type-I error under continuous monitoring, ${label}`,
      measured: f.decided * 100,
      target: LEVEL * 100,
      unit: '%',
    });
  });
}

/** The first maze at which a sweep that a wins outright (d = 1 on every maze) is decided: the bets' cap at work. */
function earliestStop(): number {
  const cs = new ConfidenceSequence(LEVEL);
  while (cs.decided() === null) cs.add(1);
  return cs.interval.mazes;
}

function differenceSettings(): void {
  console.log(`\nreal differences, 3 repeats a maze: stopped at the first maze where the sequence is decided`);
  const floor = (4 * Math.log(2 / LEVEL)) / MAZES;
  console.log(
    `(bets capped at 1/2: half width at least 4 log(2/alpha)/t, ${(floor * 100).toFixed(1)} pts at ${MAZES} mazes; ` +
      `a sweep a wins outright stops at maze ${earliestStop()})`,
  );
  console.log(
    `${'setting'.padEnd(34)} ${'truth'.padStart(9)} ${'decided'.padStart(8)} ${'wrong'.padStart(7)} ` +
      `${'mazes run'.padStart(13)} ${'saved (/30%)'.padStart(15)} ${'coverage'.padStart(9)} ${'fixed 60'.padStart(9)}`,
  );
  DIFFERENCES.forEach(([label, setting], i) => {
    const f = calibrateSequential(setting, SWEEPS, 11 + i);
    console.log(differenceRow(label, f));
    recordFigure({
      what: `coverage at the stop, ${label}`,
      measured: f.coverage * 100,
      target: 95,
      unit: '%',
      higherIsBetter: true,
    });
    if (i === 0)
      recordFigure({
        what: `mazes saved by stopping, ${label}`,
        measured: f.saved * 100,
        target: SAVED_GOAL * 100,
        unit: '%',
        higherIsBetter: true,
      });
  });
}

export function sequentialBench(): void {
  nullSettings();
  differenceSettings();
}
