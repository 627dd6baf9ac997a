// A sweep on this machine: the experiment state machine run locally for every run, `concurrency` at a time (a
// Distributed Map does this on AWS). Resumable: a finished run is skipped, one left running by a dead process resumed
// where its turns stopped, a failed one tried again as a new attempt. One process per sweep (an advisory lock), so
// "running" here always means "interrupted".
import { setMaxListeners } from 'node:events';
import type { Database } from '../core/store/database.ts';
import type { Sql } from '../core/store/sql.ts';
import type { AgentFactory } from '../core/engine/agent.ts';
import type { ParameterCache } from '../core/config/parameters.ts';
import type { Spend, TurnSummary } from '../core/engine/store.ts';
import type { Telemetry } from '../core/telemetry/telemetry.ts';
import { ExperimentInterruptedError, resumeInput, runLocalExperiment } from './local-experiment.ts';
import { sweepExperimentId, sweepRunInput, type LoadedSweep, type SweepRun } from '../core/sweeps/sweep-spec.ts';
import type { StartExecutionInput } from '../core/machine/contracts.ts';
import { registerSweep } from '../core/sweeps/sweep-registry.ts';
import { sweepRunOrder } from '../core/sweeps/sweep-order.ts';
import { experimentState, latestSweepAttempts, sweepSpend } from '../results/run-state.ts';
import type { LocalRunOptions } from './local-runner.ts';
import type { LocalExperimentOptions } from './local-experiment.ts';
import { SweepLock, type SweepLockLostError } from './sweep-lock.ts';
import { patiently } from '../core/store/retry-query.ts';
import { SharedBudget } from '../core/engine/token-cost.ts';
import { refuseUnpricedSweepBudget } from '../core/sweeps/sweep-budget.ts';
import { SweepStopRule } from '../reports/sweep-stop-rule.ts';
import { sweepDefinition } from './definition.ts';
import {
  EXCEEDED_TOLERANCE,
  mapWidth,
  runSweepList,
  sweepMapRules,
  ToleratedFailuresExceededError,
  type RunEnd,
  type SweepRunnerResult,
} from './sweep-runner.ts';

type RunAction = 'start' | 'resume' | 'retry' | 'skip';

interface PlannedRun {
  run: SweepRun;
  action: RunAction;
  attempt: number;
  experimentId: string;
  finished?: { goalFound: boolean };
}

export interface SweepProgress {
  total: number;
  skipped: number;
  done: number;
  successes: number;
  /** Runs ended by an error (infrastructure, provider, database): not navigation failures, out of the rate. */
  failed: number;
  /** The errors' names (ProviderTransientError, ...) and how many runs each ended. */
  errors: Map<string, number>;
  /**
   * Runs in flight: experiment id -> what it is doing; `waiting` while it waits out its provider's outage (the
   * waits so far, and since when this one).
   */
  running: Map<string, { key: string; turn: number; actions: number; waiting?: { waits: number; since: number } }>;
  startedAt: number;
  /** Since when the database has been unreachable (its connection dropped); null while it answers. */
  databaseLostAt: number | null;
  /** Database outages ridden out so far, and how long they took in all. */
  databaseOutages: { count: number; seconds: number };
}

export interface SweepResult {
  sweep: string;
  /** What the runs needed when the sweep started: start (never tried), resume, retry, skip (finished before). */
  planned: Record<RunAction, number>;
  /** What this sweep did of that: the runs it started, resumed and retried (a run stopped before it began: none). */
  ran: Record<Exclude<RunAction, 'skip'>, number>;
  /** Runs it needed and did not start (its budget spent, or interrupted): they are the next `sweep`'s. */
  notStarted: number;
  done: number;
  successes: number;
  failed: number;
  seconds: number;
  /** Interrupted through `signal`: the runs marked interrupted (their turns kept), and the runs not started. */
  interrupted?: { runs: string[]; notStarted: number };
  /**
   * The sweep's budget was spent: which one, what its runs spent, and the runs it did not start. Its runs in flight
   * stopped at their next model call (their stop reason the budget's), so the spend passes the budget by at most one
   * model call per run in flight.
   */
  budgetSpent?: { reason: 'max_cost_usd' | 'max_tokens'; limit: number; spent: Spend; notStarted: number };
  /** The sweep's stop_when decided: what, and the runs it did not start (reports/sequential-stop.ts). */
  stoppedWhen?: { reason: string; notStarted: number };
  /** Database outages ridden out (connections dropped, the sweep's lock taken again), and their time in all. */
  databaseOutages: { count: number; seconds: number };
}

