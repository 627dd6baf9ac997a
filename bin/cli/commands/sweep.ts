// ariadne sweep: a sweep file run locally with live progress (run it again to
// resume), or with --aws on the stack's sweep state machine.
import { Option, type Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { withCliDatabase } from '../database.ts';
import { EXIT } from '../exit-codes.ts';
import { commandPrefix } from '../invocation.ts';
import { withExample } from '../help.ts';
import { endpointOption, intOption, jsonOption, verboseOption } from '../options.ts';
import { addLiveOptions, liveStatus, type LiveOptions } from './live.ts';
import { envString } from '../../../core/config/environment.ts';
import { localParameters } from '../local-parameters.ts';
import { preflightAgents } from '../preflight.ts';
import { sweepProgress } from '../sweep-progress.ts';
import { estimateSweepSpend } from '../../../reports/spend-estimate.ts';
import { readSweepFile, startAwsSweep, sweepBucket } from '../sweep.ts';
import { resolveStack } from '../aws-stack.ts';
import { fitSweepToAccount } from '../sweep-fit.ts';
import { regionOf } from '../launch.ts';
import { openRunLog } from '../run-log.ts';
import { runLocalSweep, type LocalSweepOptions } from '../../../state-machine/local-sweep.ts';
import type { Database } from '../../../core/store/database.ts';
import { experimentDefinition } from '../../../state-machine/definition.ts';
import { interruptible } from '../interrupt.ts';
import type { LoadedSweep } from '../../../core/sweeps/sweep-spec.ts';
import { SweepForks, SweepReplay } from '../../../results/recorded-run.ts';
import { agentsWith } from '../../../core/providers/agents.ts';
import { sharedAgentDeps } from '../../../core/store/shared-agent-deps.ts';

interface SweepOptions {
  concurrency?: number;
  aws?: boolean;
  stack?: string;
  region?: string;
  stateMachineArn?: string;
  bucket?: string;
  endpoint?: string;
  json?: boolean;
  estimate?: boolean;
  verbose?: boolean;
  replayFrom?: string;
}

/** Runs ended by an error are not navigation failures: counted apart, out of the success rate. */
function errorsLine(r: { failed: number; sweep: string }): string {
  return r.failed === 0
    ? '0 errors'
    : `${r.failed} ended by an error (not in the rate; ${commandPrefix()} list --sweep ${r.sweep} --status failed)`;
}

async function sweep(file: string, o: SweepOptions): Promise<void> {
  const loaded = readSweepFile(file);
  if (o.estimate) return estimate(loaded, o);
  if (o.aws && o.replayFrom !== undefined)
    throw new InvalidInputError('--replay-from', o.replayFrom, '--replay-from runs on this machine: leave out --aws');
  if (o.aws && loaded.spec.forks)
    throw new InvalidInputError(
      'forks',
      loaded.spec.forks.from,
      'a sweep of forks runs on this machine: leave out --aws',
    );
  if (o.replayFrom !== undefined && loaded.spec.forks)
    throw new InvalidInputError('--replay-from', o.replayFrom, 'a sweep of forks cannot also be a replay');
  if (o.aws) return awsSweep(loaded, o);
  return localSweep(file, loaded, o);
}

/** What answers a replay's or a fork sweep's model calls from the record: the agents and each run's start input. */
function fromRecord(db: Database, loaded: LoadedSweep, o: SweepOptions): Partial<LocalSweepOptions> {
  if (o.replayFrom !== undefined) {
    const replay = new SweepReplay(db, o.replayFrom);
    return {
      agents: agentsWith({ ...sharedAgentDeps(db), replayFrom: (id) => replay.scriptFor(id) }),
      startInput: (input) => replay.startInput(input),
    };
  }
  const forks = loaded.spec.forks;
  if (!forks) return {};
  const sweepForks = new SweepForks(db, forks);
  return { startInput: (input) => sweepForks.startInput(input) };
}

/** The sweep on the stack's sweep state machine, fitted to the account first. */
async function awsSweep(loaded: LoadedSweep, o: SweepOptions): Promise<void> {
  let arn = o.stateMachineArn || envString('ARIADNE_SWEEP_STATE_MACHINE_ARN');
  let bucketName = o.bucket ?? envString('ARIADNE_SWEEP_BUCKET');
  // as every other --aws command: the stack's outputs name the sweep machine and its bucket (DescribeStacks)
  if (!arn || bucketName === undefined) {
    const outputs = await resolveStack({ stack: o.stack, region: o.region });
    arn ??= outputs.sweepStateMachineArn;
    bucketName ??= outputs.sweepBucketName;
  }
  if (!arn) throw new InvalidInputError('--state-machine-arn', arn, '--aws needs the sweep state machine of the stack');
  const bucket = sweepBucket(bucketName);
  // fitted to the account before anything is uploaded: its width, its length, its Bedrock rate limits
  const fit = await fitSweepToAccount(loaded, {
    region: regionOf(arn),
    requested: o.concurrency ?? loaded.spec.max_concurrency,
  });
  if (!o.json) for (const line of fit.lines) process.stderr.write(`${line}\n`);
  if (!o.json && loaded.spec.stop_when)
    process.stderr.write(
      `sweep ${loaded.spec.sweep}: its stop_when is judged by the local runner only; on AWS every run starts ` +
        `(in the same maze-by-maze order; ${commandPrefix()} stats still reports the confidence sequence)\n`,
    );
  // the sweep's budget is the local runner's: the Distributed Map starts every run of the list
  if (!o.json && loaded.spec.budget)
    process.stderr.write(
      `sweep ${loaded.spec.sweep}: its budget: is enforced by the local runner only; on AWS every run starts ` +
        "(each run's own config.max_cost_usd and max_tokens still hold)\n",
    );
  const target = { stateMachineArn: arn, bucket, endpoint: o.endpoint };
  const started = await startAwsSweep(fit.sweep, target, fit.maxConcurrency);
  const text = `started ${started.runs} runs of sweep ${loaded.spec.sweep}: ${started.executionArn}`;
  const fitted = { concurrency: fit.concurrency, duration: fit.duration, rateLimits: fit.rateLimits };
  process.stdout.write(`${o.json ? JSON.stringify({ ...started, ...fitted }) : text}\n`);
}

/**
 * Every distinct model host is checked before the first run, as `run` does: an unreachable host would otherwise
 * fail each of its runs after minutes of retries.
 */
async function preflightSweep(loaded: LoadedSweep, parameters: ReturnType<typeof localParameters>): Promise<void> {
  await preflightAgents(
    loaded.cells.map((c) => ({
      agent: c.agent,
      model: c.model,
      config: c.config,
      labels: {
        // the YAML key, in the sweep file's config or the agent's (else the parameters or the environment give it)
        host: c.agent === 'openai' ? 'config.openai.base_url' : 'config.ollama.host',
        model: `sweep agent "${c.label}": model`,
        of: ` (sweep agent "${c.label}")`,
      },
    })),
    (await parameters?.get())?.config,
  );
}

type LocalSweepResult = Awaited<ReturnType<typeof runLocalSweep>>;

/** The sweep run here, with live progress; run again to resume. */
async function localSweep(file: string, loaded: LoadedSweep, o: SweepOptions): Promise<void> {
  const parameters = localParameters();
  // a replay asks no model server: there is none to check
  if (o.replayFrom === undefined) await preflightSweep(loaded, parameters);
  const concurrency = o.concurrency ?? loaded.spec.max_concurrency;
  const log = (line: string) => {
    if (!o.json) process.stderr.write(`${line}\n`);
  };
  log(
    `sweep ${loaded.spec.sweep}: ${loaded.cells.length} cells x ${loaded.spec.repeats} repeats = ` +
      `${loaded.runs.length} runs, ${concurrency} at a time`,
  );
  const runLog = openRunLog({ verbose: o.verbose });
  log(`log: ${runLog.path}`);
  await withCliDatabase(
    async (db) => {
      experimentDefinition();
      const progress = sweepProgress();
      const again = `${commandPrefix()} sweep ${file}`;
      const interruption = interruptible({
        command: 'ariadne sweep',
        stopping: 'starting no more runs, stopping each run in flight after its turn',
        atOnce: () => `the runs in flight keep the turns before their last; resume them with: ${again}`,
        say: (text) => progress.note(text),
      });
      const result = await runLocalSweep(loaded, {
        db,
        ...fromRecord(db, loaded, o),
        concurrency,
        parameters,
        signal: interruption.signal,
        telemetry: runLog.telemetry,
        // --verbose streams log lines to stderr: the redrawn progress lines would overwrite them
        onProgress: (p) => (o.verbose ? undefined : progress.update(p)),
      }).finally(() => interruption.dispose());
      progress.done();
      if (result.interrupted) {
        sayInterrupted(result, again, o);
        process.exitCode = interruption.exitCode();
        return;
      }
      if (result.budgetSpent) sayBudgetSpent(result.budgetSpent, result.sweep, file);
      if (result.stoppedWhen)
        process.stderr.write(
          `sweep ${result.sweep} stopped starting runs: ${result.stoppedWhen.reason} (its confidence sequence ` +
            `excludes 0); ${result.stoppedWhen.notStarted} run(s) not started; ${commandPrefix()} stats ` +
            `${result.sweep} says what it decided and which guarantee holds\n`,
        );
      if (o.json) process.stdout.write(`${JSON.stringify(result)}\n`);
      else log(doneText(result));
      if (result.failed > 0 || result.budgetSpent) process.exitCode = EXIT.workFailed;
    },
    { log, poolSize: concurrency + 2 },
  ).finally(() => runLog.close());
}

function sayInterrupted(result: LocalSweepResult, again: string, o: SweepOptions): void {
  const { runs, notStarted } = result.interrupted!;
  process.stderr.write(
    `sweep ${result.sweep} interrupted: ${runs.length} run(s) marked interrupted (their logs kept)` +
      `${runs.length > 0 ? `: ${runs.join(', ')}` : ''}; ${notStarted} not started; ` +
      `${result.done} done; resume with: ${again}\n`,
  );
  if (o.json) process.stdout.write(`${JSON.stringify(result)}\n`);
}

function sayBudgetSpent(b: NonNullable<LocalSweepResult['budgetSpent']>, sweepId: string, file: string): void {
  const spent =
    b.reason === 'max_cost_usd' ? `$${b.spent.costUsd.toFixed(4)}` : `${b.spent.tokens.toLocaleString('en-US')} tokens`;
  const limit = b.reason === 'max_cost_usd' ? `$${b.limit}` : `${b.limit.toLocaleString('en-US')} tokens`;
  process.stderr.write(
    `sweep ${sweepId} stopped starting runs: its runs spent ${spent}, its budget.${b.reason} is ${limit}; ` +
      `${b.notStarted} run(s) not started (the runs in flight stopped at their next model call); raise ` +
      `budget.${b.reason} in ${file} and run it again to go on\n`,
  );
}

/** The closing lines: what ran, how it ended, and where to look next. */
function doneText(result: LocalSweepResult): string {
  const outages = result.databaseOutages;
  return (
    `sweep ${result.sweep}: ${result.planned.skip} already done, ${result.ran.start} started, ` +
    `${result.ran.resume} resumed, ${result.ran.retry} retried, ${result.notStarted} not started; ` +
    `${result.successes}/${result.done - result.failed} succeeded, ${errorsLine(result)}, ` +
    `${result.seconds.toFixed(1)} s` +
    (outages.count > 0
      ? `; the database was unreachable ${outages.count} time(s), ${outages.seconds.toFixed(1)} s in all, waited out`
      : '') +
    '.\n' +
    `next: ${commandPrefix()} report ${result.sweep}   (statistics, charts and replays, as HTML)\n` +
    `      ${commandPrefix()} list --sweep ${result.sweep}   (its runs)\n` +
    `      ${commandPrefix()} sql "SELECT * FROM sweep_stats WHERE sweep_id = '${result.sweep}'"`
  );
}

const usd = (n: number) => (n >= 1 ? `$${n.toFixed(2)}` : `$${n.toPrecision(2)}`);
const tok = (n: number) => Math.round(n).toLocaleString('en-US');
type Range = { low: number; typical: number | null; high: number };
const rangeText = (r: Range | null, unit: (n: number) => string) =>
  r === null
    ? 'no price'
    : `${unit(r.low)} - ${unit(r.high)}${r.typical === null ? '' : ` (typical ${unit(r.typical)})`}`;

/** --estimate: what the runs still to run may spend, before anything starts (reports/spend-estimate.ts). */
async function estimate(loaded: LoadedSweep, o: SweepOptions) {
  const prompts = (await localParameters()?.get())?.prompts ?? {};
  await withCliDatabase(async (db) => {
    const e = await estimateSweepSpend(db, loaded, prompts);
    if (o.json) {
      process.stdout.write(`${JSON.stringify(e)}\n`);
      return;
    }
    const lines = [
      `sweep ${e.sweep}: ${e.runsToStart} run(s) still to run; already spent ${tok(e.spent.tokens)} tokens, ` +
        `${usd(e.spent.costUsd)}`,
      ...e.rows.map(
        (r) =>
          `  ${r.label} | ${r.observation} | ${r.runs} run(s) | tokens ${rangeText(r.tokens, tok)} | ` +
          `cost ${rangeText(r.costUsd, usd)} | from ${r.basis}`,
      ),
      `  all: tokens ${rangeText(e.total.tokens, tok)}; cost ${rangeText(e.total.costUsd, usd)}`,
      'low: every run at its optimum and the lowest rate seen; high: every run to max_moves at the highest ' +
        '(90th percentile, or one call per action with the whole output cap); a range, not an interval',
    ];
    // whether the budget covers the range, from what was spent already
    const covers = (spent: number, range: Range, limit: number) =>
      spent + range.high <= limit
        ? 'covers even the high estimate'
        : spent + range.low > limit
          ? 'below even the low estimate: the sweep will stop before its runs are done'
          : 'inside the range: the sweep may stop before its runs are done';
    const b = e.budget;
    if (b?.max_cost_usd !== undefined && e.total.costUsd)
      lines.push(
        `budget.max_cost_usd ${usd(b.max_cost_usd)}: ${covers(e.spent.costUsd, e.total.costUsd, b.max_cost_usd)}`,
      );
    if (b?.max_tokens !== undefined)
      lines.push(`budget.max_tokens ${tok(b.max_tokens)}: ${covers(e.spent.tokens, e.total.tokens, b.max_tokens)}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  });
}

export function registerSweepCommand(program: Command): void {
  const sweepCommand = program
    .command('sweep')
    .description('run a sweep file (agents x mazes x settings x repeats) with live progress; run it again to resume')
    .argument('<file>', 'a sweep YAML file (see examples/sweeps/example.yaml)')
    // options after `sweep status` are the subcommand's own
    .enablePositionalOptions()
    .addOption(
      new Option(
        '--concurrency <n>',
        "experiments at a time (default: max_concurrency in the file; with --aws, at most what the account's Lambda " +
          'concurrency allows)',
      ).argParser(intOption('--concurrency', 1, 256)),
    )
    .option(
      '--aws',
      "run it on AWS: upload the run list to the stack's sweep bucket and start its sweep state machine " +
        '(a Distributed Map) instead of running locally',
    )
    .option(
      '--stack <name>',
      'with --aws: the deployed stack whose outputs name the sweep machine and bucket',
      'Ariadne',
    )
    .option('--region <region>', 'with --aws: the Region it is deployed in (default: AWS_REGION, then your profile)')
    .option(
      '--state-machine-arn <arn>',
      "with --aws: the sweep state machine (default: $ARIADNE_SWEEP_STATE_MACHINE_ARN, else the stack's output)",
    )
    .option(
      '--bucket <name>',
      'with --aws: the bucket the run list is uploaded to (default: $ARIADNE_SWEEP_BUCKET, else the stack output ' +
        'SweepBucketName)',
    )
    .addOption(endpointOption('with --aws: Step Functions endpoint override (a simulator or a VPC endpoint)'))
    .option(
      '--replay-from <sweep>',
      'answer every model call from the recorded run of sweep <sweep> with the same agent, model, maze and repeat: ' +
        'no model server, nothing spent; a run whose requests differ from the recorded ones stops, naming the field',
    )
    .option(
      '--estimate',
      'start nothing: print the range of tokens and cost its runs still to run may spend, from past runs of each ' +
        "model in this database (else from the first prompt's size) at the sweep's prices",
    )
    .addOption(jsonOption())
    .addOption(verboseOption())
    .action(sweep);
  withExample(sweepCommand, 'ariadne sweep examples/sweeps/example.yaml --concurrency 4');
  const statusCommand = sweepCommand
    .command('status')
    .description("a sweep's progress: runs done, running, not started, failed, goal found, cost so far")
    .argument('<sweep>', 'the sweep name (sweep: in its file)');
  addLiveOptions(statusCommand).action((id: string, o: LiveOptions) => liveStatus(o, id));
  withExample(statusCommand, 'ariadne sweep status baselines-example --watch');
}
