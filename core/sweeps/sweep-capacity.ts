// How wide and how long a sweep may run in its account: the one arithmetic the CLI (`ariadne sweep FILE --aws`,
// before uploading) and RegisterSweep (at run time) share. Width: each experiment in flight holds about one Lambda
// invocation, so the Map's MaxConcurrency must fit the unreserved concurrency (new accounts have far less than
// aws-facts: lambda.default-concurrent-executions; an unbounded Map runs sfn.max-map-run-child-executions). Length:
// the sweep must end within one Standard execution (aws-facts: sfn.max-standard-execution-seconds); see sweepDuration.
import { DEFAULT_CONFIG } from '../config/experiment-config.ts';
import { turnReserveSeconds } from '../machine/tasks.ts';
import { fact } from '../../aws-facts/facts.ts';

/**
 * What GetAccountSettings says of the account's Lambda concurrency in the sweep's Region; unreserved: what no function
 * has reserved (aws-facts: lambda.unreserved-concurrency).
 */
export interface AccountConcurrency {
  concurrentExecutions: number;
  unreservedConcurrentExecutions: number;
}

/**
 * The share of the unreserved pool a sweep leaves to everything else, and at least this many executions: the same
 * pool runs RegisterSweep and the EventBridge finalizer, experiments launched outside the sweep (`ariadne launch`),
 * a second sweep, and the account's other functions. A fifth keeps a sweep from throttling them (and itself) on a
 * busy account; two keeps the finalizer and one launch going on a new account of 10.
 */
export const HEADROOM_SHARE = 0.2;
export const MIN_HEADROOM = 2;

/** The most experiments a sweep runs at once in an account with `unreserved` concurrent executions free. */
export function sweepConcurrencyCap(unreserved: number): number {
  const headroom = Math.max(MIN_HEADROOM, Math.ceil(unreserved * HEADROOM_SHARE));
  return Math.max(1, Math.floor(unreserved) - headroom);
}

export interface ConcurrencyDecision {
  /** What the sweep file or --concurrency asked for. */
  requested: number;
  /** What the Map runs at: the request, capped to the account. */
  maxConcurrency: number;
  /** The account's unreserved concurrency and the cap from it; null when it could not be read. */
  unreserved: number | null;
  cap: number | null;
  capped: boolean;
  /** The decision in a sentence (the CLI's stderr line, RegisterSweep's output). */
  note: string;
}

/** The Map's MaxConcurrency for a request, given the account's concurrency or why it could not be read. */
export function capConcurrency(
  requested: number,
  account: AccountConcurrency | { error: string },
  region = 'this Region',
): ConcurrencyDecision {
  if ('error' in account)
    return {
      requested,
      maxConcurrency: requested,
      unreserved: null,
      cap: null,
      capped: false,
      note:
        `Lambda concurrency of the account in ${region} not read (${account.error}): ${requested} at a time as ` +
        'asked; a throttled turn is retried (Lambda.TooManyRequestsException), not failed',
    };
  const unreserved = account.unreservedConcurrentExecutions;
  const cap = sweepConcurrencyCap(unreserved);
  const capped = requested > cap;
  const maxConcurrency = Math.min(requested, cap);
  const pool =
    `the account has ${unreserved} unreserved Lambda concurrent executions in ${region} ` +
    `(of ${account.concurrentExecutions}); a sweep uses at most ${cap}, one per experiment running, and leaves ` +
    `${unreserved - cap} for everything else`;
  return {
    requested,
    maxConcurrency,
    unreserved,
    cap,
    capped,
    note: capped
      ? `${maxConcurrency} experiments at a time, not ${requested}: ${pool}`
      : `${maxConcurrency} experiments at a time: ${pool}`,
  };
}

/** One year: the longest a Standard execution runs, the sweep machine's own timeout. */
export const STANDARD_EXECUTION_MAX_SECONDS = fact('sfn.max-standard-execution-seconds').value;

/**
 * What a wave of runs may take beyond its longest max_duration_minutes: the last turn, checked after it ends, with
 * its retries (a throttled account's waits too) and a continue-as-new hop: the turn reserve of the slowest provider.
 */
const RUN_END_SECONDS = Math.max(...(['bedrock', 'ollama', 'openai', 'baseline'] as const).map(turnReserveSeconds));

/** Start-up, finalizing and a resuming database between waves, and slots freed late: a quarter more. */
export const SWEEP_TIME_MARGIN = 1.25;

