// An anytime-valid confidence sequence for the mean per-maze difference, so a sweep can be looked at after every maze
// and stopped once decided without inflating its error: Waudby-Smith & Ramdas's PrPl-EB (JRSS-B 86(1), 2024, Theorem
// 2; checked against the authors' confseq, predmix.py and betting_strategies.py), and as a cross-check the closed-form
// two-sided normal-mixture boundary of Howard, Ramdas, McAuliffe & Sekhon (Ann. Stat. 49(2), 2021; confseq's
// TwoSidedNormalMixture). Calibrated in reports/sequential-calibration.ts; npm run bench -- sequential prints it.

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

/** The bets' ceiling c of Theorem 2 (the paper's and confseq's default). */
const MAX_BET = 1 / 2;

/** psi_E(l) = (-log(1 - l) - l) / 4, the paper's empirical-Bernstein function; log1p keeps small bets exact. */
const psiE = (l: number) => (-Math.log1p(-l) - l) / 4;

/**
 * PrPl-EB on X = (d + 1) / 2 in [0, 1], mapped back to d = 2X - 1, and intersected with every earlier interval
 * (the running intersection stays valid: each interval holds the mean at every time at once). An empty
 * intersection (low > high) can happen only once the mean has already escaped, the alpha event; it is kept, not
 * hidden, and decided() then says null unless both ends lie on one side of 0.
 */
export class ConfidenceSequence {
  private t = 0;
  /** Sum of X_i, for mu_hat_t = (1/2 + sum X_i) / (t + 1). */
  private sumX = 0;
  /** Sum of (X_i - mu_hat_i)^2, for sigma2_t = (1/4 + that) / (t + 1). */
  private sumSquares = 0;
  private sumBets = 0;
  private sumBetX = 0;
  /** Sum of v_i psi_E(lambda_i), v_i = 4 (X_i - mu_hat_{i-1})^2. */
  private sumPenalty = 0;
  private low = -1;
  private high = 1;
  private readonly logTwoOverAlpha: number;

  constructor(readonly alpha = 0.05) {
    if (!(alpha > 0 && alpha < 1)) throw new RangeError(`a confidence sequence needs 0 < alpha < 1, got ${alpha}`);
    this.logTwoOverAlpha = Math.log(2 / alpha);
  }

  add(d: number): void {
    if (!(d >= -1 && d <= 1)) throw new DifferenceOutOfRange(d);
    const x = (d + 1) / 2;
    const t = ++this.t;
    // the bet and the centre it is scored against use only the mazes before this one (predictable)
    const muBefore = (1 / 2 + this.sumX) / t;
    const sigma2Before = (1 / 4 + this.sumSquares) / t;
    const bet = Math.min(Math.sqrt((2 * this.logTwoOverAlpha) / (sigma2Before * t * Math.log(1 + t))), MAX_BET);
    this.sumBets += bet;
    this.sumBetX += bet * x;
    this.sumPenalty += 4 * (x - muBefore) ** 2 * psiE(bet);
    this.sumX += x;
    this.sumSquares += (x - (1 / 2 + this.sumX) / (t + 1)) ** 2;
    const centre = this.sumBetX / this.sumBets;
    const half = (this.logTwoOverAlpha + this.sumPenalty) / this.sumBets;
    this.low = Math.max(this.low, 2 * (centre - half) - 1);
    this.high = Math.min(this.high, 2 * (centre + half) - 1);
  }

  get interval(): SequenceInterval {
    return { low: this.low, high: this.high, mazes: this.t };
  }

  /** 'a' when the whole interval is above 0 (a does better), 'b' when below, null while it holds 0. */
  decided(): 'a' | 'b' | null {
    const [above, below] = [this.low > 0, this.high < 0];
    if (above === below) return null;
    return above ? 'a' : 'b';
  }
}

/** The PrPl-EB interval after each maze of `ds`, in order. */
export function confidenceSequence(ds: readonly number[], alpha = 0.05): SequenceInterval[] {
  const cs = new ConfidenceSequence(alpha);
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
 * wider than PrPl-EB on low-variance differences: the independent bound the tests hold PrPl-EB against.
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
