// The power plan (reports/power-plan.ts) against simulation of known truth: per setting, the mazes planned for 80%
// power, the planned power (and the plain t test's at those mazes), the power the exact sign-flip test achieved over
// 1,000 simulated sweeps, their difference in points (target: within 5) and ratio, and the test's size with no effect
// (target: 5% plus binomial slack). Then the options a reader weighs: mazes and runs for 1, 2, 3 and 5 repeats.
import { calibratePower, POWER_SETTINGS, type PowerCalibration } from '../reports/power-calibration.ts';
import { optionsTable, plannedPower } from '../reports/power-plan.ts';
import { recordFigure } from './figures.ts';

const SWEEPS = 1_000;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function row(c: PowerCalibration): string {
  const setting = `diff ${c.difference.toFixed(2)} base ${c.base} mazeSd ${c.mazeSd} repeats ${c.repeats}`;
  const tAlone = plannedPower({ ...c, continuity: false });
  const points = (c.achievedPower - c.plannedPower) * 100;
  return [
    setting.padEnd(40),
    String(c.mazes).padStart(6),
    pct(c.plannedPower).padStart(8),
    pct(tAlone).padStart(8),
    pct(c.achievedPower).padStart(9),
    `${points >= 0 ? '+' : ''}${points.toFixed(1)}`.padStart(7),
    (c.achievedPower / c.plannedPower).toFixed(3).padStart(6),
    pct(c.size).padStart(7),
  ].join(' ');
}

function optionsFor(difference: number, base: number, mazeSd: number): void {
  console.log(`\noptions for a difference of ${difference} at base ${base}, mazeSd ${mazeSd} (80% power, 5% level):`);
  console.log(`${'repeats'.padStart(7)} ${'mazes'.padStart(6)} ${'runs'.padStart(6)} ${'power'.padStart(7)}`);
  for (const o of optionsTable({ difference, base, mazeSd })) {
    const power = pct(o.power).padStart(7);
    console.log(
      `${String(o.repeats).padStart(7)} ${String(o.mazes).padStart(6)} ${String(o.runs).padStart(6)} ${power}`,
    );
  }
}

export function powerBench(): void {
  const slack = 0.05 + 2.33 * Math.sqrt((0.05 * 0.95) / SWEEPS);
  console.log(`\npower: mazes planned for 80% power, then ${SWEEPS} simulated sweeps each, sign-flip test at 5%`);
  console.log(
    `${'setting'.padEnd(40)} ${'mazes'.padStart(6)} ${'planned'.padStart(8)} ${'t alone'.padStart(8)} ` +
      `${'achieved'.padStart(9)} ${'points'.padStart(7)} ${'ratio'.padStart(6)} ${'size'.padStart(7)}`,
  );
  const all = POWER_SETTINGS.map((s, i) => calibratePower(s, SWEEPS, 1 + i));
  for (const c of all) console.log(row(c));
  recordFigure({
    what: `largest |achieved - planned power|, ${all.length} settings, ${SWEEPS} sweeps`,
    measured: Math.max(...all.map((c) => Math.abs(c.achievedPower - c.plannedPower))) * 100,
    target: 5,
    unit: 'points',
  });
  recordFigure({
    what: `largest size of the 5% sign-flip test at the planned mazes`,
    measured: Math.max(...all.map((c) => c.size)) * 100,
    target: slack * 100,
    unit: '%',
  });
  optionsFor(0.1, 0, 2);
  optionsFor(0.1, 0, 1);
}