export interface LocalSweepOptions {
  db: Database;
  concurrency?: number;
  parameters?: ParameterCache;
  agents?: AgentFactory;
  retryIntervals?: LocalRunOptions['retryIntervals'];
  waitIntervals?: LocalRunOptions['waitIntervals'];
  onProgress?: (p: SweepProgress) => void;
  /** Interrupts the sweep once aborted: no run starts; the runs in flight stop after their turn, marked interrupted. */
  signal?: AbortSignal;
  /** Every run's log lines (LocalExperimentOptions.telemetry). */
  telemetry?: Telemetry;
  /** The sweep machine whose Map the runs follow (default: the stack's own, synthesized). */
  sweepDefinition?: Parameters<typeof sweepMapRules>[0];
  /** What a new run starts with, from its input as planned (a replay takes its recorded counterpart's seed). */
  startInput?: (input: StartExecutionInput) => Promise<StartExecutionInput>;
}

/** What each run needs, from the latest attempt in the database, in the order they start (sweep-order.ts). */
async function planSweep(db: Sql, s: LoadedSweep): Promise<PlannedRun[]> {
  const rows = await patiently(() => latestSweepAttempts(db, s.spec.sweep));
  const latest = new Map(rows.map((r) => [`${r.sweep_cell}/${r.sweep_repeat}`, r]));
  return sweepRunOrder(s.spec.sweep, s.runs, s.spec.stop_when !== undefined).map((run): PlannedRun => {
    const r = latest.get(`${run.cell.index}/${run.repeat}`);
    if (!r) return { run, action: 'start', attempt: 1, experimentId: sweepExperimentId(s.spec.sweep, run, 1) };
    if (r.status === 'running') return { run, action: 'resume', attempt: r.sweep_attempt, experimentId: r.id };
    if (r.status === 'failed')
      return {
        run,
        action: 'retry',
        attempt: r.sweep_attempt + 1,
        experimentId: sweepExperimentId(s.spec.sweep, run, r.sweep_attempt + 1),
      };
    return { run, action: 'skip', attempt: r.sweep_attempt, experimentId: r.id, finished: { goalFound: r.goal_found } };
  });
}

/** What ended a run, as the live line names it: the stored failure reason's name ("Name: message"), else its own. */
function errorName(err: unknown): string {
  const reason = (err as { summary?: { failure_reason?: string | null } | null }).summary?.failure_reason;
  if (reason) return reason.split(':')[0];
  const cause = (err as { cause?: unknown }).cause ?? err;
  return cause instanceof Error ? cause.name : 'Error';
}

/** A run's end for the sweep runner; `interrupted`: the experiment it marked interrupted (the next sweep resumes). */
interface LocalEnd {
  status: RunEnd;
  action: RunAction;
  interrupted?: string;
}

/** What the runs of one sweep share while it runs. */
interface SweepContext {
  s: LoadedSweep;
  opts: LocalSweepOptions;
  progress: SweepProgress;
  signal: AbortSignal;
  budget?: SharedBudget;
}

const startInputOf = (opts: LocalSweepOptions) =>
  opts.startInput ?? ((input: StartExecutionInput) => Promise.resolve(input));

/** How one run of the sweep is started and awaited here: its experiment run in this process to its end. */
async function runPlanned(p: PlannedRun, c: SweepContext): Promise<LocalEnd> {
  const { opts, progress } = c;
  const key = `${p.run.cell.key} | repeat ${p.run.repeat}`;
  progress.running.set(p.experimentId, { key, turn: 0, actions: 0 });
  opts.onProgress?.(progress);
  const input =
    p.action === 'resume'
      ? await patiently(() => resumeInput(opts.db, p.experimentId))
      : await startInputOf(opts)(sweepRunInput(c.s.spec.sweep, p.run, p.attempt));
  let status: RunEnd = 'SUCCEEDED';
  try {
    const result = await runLocalExperiment(input as never, experimentOptions(p, key, c));
    const summary = result.summary ?? (await patiently(() => experimentState(opts.db, p.experimentId)));
    if (summary?.goal_found) progress.successes++;
  } catch (err) {
    if (err instanceof ExperimentInterruptedError) {
      progress.running.delete(p.experimentId);
      // marked interrupted, still running: the next `sweep` of the file resumes it (none when it stopped before its
      // experiment started: then it was not started, and nothing was written)
      const id = err.experimentId;
      return id !== null
        ? { status: 'STOPPED', action: p.action, interrupted: id }
        : { status: 'NOT_STARTED', action: p.action };
    }
    // the experiment is finalized failed (its reason is in the database); the sweep goes on
    status = 'FAILED';
    progress.failed++;
    const name = errorName(err);
    progress.errors.set(name, (progress.errors.get(name) ?? 0) + 1);
  }
  progress.running.delete(p.experimentId);
  progress.done++;
  opts.onProgress?.(progress);
  return { status, action: p.action };
}

