// The sweep watched after every maze (reports/confidence-sequence.ts), calibrated by simulation of known truth: 1,000
// simulated sweeps of at most 60 mazes per line, each watched by the hedged capital sequence and by PrPl-EB side by
// side. Identical agents give the type-I error under continuous monitoring (target: at most 5%) beside naive repeated
// looks with the fixed-sample 5% sign-flip test; real differences give the share decided, the mazes saved by stopping
// (goal: 30% on a clear difference), coverage and width at the stop.
import { ConfidenceSequence, SEQUENCE_METHODS, type SequenceMethod } from '../reports/confidence-sequence.ts';
import {
  calibrateSequential,
  type SequenceFigures,
  type SequentialFigures,
} from '../reports/sequential-calibration.ts';
import type { CalibrationSetting } from '../reports/calibration.ts';
import { recordFigure } from './figures.ts';

const SWEEPS = 1_000;
const MAZES = 60;
const LEVEL = 0.05;
const SAVED_GOAL = 0.3;
const NAMES: Record<SequenceMethod, string> = { hedged: 'hedged', 'prpl-eb': 'PrPl-EB' };
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const ratio = (x: number, of: number) => `${(x / of).toFixed(2)}x`;
/** One figure of both sequences, hedged first: "61.9 / 31.8". */
const both = (f: SequentialFigures, of: (m: SequenceFigures) => number) =>
  SEQUENCE_METHODS.map((method) => (of(f.methods[method]) * 100).toFixed(1)).join(' / ');

const NULLS: Array<[string, CalibrationSetting]> = [1, 3].flatMap((repeats) =>
  [0, 1].map((base): [string, CalibrationSetting] => [
    `identical, ${repeats} rep., base ${base}`,
    { mazes: MAZES, repeats, mazeSd: 2, effect: 0, base },
  ]),
);

/** The clear differences the savings goal is set on first; then smaller or noisier ones, to show where it fades. */
const DIFFERENCES: Array<[string, CalibrationSetting, boolean]> = [
  ['a +2 logits, maze sd 1, base -1', { mazes: MAZES, repeats: 3, mazeSd: 1, effect: 2, base: -1 }, true],
  ['a +2.25 logits, maze sd 2, base 0', { mazes: MAZES, repeats: 3, mazeSd: 2, effect: 2.25, base: 0 }, true],
  ['a +1.5 logits, maze sd 1, base -1', { mazes: MAZES, repeats: 3, mazeSd: 1, effect: 1.5, base: -1 }, false],
  ['a +2 logits, maze sd 2, base 0', { mazes: MAZES, repeats: 3, mazeSd: 2, effect: 2, base: 0 }, false],
];

function nullRow(label: string, f: SequentialFigures): string {
  const errors = SEQUENCE_METHODS.map((m) => f.methods[m].decided);
  return [
    label.padEnd(26),
    ...errors.map((e) => `${pct(e)} (${ratio(e, LEVEL)})`.padStart(14)),
    both(f, (m) => m.coverage).padStart(14),
    `${pct(f.naiveRejected)} (${ratio(f.naiveRejected, LEVEL)})`.padStart(15),
    pct(f.fixedRejected).padStart(9),
  ].join(' ');
}

function differenceRow(label: string, f: SequentialFigures): string {
  const saved = SEQUENCE_METHODS.map((m) => ratio(f.methods[m].saved, SAVED_GOAL)).join(' / ');
  return [
    label.padEnd(34),
    `${(f.trueDifference * 100).toFixed(1)}`.padStart(5),
    both(f, (m) => m.decided).padStart(13),
    both(f, (m) => m.decidedForB).padStart(10),
    `${both(f, (m) => m.saved)} (${saved})`.padStart(28),
    both(f, (m) => m.coverage).padStart(14),
    both(f, (m) => m.width).padStart(12),
    pct(f.fixedRejected).padStart(9),
  ].join(' ');
}

function nullSettings(): void {
  console.log(`\nsequential: ${SWEEPS} simulated sweeps per line, at most ${MAZES} mazes, no stop before maze 5`);
  console.log('identical agents, maze difficulty sd 2 (logit): how often each way of looking declares a difference');
  console.log('(ratios to the 5% level; coverage hedged / PrPl-EB; naive looks: the fixed-sample 5% sign-flip test');
  console.log(' at every maze from the 5th)');
  console.log(
    `${'setting'.padEnd(26)} ${'CS hedged'.padStart(14)} ${'CS PrPl-EB'.padStart(14)} ${'coverage %'.padStart(14)} ` +
      `${'naive looks'.padStart(15)} ${'fixed 60'.padStart(9)}`,
  );
  NULLS.forEach(([label, setting], i) => {
    const f = calibrateSequential(setting, SWEEPS, 1 + i);
    console.log(nullRow(label, f));
    for (const method of SEQUENCE_METHODS)
      recordFigure({
        what: `sequential type-I error under continuous monitoring, ${NAMES[method]}, ${label}`,
        measured: f.methods[method].decided * 100,
        target: LEVEL * 100,
        unit: '%',
      });
  });
}

/** The first maze at which a sweep that a wins outright (d = 1 on every maze) is decided. */
function earliestStop(method: SequenceMethod): number {
  const cs = new ConfidenceSequence(LEVEL, method);
  while (cs.decided() === null) cs.add(1);
  return cs.interval.mazes;
}

function recordDifference(label: string, f: SequentialFigures, goal: boolean): void {
  for (const method of SEQUENCE_METHODS) {
    const [name, m] = [NAMES[method], f.methods[method]];
    const pts = `${(f.trueDifference * 100).toFixed(1)} pts`;
    const unit = '%';
    recordFigure({
      what: `coverage at the stop, ${name}, ${label}`,
      measured: m.coverage * 100,
      target: 95,
      unit,
      higherIsBetter: true,
    });
    // the goal is the default sequence's; PrPl-EB's savings are printed in the table above, beside it
    if (goal && method === SEQUENCE_METHODS[0])
      recordFigure({
        what: `mazes saved by stopping, ${name}, ${label} (${pts})`,
        measured: m.saved * 100,
        target: SAVED_GOAL * 100,
        unit,
        higherIsBetter: true,
      });
  }
}

function differenceSettings(): void {
  console.log(`\nreal differences, 3 repeats a maze: stopped at the first maze where the sequence is decided`);
  console.log(
    `(a sweep a wins outright stops at maze ${earliestStop('hedged')} hedged, ${earliestStop('prpl-eb')} PrPl-EB: ` +
      `its bets capped at 1/2 keep its half width\n at least 4 log(2/alpha)/t, ` +
      `${((400 * Math.log(2 / LEVEL)) / MAZES).toFixed(1)} pts at ${MAZES} mazes)`,
  );
  console.log('(each column hedged / PrPl-EB, in %; saved also as a ratio to the 30% goal; width on d at the stop)');
  console.log(
    `${'setting'.padEnd(34)} ${'truth'.padStart(5)} ${'decided'.padStart(13)} ${'wrong'.padStart(10)} ` +
      `${'saved (/30%)'.padStart(28)} ${'coverage'.padStart(14)} ${'width'.padStart(12)} ${'fixed 60'.padStart(9)}`,
  );
  DIFFERENCES.forEach(([label, setting, goal], i) => {
    const f = calibrateSequential(setting, SWEEPS, 11 + i);
    console.log(differenceRow(label, f));
    recordDifference(label, f, goal);
  });
}

export function sequentialBench(): void {
  nullSettings();
  differenceSettings();
}
