// What a sweep does with its run list, written once: which run starts next, how many at once, what a failed or
// stopped run does to the rest, when the sweep stops starting runs, and what it counts. The local sweep
// (local-sweep.ts) and the rehearsal's Distributed Map (rehearsal/sweep-machine.ts) both drive it, with the Map's
// rules read from the synthesized sweep machine; each brings only how one run is started and awaited.
import { fact } from '../aws-facts/facts.ts';

/** How a run ended: its experiment ended (SUCCEEDED, FAILED), or it was stopped after it began, or before. */
export type RunEnd = 'SUCCEEDED' | 'FAILED' | 'STOPPED' | 'NOT_STARTED';

/** The Map state's fields that decide what the sweep does, as the synthesized sweep machine has them. */
export interface SweepMapRules {
  stateName: string;
  /** MaxConcurrency, or the reference path of the Map's input that holds it (MaxConcurrencyPath). */
  maxConcurrency: number | { path: string };
  toleratedFailurePercentage: number;
}

/** Map fields that would change which runs start or what a failure does, and that this runner does not do. */
const NOT_RUN = [
  'ItemBatcher',
  'ItemSelector',
  'ItemsPath',
  'ToleratedFailureCount',
  'ToleratedFailureCountPath',
  'ToleratedFailurePercentagePath',
];

/** The rules of one Map state; a field that would change the sweep and is not run here is refused, not ignored. */
export function mapRules(stateName: string, state: Record<string, unknown>): SweepMapRules {
  const refused = NOT_RUN.filter((field) => field in state);
  if (refused.length) throw new Error(`Map ${stateName}: ${refused.join(', ')} not run by the sweep runner`);
  const path = state.MaxConcurrencyPath;
  return {
    stateName,
    maxConcurrency: typeof path === 'string' ? { path } : Number(state.MaxConcurrency ?? 0),
    toleratedFailurePercentage: Number(state.ToleratedFailurePercentage ?? 0),
  };
}

/** The rules of the sweep machine's one Map state (its definition: definition.ts's sweepDefinition()). */
export function sweepMapRules(definition: { States: Record<string, Record<string, unknown>> }): SweepMapRules {
  const maps = Object.entries(definition.States).filter(([, state]) => state.Type === 'Map');
  if (maps.length !== 1) throw new Error(`the sweep machine has ${maps.length} Map states, not one`);
  return mapRules(maps[0][0], maps[0][1]);
}

/**
 * How many runs at once, from the MaxConcurrency asked (literal, or what its path read); null when it is not a count.
 * 0 is no limit of ours: a Distributed Map then runs up to `unlimited` child workflow executions at once, 10,000
 * (Developer Guide, "Using Map state in Distributed mode"; the rehearsal passes the fact it enforces).
 */
export function mapWidth(
  asked: unknown,
  unlimited: number = fact('sfn.max-map-run-child-executions').value,
): number | null {
  if (!Number.isInteger(asked) || (asked as number) < 0) return null;
  return (asked as number) || unlimited;
}

export interface SweepRunnerOptions<T, R extends { status: RunEnd }> {
  /** How many runs at once (mapWidth). */
  width: number;
  toleratedFailurePercentage: number;
  /**
   * Asked before each start while runs remain: a reason to start no more (the sweep interrupted, its budget spent),
   * else null. It may wait (while the sweep's lock is away with its database connection).
   */
  mayStart?: () => Promise<string | null>;
  /** Starts one run and awaits its end. */
  run: (item: T, index: number) => Promise<R>;
}

export interface SweepRunnerResult<R> {
  /** Each run's end by its index in the list; undefined: never taken. */
  ends: Array<R | undefined>;
  /** Runs never taken: the list's rest once the sweep stopped starting runs. */
  untaken: number;
  counts: Record<RunEnd, number>;
  maxInFlight: number;
  /** Why it stopped starting runs before the list's end: mayStart's reason, or EXCEEDED_TOLERANCE. */
  halted?: string;
}

/** More runs failed than the Map tolerates: the Map Run fails (States.ExceedToleratedFailureThreshold). */
export const EXCEEDED_TOLERANCE = 'ExceedToleratedFailureThreshold';

/** A sweep whose failures passed its Map's ToleratedFailurePercentage: it fails, as its execution would on AWS. */
export class ToleratedFailuresExceededError extends Error {
  override readonly name = 'ToleratedFailuresExceededError';
  constructor(failed: number, runs: number, tolerated: number) {
    super(`${failed} of ${runs} runs failed, over the tolerated ${tolerated}%`);
  }
}

/**
 * Runs the list in its order (the sweep's run order, sweep-order.ts), `width` at a time, the next as a slot frees.
 * A failed run does nothing to the rest unless the failures pass the tolerated percentage of the whole list; then,
 * as a Map Run that fails, no further run starts (AWS also aborts the children in flight; here they end by
 * themselves).
 */
export async function runSweepList<T, R extends { status: RunEnd }>(
  items: readonly T[],
  opts: SweepRunnerOptions<T, R>,
): Promise<SweepRunnerResult<R>> {
  const ends = new Array<R | undefined>(items.length);
  let taken = 0;
  const counts: Record<RunEnd, number> = { SUCCEEDED: 0, FAILED: 0, STOPPED: 0, NOT_STARTED: 0 };
  let inFlight = 0;
  let maxInFlight = 0;
  let halted: string | undefined;
  const take = async (): Promise<number | undefined> => {
    if (halted !== undefined || taken >= items.length) return undefined;
    const reason = (await opts.mayStart?.()) ?? null;
    // another worker may have halted the sweep or taken the last run while this one waited
    if (halted !== undefined || taken >= items.length) return undefined;
    if (reason !== null) {
      halted = reason;
      return undefined;
    }
    return taken++;
  };
  const worker = async () => {
    for (let index = await take(); index !== undefined; index = await take()) {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      let end: R;
      try {
        end = await opts.run(items[index], index);
      } finally {
        inFlight--;
      }
      ends[index] = end;
      counts[end.status]++;
      if (counts.FAILED * 100 > opts.toleratedFailurePercentage * items.length) halted ??= EXCEEDED_TOLERANCE;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.width, items.length)) }, worker));
  return { ends, untaken: items.length - taken, counts, maxInFlight, ...(halted ? { halted } : {}) };
}