/** The experiment's options: the sweep's database, agents and signal, its turns and provider waits on the live line. */
function experimentOptions(p: PlannedRun, key: string, c: SweepContext): LocalExperimentOptions {
  const { opts, progress } = c;
  return {
    db: opts.db,
    agents: opts.agents,
    parameters: opts.parameters,
    retryIntervals: opts.retryIntervals,
    telemetry: opts.telemetry,
    onTurn: (t: TurnSummary) => {
      progress.running.set(p.experimentId, { key, turn: t.turnNumber, actions: t.actionsTaken });
      opts.onProgress?.(progress);
    },
    onProviderWait: (w) => {
      const entry = progress.running.get(p.experimentId);
      if (!entry) return;
      progress.running.set(p.experimentId, {
        key: entry.key,
        turn: entry.turn,
        actions: entry.actions,
        ...(w ? { waiting: { waits: w.waits, since: w.since } } : {}),
      });
      opts.onProgress?.(progress);
    },
    waitIntervals: opts.waitIntervals,
    signal: c.signal,
    sharedBudget: c.budget,
    executionName: p.action === 'resume' ? `${p.experimentId}-resume-${Date.now()}` : p.experimentId,
  };
}

/** The sweep's lock as the live line sees it: since when it is away, the outages ridden out, who took it. */
class LockWatch {
  lostAt: number | null = null;
  readonly outages = { count: 0, seconds: 0 };
  taken: SweepLockLostError | null = null;
  report = () => {};

  constructor(private readonly stop: AbortController) {}

  readonly callbacks = {
    onLost: () => {
      this.lostAt = Date.now();
      this.report();
    },
    onRetaken: (ms: number) => {
      this.lostAt = null;
      this.outages.count++;
      this.outages.seconds += ms / 1000;
      this.report();
    },
    // another process took the sweep while this one's lock was gone with its connection: its runs stop
    onTaken: (err: SweepLockLostError) => {
      this.taken = err;
      this.stop.abort(err.message);
    },
  };
}

/** The progress before any run starts: the runs finished before are done already. */
function firstProgress(
  plan: PlannedRun[],
  planned: Record<RunAction, number>,
  watch: LockWatch,
  startedAt: number,
): SweepProgress {
  return {
    total: plan.length,
    skipped: planned.skip,
    done: planned.skip,
    successes: plan.filter((p) => p.finished?.goalFound).length,
    failed: 0,
    errors: new Map(),
    running: new Map(),
    startedAt,
    databaseLostAt: null,
    databaseOutages: watch.outages,
  };
}

