// Waudby-Smith & Ramdas's predictable plug-in empirical-Bernstein confidence sequence (PrPl-EB) for the mean of X in
// [0, 1] (JRSS-B 86(1), 2024, Theorem 2; as confseq's predmix_empbern_cs, predmix.py), running-intersected. Closed
// form and O(1) an observation, but wider than the hedged capital sequence (reports/hedged-capital.ts) at small t.

/** The bets' ceiling c of Theorem 2 (the paper's and confseq's default). */
const MAX_BET = 1 / 2;

/** psi_E(l) = (-log(1 - l) - l) / 4, the paper's empirical-Bernstein function; log1p keeps small bets exact. */
const psiE = (l: number) => (-Math.log1p(-l) - l) / 4;

/**
 * The interval is centre +- half, centre the bet-weighted mean, half (log(2/alpha) + sum v_i psi_E(lambda_i)) / sum
 * lambda_i; with bets capped at 1/2 the half width is at least 2 log(2/alpha) / t.
 */
export class PrplEb {
  /** Lower end on [0, 1], running-intersected (below 0 never matters: it stays at 0). */
  low = 0;
  /** Upper end on [0, 1], running-intersected. */
  high = 1;
  private t = 0;
  /** Sum of X_i, for mu_hat_t = (1/2 + sum X_i) / (t + 1). */
  private sumX = 0;
  /** Sum of (X_i - mu_hat_i)^2, for sigma2_t = (1/4 + that) / (t + 1). */
  private sumSquares = 0;
  private sumBets = 0;
  private sumBetX = 0;
  /** Sum of v_i psi_E(lambda_i), v_i = 4 (X_i - mu_hat_{i-1})^2. */
  private sumPenalty = 0;
  private readonly logTwoOverAlpha: number;

  constructor(alpha: number) {
    this.logTwoOverAlpha = Math.log(2 / alpha);
  }

  add(x: number): void {
    const t = ++this.t;
    // the bet and the centre it is scored against use only the observations before this one (predictable)
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
    this.low = Math.max(this.low, centre - half);
    this.high = Math.min(this.high, centre + half);
  }
}
