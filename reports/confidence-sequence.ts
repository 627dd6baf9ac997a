// An anytime-valid confidence sequence for the mean per-maze difference, so a sweep can be looked at after every maze
// and stopped once decided without inflating its error: Waudby-Smith & Ramdas's hedged capital sequence (JRSS-B 86(1),
// 2024, Theorem 3; reports/hedged-capital.ts) by default, their PrPl-EB (Theorem 2; reports/prpl-eb.ts) on request, and
// Howard et al.'s normal-mixture (Hoeffding) boundary (Ann. Stat. 49(2), 2021) as a cross-check. Calibrated in
// reports/sequential-calibration.ts; npm run bench -- sequential prints both sequences side by side.
import { HedgedCapital } from './hedged-capital.ts';
import { PrplEb } from './prpl-eb.ts';

export interface SequenceInterval {
  low: number;
  high: number;
  /** Mazes seen so far. */
  mazes: number;
}

/** A per-maze difference outside [-1, 1] (or NaN): the sequence's guarantee holds only for bounded data. */
export class DifferenceOutOfRange extends RangeError {
  constructor(readonly value: number) {
    super(`a per-maze difference must be a number in [-1, 1], got ${value}`);
  }
}

/** The sequences on offer: the hedged capital one (the default: the narrower, by the bench) and PrPl-EB. */
export const SEQUENCE_METHODS = ['hedged', 'prpl-eb'] as const;
export type SequenceMethod = (typeof SEQUENCE_METHODS)[number];

/**
 * A sequence for X = (d + 1) / 2 in [0, 1], mapped back to d = 2X - 1, and intersected with every earlier interval
 * (the running intersection stays valid: each interval holds the mean at every time at once). An empty
 * intersection (low > high) can happen only once the mean has already escaped, the alpha event; it is kept, not
 * hidden, and decided() then says null unless both ends lie on one side of 0.
 */
export class ConfidenceSequence {
  private t = 0;
  private readonly bounds: HedgedCapital | PrplEb;

  constructor(
    readonly alpha = 0.05,
    readonly method: SequenceMethod = 'hedged',
  ) {
    if (!(alpha > 0 && alpha < 1)) throw new RangeError(`a confidence sequence needs 0 < alpha < 1, got ${alpha}`);
    this.bounds = method === 'hedged' ? new HedgedCapital(alpha) : new PrplEb(alpha);
  }

  add(d: number): void {
    if (!(d >= -1 && d <= 1)) throw new DifferenceOutOfRange(d);
    this.bounds.add((d + 1) / 2);
    this.t++;
  }

  get interval(): SequenceInterval {
    return { low: 2 * this.bounds.low - 1, high: 2 * this.bounds.high - 1, mazes: this.t };
  }

  /** 'a' when the whole interval is above 0 (a does better), 'b' when below, null while it holds 0. */
  decided(): 'a' | 'b' | null {
    const { low, high } = this.interval;
    const [above, below] = [low > 0, high < 0];
    if (above === below) return null;
    return above ? 'a' : 'b';
  }
}

/** The interval after each maze of `ds`, in order. */
export function confidenceSequence(
  ds: readonly number[],
  alpha = 0.05,
  method: SequenceMethod = 'hedged',
): SequenceInterval[] {
  const cs = new ConfidenceSequence(alpha, method);
  return ds.map((d) => {
    cs.add(d);
    return cs.interval;
  });
}

/**
 * Howard et al.'s two-sided normal-mixture boundary for 1-sub-Gaussian increments (V_t = t): |S_t - t mu| stays
 * below sqrt((t + rho) log((t + rho) / (rho (alpha/2)^2))) at every t at once with probability 1 - alpha. Each side
 * is taken at alpha/2 (a union bound; the symmetric mixture would allow alpha itself, so this errs wide).
 */
export function normalMixtureBound(t: number, alpha: number, rho: number): number {
  return Math.sqrt((t + rho) * Math.log((t + rho) / (rho * (alpha / 2) ** 2)));
}

/**
 * The rho that makes the boundary at level alpha tightest at time tOpt: tOpt / (2 log(1/alpha) + log(1 + 2
 * log(1/alpha))), Howard et al. section 3.5 (confseq's TwoSidedNormalMixture::best_rho).
 */
export function normalMixtureRho(tOpt: number, alpha: number): number {
  const l = Math.log(1 / alpha);
  return tOpt / (2 * l + Math.log(1 + 2 * l));
}

/**
 * The Hoeffding (sub-Gaussian) confidence sequence for the mean of d in [-1, 1] after each maze: the mean plus or
 * minus normalMixtureBound / t, clipped to [-1, 1]; rho by default tuned for 60 mazes. Blind to the variance, so
 * wider than either betting sequence on low-variance differences: the independent bound the tests hold both against.
 */
export function hoeffdingSequence(
  ds: readonly number[],
  alpha = 0.05,
  rho = normalMixtureRho(60, alpha / 2),
): SequenceInterval[] {
  let sum = 0;
  return ds.map((d, i) => {
    if (!(d >= -1 && d <= 1)) throw new DifferenceOutOfRange(d);
    sum += d;
    const t = i + 1;
    const half = normalMixtureBound(t, alpha, rho) / t;
    return { low: Math.max(-1, sum / t - half), high: Math.min(1, sum / t + half), mazes: t };
  });
}
