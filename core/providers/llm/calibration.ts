// The token estimate (characters / 4, token-estimate.ts) calibrated on what the provider reports: the first model
// call of a run whose prompt count came back sets the ratio reported / estimated, and every later estimate of the
// run (the context guard's, the conversation budget's) is scaled by it. The ratio is stored with the experiment,
// so a later turn (a fresh Lambda) starts calibrated. An ASCII map tokenizes worse than prose: without this, a
// full_map prompt could overflow num_ctx while the estimate says it fits.

/** A call whose calibrated estimate is off the reported prompt tokens by more than this share is flagged. */
const OFF_SHARE = 0.1;

/** Ratios outside this range say more about a broken count than about a tokenizer: ignored. */
const MIN_RATIO = 0.25;
const MAX_RATIO = 4;

export class TokenCalibration {
  constructor(private current: number | null) {}

  get ratio(): number | null {
    return this.current;
  }

  /** An estimate in the provider's tokens. */
  scale(estimate: number): number {
    return this.current === null ? estimate : Math.ceil(estimate * this.current);
  }

  /**
   * Learns the ratio from a call's reported prompt tokens, once per run. A count at the window is not a
   * measurement: Ollama cuts a longer prompt silently and reports what it kept.
   */
  observe(estimate: number, reported: number | null, window: number | null): void {
    if (this.current !== null || reported === null || reported <= 0 || estimate <= 0) return;
    if (window !== null && reported >= window) return;
    const ratio = reported / estimate;
    if (ratio >= MIN_RATIO && ratio <= MAX_RATIO) this.current = ratio;
  }
}

/** True when an estimate misses the reported count by more than 10% of it; null without a reported count. */
export function estimateIsOff(estimate: number, reported: number | null): boolean | null {
  if (reported === null || reported <= 0) return null;
  return Math.abs(reported - estimate) > OFF_SHARE * reported;
}
