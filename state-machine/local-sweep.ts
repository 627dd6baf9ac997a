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
import { resumeInput, runLocalExperiment } from './local-experiment.ts';
import { sweepExperimentId, sweepRunInput, type LoadedSweep, type SweepRun } from '../core/sweeps/sweep-spec.ts';
import { registerSweep } from '../core/sweeps/sweep-registry.ts';
import { sweepRunOrder } from '../core/sweeps/sweep-order.ts';
import { experimentState, latestSweepAttempts, sweepSpend } from '../results/run-state.ts';
import type { LocalRunOptions } from './local-runner.ts';
import { SweepLock, type SweepLockLostError } from './sweep-lock.ts';
import { patiently } from '../core/store/retry-query.ts';
import { SharedBudget } from '../core/engine/token-cost.ts';
import { refuseUnpricedSweepBudget } from '../core/sweeps/sweep-budget.ts';

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
}

/** What each run needs, from the latest attempt in the database, in the order they start (sweep-order.ts). */
async function planSweep(db: Sql, s: LoadedSweep): Promise<PlannedRun[]> {
  const rows = await patiently(() => latestSweepAttempts(db, s.spec.sweep));
  const latest = new Map(rows.map((r) => [`${r.sweep_cell}/${r.sweep_repeat}`, r]));
  return sweepRunOrder(s.spec.sweep, s.runs).map((run): PlannedRun => {
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

export async function runLocalSweep(file: LoadedSweep, opts: LocalSweepOptions): Promise<SweepResult> {
  // the sweep as registered: grown, its cells at the indices the database gave them (sweep-growth.ts)
  let s = file;
  const started = Date.now();
  // Runs stop at their next turn on the caller's signal, or when another process took the sweep while this one's
  // lock was gone with its connection.
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  const taken: { away: SweepLockLostError | null } = { away: null };
  const outages = { count: 0, seconds: 0 };
  let report = () => {};
  let lostAt: number | null = null;
  const lock = await SweepLock.take(opts.db, s.spec.sweep, {
    onLost: () => {
      lostAt = Date.now();
      report();
    },
    onRetaken: (ms) => {
      lostAt = null;
      outages.count++;
      outages.seconds += ms / 1000;
      report();
    },
    onTaken: (err) => {
      taken.away = err;
      stop.abort(err.message);
    },
  });
  try {
    const defaults = (await opts.parameters?.get())?.config;
    refuseUnpricedSweepBudget(file, defaults);
    s = await patiently(() => registerSweep(opts.db, file));
    const plan = await planSweep(opts.db, s);
    const planned: Record<RunAction, number> = { start: 0, resume: 0, retry: 0, skip: 0 };
    for (const p of plan) planned[p.action]++;
    const progress: SweepProgress = {
      total: plan.length,
      skipped: planned.skip,
      done: planned.skip,
      successes: plan.filter((p) => p.finished?.goalFound).length,
      failed: 0,
      errors: new Map(),
      running: new Map(),
      startedAt: started,
      databaseLostAt: null,
      databaseOutages: outages,
    };
    report = () => {
      progress.databaseLostAt = lostAt;
      opts.onProgress?.(progress);
    };
    opts.onProgress?.(progress);
    const queue = plan.filter((p) => p.action !== 'skip');
    const interrupted: string[] = [];
    let stoppedBeforeStart = 0;
    // once interrupted, no run starts: the rest stay queued, for the next `sweep` of the file; nor while the sweep's
    // lock is away with its connection
    let budgetSpent: SweepResult['budgetSpent'];
    // what every run of the sweep spent before, then charged reply by reply by the runs in flight (token-cost.ts)
    const budget = s.spec.budget
      ? new SharedBudget(s.spec.budget, await patiently(() => sweepSpend(opts.db, s.spec.sweep)))
      : undefined;
    const ran: SweepResult['ran'] = { start: 0, resume: 0, retry: 0 };
    const take = async () => {
      await lock.held();
      if (signal.aborted || budgetSpent) return undefined;
      const reason = queue.length > 0 ? budget?.reached() : null;
      if (budget && reason) {
        budgetSpent = { reason, limit: budget.budget[reason]!, spent: budget.spent, notStarted: 0 };
        return undefined;
      }
      const next = queue.shift();
      if (next && next.action !== 'skip') ran[next.action]++;
      return next;
    };
    const worker = async () => {
      for (let next = await take(); next; next = await take()) {
        const p = next;
        const key = `${p.run.cell.key} | repeat ${p.run.repeat}`;
        progress.running.set(p.experimentId, { key, turn: 0, actions: 0 });
        opts.onProgress?.(progress);
        const onTurn = (t: TurnSummary) => {
          progress.running.set(p.experimentId, { key, turn: t.turnNumber, actions: t.actionsTaken });
          opts.onProgress?.(progress);
        };
        const input =
          p.action === 'resume'
            ? await patiently(() => resumeInput(opts.db, p.experimentId))
            : sweepRunInput(s.spec.sweep, p.run, p.attempt);
        try {
          const result = await runLocalExperiment(input as never, {
            db: opts.db,
            agents: opts.agents,
            parameters: opts.parameters,
            retryIntervals: opts.retryIntervals,
            telemetry: opts.telemetry,
            onTurn,
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
            signal,
            sharedBudget: budget,
            executionName: p.action === 'resume' ? `${p.experimentId}-resume-${Date.now()}` : p.experimentId,
          });
          const summary = result.summary ?? (await patiently(() => experimentState(opts.db, p.experimentId)));
          if (summary?.goal_found) progress.successes++;
        } catch (err) {
          if ((err as Error).name === 'ExperimentInterruptedError') {
            // marked interrupted, still running: the next `sweep` of the file resumes it
            // (none when it stopped before its experiment started: then it was not started, and nothing was written)
            const id = (err as { experimentId: string | null }).experimentId;
            if (id !== null) interrupted.push(id);
            else {
              stoppedBeforeStart++;
              if (p.action !== 'skip') ran[p.action]--;
            }
            progress.running.delete(p.experimentId);
            continue;
          }
          // the experiment is finalized failed (its reason is in the database); the sweep goes on
          progress.failed++;
          const name = errorName(err);
          progress.errors.set(name, (progress.errors.get(name) ?? 0) + 1);
        }
        progress.running.delete(p.experimentId);
        progress.done++;
        opts.onProgress?.(progress);
      }
    };
    const concurrency = Math.max(1, opts.concurrency ?? s.spec.max_concurrency);
    // each run in flight listens on the sweep's signal while it runs (local-runner.ts: a stop during a wait), so
    // Node's leak warning at 11 listeners would fire at every sweep wider than 10; a real leak still passes this
    setMaxListeners(4 * concurrency + 10, signal);
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length || 1) }, worker));
    if (taken.away) throw taken.away;
    // the runs in flight may have reached the budget after the last run started: then nothing was left unstarted
    const reason = budget?.reached();
    if (budget && reason && !budgetSpent)
      budgetSpent = { reason, limit: budget.budget[reason]!, spent: budget.spent, notStarted: 0 };
    // what the runs kept (their committed turns), as the database holds it
    if (budgetSpent) budgetSpent.spent = await patiently(() => sweepSpend(opts.db, s.spec.sweep));
    return {
      sweep: s.spec.sweep,
      planned,
      ran,
      notStarted: queue.length + stoppedBeforeStart,
      done: progress.done,
      successes: progress.successes,
      failed: progress.failed,
      seconds: (Date.now() - started) / 1000,
      databaseOutages: outages,
      ...(budgetSpent ? { budgetSpent: { ...budgetSpent, notStarted: queue.length } } : {}),
      ...(opts.signal?.aborted
        ? {
            interrupted: {
              // by id, not in the race of which stopped first
              runs: interrupted.sort(),
              notStarted: queue.length + stoppedBeforeStart,
            },
          }
        : {}),
    };
  } finally {
    await lock.release();
  }
}
