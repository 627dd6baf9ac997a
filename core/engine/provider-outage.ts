// A model provider down for longer than a turn's retries is an outage, not the run's failure: the experiment waits
// with backoff and tries the turn again, up to provider_outage_wait_minutes (then it ends failed, an infrastructure
// outcome). The machine carries what was waited (OutageState) and CheckProgress decides here, from its input and the
// clock. Time waited does not count toward max_duration_minutes: an outage must not shorten the navigation.

/** Carried in the loop state. */
export interface OutageState {
  /** Waits before the turn now being tried, and their seconds (the turn records both when it commits). */
  waits: number;
  seconds: number;
  /** Seconds the experiment has waited for its provider, all turns and executions: left out of its duration. */
  total: number;
  /** Waits in this execution (each costs history events, counted against the execution's quota). */
  here: number;
}

export const NO_OUTAGE: OutageState = { waits: 0, seconds: 0, total: 0, here: 0 };

/** The first wait, doubled each time up to the longest: 15, 30, 60, 120, 240, 300, 300... seconds. */
const FIRST_WAIT_SECONDS = 15;
const LONGEST_WAIT_SECONDS = 300;

export function outageWaitSeconds(waits: number): number {
  return Math.min(FIRST_WAIT_SECONDS * 2 ** waits, LONGEST_WAIT_SECONDS);
}

/**
 * History events one wait costs an execution: the turn Task failing through its retries (3 tries of 5 events),
 * CheckProgress (5), ConditionCheck, the Wait and the Pass after it (2 each), ProviderRouter (2).
 */
export const EVENTS_PER_OUTAGE_WAIT = 28;

/** The error the turn failed with, as the Catch put it in the state. */
export interface CaughtError {
  Error: string;
  Cause?: string;
}

/** What the outage leads to: a wait, the end of the run, or first a new execution with room for the wait. */
export type OutageDecision =
  | { decision: 'provider_wait'; waitSeconds: number; outage: OutageState }
  | { decision: 'provider_outage'; detail: string }
  | { decision: 'same_turn_in_new_execution'; reason: 'execution_time' | 'history_quota' };

export function providerOutage(p: {
  outage: OutageState;
  /** provider_outage_wait_minutes, in seconds. */
  ceilingSeconds: number;
  error: CaughtError;
  /** Whether this execution has time and history left for the wait and a turn after it. */
  fits: (waitSeconds: number, waitsHere: number) => 'yes' | 'execution_time' | 'history_quota';
}): OutageDecision {
  const wait = outageWaitSeconds(p.outage.waits);
  if (p.outage.seconds + wait > p.ceilingSeconds) {
    const waited =
      p.outage.waits === 0
        ? 'no wait allowed (provider_outage_wait_minutes 0)'
        : `after ${p.outage.waits} wait(s), ${p.outage.seconds} s in all, the most provider_outage_wait_minutes ` +
          `(${p.ceilingSeconds / 60}) allows`;
    return { decision: 'provider_outage', detail: `the provider stayed unavailable, ${waited}: ${causeOf(p.error)}` };
  }
  const fits = p.fits(wait, p.outage.here + 1);
  if (fits !== 'yes') return { decision: 'same_turn_in_new_execution', reason: fits };
  return {
    decision: 'provider_wait',
    waitSeconds: wait,
    outage: {
      waits: p.outage.waits + 1,
      seconds: p.outage.seconds + wait,
      total: p.outage.total + wait,
      here: p.outage.here + 1,
    },
  };
}

/** The caught error's message: Lambda's JSON error ({"errorMessage": ...}) or the local runner's text. */
function causeOf(e: CaughtError): string {
  const cause = e.Cause ?? '';
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') return `${e.Error}: ${parsed.errorMessage}`;
  } catch {
    /* not JSON */
  }
  return cause.startsWith(e.Error) ? cause : `${e.Error}: ${cause}`;
}