export async function runLocalSweep(file: LoadedSweep, opts: LocalSweepOptions): Promise<SweepResult> {
  const started = Date.now();
  // Runs stop at their next turn on the caller's signal, or when another process took the sweep.
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  const watch = new LockWatch(stop);
  const lock = await SweepLock.take(opts.db, file.spec.sweep, watch.callbacks);
  try {
    const defaults = (await opts.parameters?.get())?.config;
    refuseUnpricedSweepBudget(file, defaults);
    // the sweep as registered: grown, its cells at the indices the database gave them (sweep-growth.ts)
    const s = await patiently(() => registerSweep(opts.db, file));
    const plan = await planSweep(opts.db, s);
    const planned: Record<RunAction, number> = { start: 0, resume: 0, retry: 0, skip: 0 };
    for (const p of plan) planned[p.action]++;
    const progress = firstProgress(plan, planned, watch, started);
    watch.report = () => {
      progress.databaseLostAt = watch.lostAt;
      opts.onProgress?.(progress);
    };
    opts.onProgress?.(progress);
    // what every run of the sweep spent before, then charged reply by reply by the runs in flight (token-cost.ts)
    const budget = s.spec.budget
      ? new SharedBudget(s.spec.budget, await patiently(() => sweepSpend(opts.db, s.spec.sweep)))
      : undefined;
    const rules = sweepMapRules(opts.sweepDefinition ?? sweepDefinition());
    // On AWS MaxConcurrencyPath reads RegisterSweep's answer: the width asked, capped to the account's free Lambda
    // concurrency (sweep-capacity.ts). A laptop has no Lambda account to fit: the width asked is the width.
    const width =
      typeof rules.maxConcurrency === 'number'
        ? mapWidth(rules.maxConcurrency)!
        : Math.max(1, opts.concurrency ?? s.spec.max_concurrency);
    // each run in flight listens on the sweep's signal while it runs (local-runner.ts: a stop during a wait), so
    // Node's leak warning at 11 listeners would fire at every sweep wider than 10; a real leak still passes this
    setMaxListeners(4 * width + 10, signal);
    const context: SweepContext = { s, opts, progress, signal, budget };
    const stopRule = s.spec.stop_when ? new SweepStopRule(opts.db, s.spec.sweep) : undefined;
    // The list is the runs still to run, as the database says (planSweep); the Map's holds every run, one already
    // run failing to start under its used name (AlreadyRun): the Map cannot read the database before it starts.
    const ran = await runSweepList(
      plan.filter((p) => p.action !== 'skip'),
      {
        width,
        toleratedFailurePercentage: rules.toleratedFailurePercentage,
        // Here, not on AWS, the sweep stops starting runs once interrupted, its budget spent or its stop_when
        // decided: the Map starts every run of its list (a run's own max_cost_usd still holds), and a stop there is
        // StopExecution of the whole. Nor does a run start while the sweep's lock is away with its connection.
        mayStart: async () => {
          await lock.held();
          if (signal.aborted) return 'interrupted';
          return budget?.reached() ?? (stopRule ? await patiently(() => stopRule.decided(progress.done)) : null);
        },
        run: (p) => runPlanned(p, context),
      },
    );
    if (watch.taken) throw watch.taken;
    if (ran.halted === EXCEEDED_TOLERANCE)
      throw new ToleratedFailuresExceededError(ran.counts.FAILED, ran.ends.length, rules.toleratedFailurePercentage);
    return await sweepResult(context, planned, ran, started, watch);
  } finally {
    await lock.release();
  }
}

/** What the sweep did, from what each run ended as; the spend as the database holds it (the runs' committed turns). */
async function sweepResult(
  c: SweepContext,
  planned: Record<RunAction, number>,
  list: SweepRunnerResult<LocalEnd>,
  started: number,
  watch: LockWatch,
): Promise<SweepResult> {
  const { s, opts, progress, budget } = c;
  const ran: SweepResult['ran'] = { start: 0, resume: 0, retry: 0 };
  const interrupted: string[] = [];
  for (const end of list.ends) {
    if (end && end.status !== 'NOT_STARTED' && end.action !== 'skip') ran[end.action]++;
    if (end?.interrupted) interrupted.push(end.interrupted);
  }
  const notStarted = list.untaken + list.counts.NOT_STARTED;
  // the budget that stopped the starts, else one the runs in flight reached after the last run started
  const halted = list.halted === 'max_cost_usd' || list.halted === 'max_tokens' ? list.halted : null;
  const reason = halted ?? budget?.reached();
  const budgetSpent: SweepResult['budgetSpent'] =
    budget && reason
      ? {
          reason,
          limit: budget.budget[reason]!,
          spent: await patiently(() => sweepSpend(opts.db, s.spec.sweep)),
          notStarted: list.untaken,
        }
      : undefined;
  return {
    sweep: s.spec.sweep,
    planned,
    ran,
    notStarted,
    done: progress.done,
    successes: progress.successes,
    failed: progress.failed,
    seconds: (Date.now() - started) / 1000,
    databaseOutages: watch.outages,
    ...(budgetSpent ? { budgetSpent } : {}),
    ...(list.halted?.startsWith('stop_when') ? { stoppedWhen: { reason: list.halted, notStarted: list.untaken } } : {}),
    // the interrupted runs by id, not in the race of which stopped first
    ...(opts.signal?.aborted ? { interrupted: { runs: interrupted.sort(), notStarted } } : {}),
  };
}