export interface SweepDuration {
  runs: number;
  /** Runs after one another in one slot: ceil(runs / maxConcurrency). */
  waves: number;
  /** The longest run may take: its max_duration_minutes and RUN_END_SECONDS. */
  perRunSeconds: number;
  /** waves x perRunSeconds x SWEEP_TIME_MARGIN: the most the sweep should take. */
  boundSeconds: number;
  limitSeconds: number;
  fits: boolean;
}

/** A run's own time limit: max_duration_minutes from its config, else the deployed default, else the code's. */
function maxDurationSeconds(config: { max_duration_minutes?: unknown }, deployedMinutes?: number): number {
  const minutes = config.max_duration_minutes;
  return (typeof minutes === 'number' ? minutes : (deployedMinutes ?? DEFAULT_CONFIG.max_duration_minutes)) * 60;
}

/**
 * How long the sweep's runs take at `maxConcurrency` at most: every wave as long as its longest run. The sweep
 * machine's own TimeoutSeconds is the Standard execution's year (lib/sweep-state-machine.ts; without one it would
 * wait forever, aws-facts: sfn.timeout-seconds-unset). A state-level timeout is a Task's; a Map state has none, so
 * a sweep that cannot end within the year at its width is refused here, and each iteration keeps its own
 * TimeoutSeconds (EXPERIMENT_MAX_LIFE) for a token that never comes back: the sweep then ends within waves x that life
 * at worst. A run whose config leaves max_duration_minutes out gets
 * `deployedMinutes` (Parameter Store's <prefix>/config/max_duration_minutes, as StartExperiment will merge it), else
 * the code default.
 */
export function sweepDuration(
  runConfigs: ReadonlyArray<{ max_duration_minutes?: unknown }>,
  maxConcurrency: number,
  deployedMinutes?: number,
): SweepDuration {
  const longest = runConfigs.reduce((most, c) => Math.max(most, maxDurationSeconds(c, deployedMinutes)), 0);
  const perRunSeconds = Math.ceil(longest + RUN_END_SECONDS);
  const waves = Math.ceil(runConfigs.length / maxConcurrency);
  const boundSeconds = Math.ceil(waves * perRunSeconds * SWEEP_TIME_MARGIN);
  return {
    runs: runConfigs.length,
    waves,
    perRunSeconds,
    boundSeconds,
    limitSeconds: STANDARD_EXECUTION_MAX_SECONDS,
    fits: boundSeconds <= STANDARD_EXECUTION_MAX_SECONDS,
  };
}

const days = (seconds: number) => (seconds / 86_400).toFixed(seconds < 864_000 ? 1 : 0);

/** The duration in a sentence. */
export function durationNote(d: SweepDuration, maxConcurrency: number): string {
  return (
    `${d.runs} runs, ${maxConcurrency} at a time: ${d.waves} after one another of up to ` +
    `${(d.perRunSeconds / 3600).toFixed(1)} h each, at most ${days(d.boundSeconds)} days with a margin of ` +
    `${Math.round((SWEEP_TIME_MARGIN - 1) * 100)}% (a Standard execution may run ${days(d.limitSeconds)} days)`
  );
}

/** A sweep that could not end within one Standard execution at the width the account allows. */
export class SweepTooLongError extends Error {
  override readonly name = 'SweepTooLongError';
  constructor(
    readonly sweep: string,
    readonly duration: SweepDuration,
    readonly maxConcurrency: number,
  ) {
    super(
      `sweep "${sweep}" cannot end within one Step Functions execution: ${durationNote(duration, maxConcurrency)}; ` +
        'split it into smaller sweeps, lower max_duration_minutes, or run more at a time (max_concurrency, within ' +
        "the account's Lambda concurrency: ask for a higher quota in Service Quotas)",
    );
  }
}

/**
 * The width and length a sweep gets in the account, the one decision the CLI (before anything is uploaded) and
 * RegisterSweep (at run time) both make: the request capped to the account, and the runs' duration at that width
 * (a run without its own max_duration_minutes counting `deployedMinutes`). A sweep that cannot end within one
 * Standard execution is refused with SweepTooLongError.
 */
export function fitToAccount(
  sweep: string,
  runConfigs: ReadonlyArray<{ max_duration_minutes?: unknown }>,
  requested: number,
  account: AccountConcurrency | { error: string },
  region: string | undefined,
  deployedMinutes: number | undefined,
): { concurrency: ConcurrencyDecision; duration: SweepDuration } {
  const concurrency = capConcurrency(requested, account, region);
  const duration = sweepDuration(runConfigs, concurrency.maxConcurrency, deployedMinutes);
  if (!duration.fits) throw new SweepTooLongError(sweep, duration, concurrency.maxConcurrency);
  return { concurrency, duration };
}
