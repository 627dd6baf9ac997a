// How every page writes a statistic: rates and intervals as percentages with one decimal, efficiencies with three,
// costs in dollars with four, an unknown cost as "unknown" (never $0 or blank). Each is rounded once, from the
// unrounded value, so one number never shows as 56.6% on one page and 56.5% on another.

/** A proportion as a percentage with one decimal: 0.56549 -> "56.5%"; null -> "-". */
export function formatRate(x: number | null | undefined): string {
  return x === null || x === undefined ? '-' : `${(x * 100).toFixed(1)}%`;
}

/** An interval of proportions: "20.6% - 100.0%"; "-" when either bound is missing. */
export function formatInterval(low: number | null | undefined, high: number | null | undefined): string {
  return low === null || low === undefined || high === null || high === undefined
    ? '-'
    : `${formatRate(low)} - ${formatRate(high)}`;
}

/** A plain number with `digits` decimals (efficiency 3, actions and tokens 1); null -> "-". */
export function formatNumber(x: number | null | undefined, digits: number): string {
  return x === null || x === undefined ? '-' : x.toFixed(digits);
}

/** Dollars with four decimals; null (a model without a price) -> "unknown". */
export function formatCost(usd: number | null | undefined): string {
  return usd === null || usd === undefined ? 'unknown' : `$${usd.toFixed(4)}`;
}
