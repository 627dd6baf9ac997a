// The power plan (reports/power-plan.ts) checked by simulation of known truth: plan the mazes for 80% power, simulate
// sweeps of that many mazes with reports/calibration.ts's simulator, apply the exact sign-flip test that `ariadne
// compare` runs, and count the rejections: the achieved power beside the planned, and the test's size at no
// effect. bench/power.ts prints 1,000 sweeps a setting; test/power-plan.test.ts runs fewer with the same code.
import { createRng, mixSeed } from '../core/maze/rng.ts';
import { simulateSweep, type CalibrationSetting } from './calibration.ts';
import { signFlipTest } from './maze-inference.ts';
import { mazesFor, type MazeModel } from './power-plan.ts';

export interface PowerSetting extends MazeModel {
  /** The difference in success rate planned for. */
  difference: number;
  repeats: number;
}

export interface PowerCalibration extends PowerSetting {
  mazes: number;
  /** a's logit advantage that gives the difference. */
  effect: number;
  plannedPower: number;
  /** Share of the sweeps with the planned effect that the sign-flip test rejected at alpha. */
  achievedPower: number;
  /** Share of the sweeps with no effect (identical agents) that it rejected: at most alpha, up to chance. */
  size: number;
  sweeps: number;
}

/** The settings the brief of the calibration names: 2 differences x 2 bases x 2 spreads x 2 repeats. */
export const POWER_SETTINGS: readonly PowerSetting[] = [0.1, 0.15].flatMap((difference) =>
  [0, 1].flatMap((base) =>
    [1, 2].flatMap((mazeSd) => [1, 3].map((repeats) => ({ difference, base, mazeSd, repeats }))),
  ),
);

/** Share of `sweeps` simulated sweeps the two-sided sign-flip test rejects at alpha, seeded. */
function rejectionRate(s: CalibrationSetting, sweeps: number, seed: number, alpha = 0.05): number {
  const rng = createRng(seed);
  let rejected = 0;
  for (let i = 0; i < sweeps; i++) {
    const mazes = simulateSweep(s, rng);
    if (signFlipTest(mazes.map((m) => m.onlyA - m.onlyB)).p <= alpha) rejected++;
  }
  return rejected / sweeps;
}

/** One setting: its plan for `power`, the achieved power and the size over `sweeps` sweeps each. */
export function calibratePower(s: PowerSetting, sweeps: number, seed = 1, power = 0.8): PowerCalibration {
  const plan = mazesFor({ ...s, power });
  const simulated = { mazes: plan.mazes, repeats: s.repeats, mazeSd: s.mazeSd, base: s.base };
  return {
    ...s,
    mazes: plan.mazes,
    effect: plan.effect,
    plannedPower: plan.power,
    achievedPower: rejectionRate({ ...simulated, effect: plan.effect }, sweeps, mixSeed(seed, 'power')),
    size: rejectionRate({ ...simulated, effect: 0 }, sweeps, mixSeed(seed, 'size')),
    sweeps,
  };
}
