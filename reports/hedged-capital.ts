// Waudby-Smith & Ramdas's hedged capital confidence sequence for the mean of X in [0, 1] (JRSS-B 86(1), 2024,
// Theorem 3), as the authors' confseq computes it (betting.py hedged_cs): predictable plug-in bets truncated at c/m
// and c/(1 - m), theta 1/2, on confseq's grid of m with its one-step padding and the running intersection.

/** Steps of the grid of candidate means on [0, 1] (confseq's `breaks`): the ends are exact to one step, 1/1000. */
const HEDGED_GRID_STEPS = 1000;
/** The truncation c of the bets (confseq's trunc_scale, the paper's suggestion 1/2 or 3/4). */
const HEDGED_TRUNCATION = 1 / 2;
/** The weight theta of the upward capital in max(theta K+, (1 - theta) K-): both directions alike. */
const THETA = 1 / 2;

/**
 * The capital of both bets against every grid point m is kept and multiplied by one factor per observation, O(grid)
 * an add: a bet truncated at c/m depends on m, so no closed form in m exists and root-finding would redo all t
 * factors per trial m. K+_t(m) is nonincreasing in m and K-_t(m) nondecreasing (every factor is), so the set where
 * both stay at most 1/(theta alpha) is an interval: its first and last grid points, widened by a step, bound it.
 */
export class HedgedCapital {
  /** Lower end on [0, 1], running-intersected. */
  low = 0;
  /** Upper end on [0, 1], running-intersected. */
  high = 1;
  private t = 0;
  private sumX = 0;
  /** Sum of (X_i - mu_hat_i)^2, mu_hat_i = (1/2 + sum of X up to i) / (i + 1): the bets' variance estimate. */
  private sumSquares = 0;
  private readonly step: number;
  private readonly grid: Float64Array;
  private readonly capUp: Float64Array;
  private readonly capDown: Float64Array;
  private readonly up: Float64Array;
  private readonly down: Float64Array;
  /** log(1 / (theta alpha)): each side's bets are tuned to its share of alpha. */
  private readonly logOverAlpha: number;
  private readonly limit: number;

  constructor(alpha: number, steps = HEDGED_GRID_STEPS, truncation = HEDGED_TRUNCATION) {
    this.step = 1 / steps;
    this.grid = Float64Array.from({ length: steps + 1 }, (_, i) => i * this.step);
    // c/0 is Infinity: at m = 0 the upward bet is never truncated, at m = 1 the downward one
    this.capUp = this.grid.map((m) => truncation / m);
    this.capDown = this.grid.map((m) => truncation / (1 - m));
    this.up = new Float64Array(steps + 1).fill(1);
    this.down = new Float64Array(steps + 1).fill(1);
    this.logOverAlpha = Math.log(1 / (alpha * THETA));
    this.limit = 1 / (THETA * alpha);
  }

  add(x: number): void {
    const t = ++this.t;
    // the predictable plug-in bet, sqrt(2 log(1/(theta alpha)) / (t log(1 + t) sigma2_{t-1})), confseq's order
    const sigma2Before = (1 / 4 + this.sumSquares) / t;
    const bet = Math.sqrt((2 * this.logOverAlpha) / (t * Math.log(1 + t) * sigma2Before));
    const [first, last] = this.multiply(x, bet);
    this.sumX += x;
    const mean = (1 / 2 + this.sumX) / (t + 1);
    this.sumSquares += (x - mean) * (x - mean);
    // no grid point left at this time: confseq reports all of [0, 1] then, which leaves the intersection as it was
    if (first < 0) return;
    this.low = Math.max(this.low, Math.max(0, this.grid[first] - this.step));
    this.high = Math.min(this.high, Math.min(1, this.grid[last] + this.step));
  }

  /** Every grid point's capitals times this observation's factors; the first and last grid index still in the set. */
  private multiply(x: number, bet: number): [number, number] {
    const { grid, capUp, capDown, up, down, limit } = this;
    let [first, last] = [-1, -1];
    for (let i = 0; i < grid.length; i++) {
      const gain = x - grid[i];
      up[i] *= 1 + Math.min(bet, capUp[i]) * gain;
      down[i] *= 1 - Math.min(bet, capDown[i]) * gain;
      // max(theta K+, (1 - theta) K-) <= 1/alpha, as confseq compares (theta 1/2: each capital against 2/alpha)
      if (up[i] <= limit && down[i] <= limit) {
        if (first < 0) first = i;
        last = i;
      }
    }
    return [first, last];
  }
}
