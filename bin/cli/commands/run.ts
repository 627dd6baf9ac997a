// ariadne run and ariadne resume: one experiment through the local state
// machine, with live progress and the summary at the end.
import type { Command } from 'commander';
import { ExperimentClosedError, ExperimentNotFoundError, InvalidInputError } from '../../../core/errors.ts';
import { mergeConfig } from '../../../core/config/experiment-config.ts';
import { PROMPTS } from '../../../core/config/prompts.ts';
import { LLM_AGENTS } from '../../../core/providers/llm-agents.ts';
import { withCliDatabase } from '../database.ts';
import { EXIT } from '../exit-codes.ts';
import { withExample } from '../help.ts';
import {
  addExperimentOptions,
  collectRepeated,
  givenOptions,
  jsonOption,
  verboseOption,
  type ExperimentOptions,
} from '../options.ts';
import { commandPrefix } from '../invocation.ts';
import type { ExperimentSummary } from '../../../results/summary-row.ts';
import type { LocalExperimentResult } from '../../../state-machine/local-experiment.ts';
import type { ResumeProviderOptions } from '../resume-provider.ts';
import { requestFromOptions } from '../experiment-input.ts';
import { localParameterSource, localParameters } from '../local-parameters.ts';
import { resolveConfig } from '../../../core/engine/experiment.ts';
import { preflightAgents } from '../preflight.ts';
import { turnProgress } from '../progress.ts';
import { showSummary } from '../summary.ts';
import { openRunLog } from '../run-log.ts';
import { interruptible } from '../interrupt.ts';
import { settingsFromSet } from '../set-option.ts';
import { readWorkflowFile, withWorkflowPrompt } from '../workflow-file.ts';
import {
  ExperimentFailedError,
  ExperimentInterruptedError,
  resumeInput,
  runLocalExperiment,
} from '../../../state-machine/local-experiment.ts';
import { experimentDefinition } from '../../../state-machine/definition.ts';
import { prepareResume } from '../resume-provider.ts';
import { experimentState } from '../../../results/run-state.ts';
import { HUMAN_AGENT } from '../../../core/providers/human.ts';

interface RunOptions extends ExperimentOptions {
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  workflow?: string;
  set?: string[];
}

/**
 * The summary of a run that started: an execution that failed has one too (the experiment is finalized failed
 * with its reason), which the researcher needs more than the error.
 */
async function finishedSummary(
  run: () => Promise<{ summary: ExperimentSummary | null; output: unknown }>,
): Promise<ExperimentSummary> {
  try {
    const result = await run();
    if (!result.summary) throw new Error(`the experiment did not start: ${JSON.stringify(result.output)}`);
    return result.summary;
  } catch (err) {
    if (err instanceof ExperimentFailedError && err.summary) return err.summary;
    throw err;
  }
}

/**
 * Runs the experiment so that Ctrl-C or SIGTERM stops it whole: no new turn, the turn in flight commits, the run is
 * marked interrupted, and what it left is said with the command that resumes it. Null when it was interrupted
 * (process.exitCode is then set: 130 for Ctrl-C, 143 for SIGTERM).
 */
export async function interruptibleSummary(
  command: string,
  run: (signal: AbortSignal) => Promise<LocalExperimentResult>,
  progress: { done(): void },
  experimentId: () => string | null,
  /** The command that resumes a run (default `ariadne resume <id>`). */
  resumeCommand: (id: string) => string = (id) => `${commandPrefix()} resume ${id}`,
): Promise<ExperimentSummary | null> {
  const resumeWith = (id: string) => `resume with: ${resumeCommand(id)}`;
  const interruption = interruptible({
    command,
    stopping: 'stopping after the turn in flight',
    atOnce: () => {
      const id = experimentId();
      return id === null
        ? 'nothing was written'
        : `experiment ${id} keeps the turns before the one in flight and stays running; ${resumeWith(id)}`;
    },
  });
  try {
    return await finishedSummary(() => run(interruption.signal));
  } catch (err) {
    if (!(err instanceof ExperimentInterruptedError)) throw err;
    progress.done();
    const id = err.experimentId;
    process.stderr.write(`${err.message}${id === null ? '' : `; ${resumeWith(id)}`}\n`);
    process.exitCode = interruption.exitCode();
    return null;
  } finally {
    interruption.dispose();
  }
}

async function run(o: RunOptions): Promise<void> {
  const fromSet = settingsFromSet(o.set ?? [], givenOptions(o));
  const { maze, request, agent } = requestFromOptions(o);
  // --set is the request's config as much as the flags are: it overrides the file and is stored with the run
  const config: Record<string, unknown> = mergeConfig(request.config, fromSet);
  request.config = config;
  let parameters = localParameters();
  if (o.workflow !== undefined) {
    if (!o.provider)
      throw new InvalidInputError(
        '--workflow',
        o.workflow,
        `--workflow goes with --provider ${LLM_AGENTS.join(', --provider ')}`,
      );
    const { text, workflow } = readWorkflowFile('--workflow', o.workflow);
    const overlay = withWorkflowPrompt(localParameterSource(), workflow.definition.workflow, text);
    parameters = overlay.parameters;
    config.prompt_version = overlay.version;
  }
  const fromFile = await parameters?.get();
  // `config`: only what was given, so the file's values count
  const resolved = resolveConfig(mergeConfig(fromFile?.config, config));
  const filePrompts = fromFile?.prompts ?? {};
  if (!Object.hasOwn(PROMPTS, resolved.prompt_version) && !Object.hasOwn(filePrompts, resolved.prompt_version)) {
    throw new InvalidInputError(
      '--prompt-version',
      resolved.prompt_version,
      `--prompt-version "${resolved.prompt_version}" is not defined; ` +
        `choose one of: ${[...Object.keys(PROMPTS), ...Object.keys(filePrompts)].join(', ')}`,
    );
  }
  // requestFromOptions has checked that --provider comes with --model
  await preflightAgents([{ agent, model: o.model ?? null, config }], fromFile?.config);
  const log = (line: string) => {
    if (!o.json) process.stderr.write(`${line}\n`);
  };
  log(
    `maze: ${maze.generator} ${maze.width}x${maze.height} seed ${maze.seed ?? '-'} ` +
      `(shortest path ${maze.shortestPath}, to sight ${maze.shortestPathToSight})`,
  );
  const runLog = openRunLog({ verbose: o.verbose });
  log(`log: ${runLog.path}`);
  await withCliDatabase(
    async (db) => {
      experimentDefinition(); // synthesize first, so the progress rate measures the experiment only
      const progress = turnProgress(resolved.max_moves);
      let experimentId: string | null = null;
      const summary = await interruptibleSummary(
        'ariadne run',
        (signal) =>
          runLocalExperiment(request, {
            db,
            parameters,
            signal,
            telemetry: runLog.telemetry,
            onTurn: (t) => {
              experimentId = t.experimentId;
              // --verbose streams a line per turn to stderr: the redrawn progress line would overwrite them
              if (!o.quiet && !o.json && !o.verbose) progress.update(t);
            },
            onProviderWait: (w) => {
              if (!o.quiet && !o.json) progress.providerWait(w);
            },
          }),
        progress,
        () => experimentId,
      );
      if (!summary) return;
      progress.done();
      await showSummary(db, summary, o.json === true);
      if (summary.status === 'failed') process.exitCode = EXIT.workFailed;
    },
    { log },
  ).finally(() => runLog.close());
}

async function resume(id: string, o: { json?: boolean; verbose?: boolean } & ResumeProviderOptions): Promise<void> {
  const runLog = openRunLog({ verbose: o.verbose });
  if (!o.json) process.stderr.write(`log: ${runLog.path}\n`);
  await withCliDatabase(async (db) => {
    // a person's game needs the person: its seat is ariadne play's
    if ((await experimentState(db, id))?.agent === HUMAN_AGENT)
      throw new InvalidInputError(
        'experiment-id',
        id,
        `experiment ${id} is a person's game (agent human): resume it with ${commandPrefix()} play --resume ${id}`,
      );
    await prepareResume(db, id, o, (await localParameters()?.get())?.config);
    let input;
    try {
      input = await resumeInput(db, id);
    } catch (err) {
      if (err instanceof ExperimentNotFoundError || err instanceof ExperimentClosedError)
        throw new InvalidInputError(
          'experiment-id',
          id,
          `${err.message}; only an interrupted (running) experiment can be resumed`,
        );
      throw err;
    }
    const progress = turnProgress(input.resume.limits.maxMoves);
    const summary = await interruptibleSummary(
      'ariadne resume',
      (signal) =>
        runLocalExperiment(input as never, {
          db,
          parameters: localParameters(),
          signal,
          telemetry: runLog.telemetry,
          onTurn: (t) => {
            if (!o.json && !o.verbose) progress.update(t);
          },
          onProviderWait: (w) => {
            if (!o.json) progress.providerWait(w);
          },
          executionName: `${id}-resume-${Date.now()}`,
        }),
      progress,
      () => id,
    );
    if (!summary) return;
    progress.done();
    await showSummary(db, summary, o.json === true);
    if (summary.status === 'failed') process.exitCode = EXIT.workFailed;
  }).finally(() => runLog.close());
}

export function registerRunCommands(program: Command): void {
  const runCommand = program
    .command('run')
    .description('run one experiment through the local state machine, with live progress and a summary');
  addExperimentOptions(runCommand)
    .addOption(jsonOption('print the summary as JSON on stdout'))
    .option('--quiet', 'no progress line')
    .addOption(verboseOption())
    .option(
      '--workflow <file>',
      'a workflow YAML file as the prompt (LLM agents; used as prompt version "<workflow>/v0")',
    )
    .option(
      '--set <key=value>',
      'any experiment setting, repeatable: a config key (dotted for a section: ollama.num_ctx, ' +
        'stuck_thresholds.idle_turns), a YAML value; checked as config/parameters.yaml is, overrides it, is stored ' +
        "with the run; with the same setting's own flag (--max-moves ...) both are refused",
      collectRepeated,
    )
    .action((o: RunOptions) => run(o));
  withExample(runCommand, 'ariadne run --agent frontier --maze spiral --size 21 --seed 3 --experiment-id demo-1');

  const resumeCommand = program
    .command('resume')
    .description(
      'continue an interrupted local experiment (stopped by Ctrl-C, or left running by a process that died) ' +
        'from its next turn',
    )
    .argument('<experiment-id>')
    .addOption(jsonOption('print the summary as JSON on stdout'))
    .addOption(verboseOption())
    .option(
      '--ollama-host <url>',
      'an Ollama run: the server for the rest of the run; checked first, as run does, and recorded in the ' +
        "experiment's stored config in place of the old host",
    )
    .option(
      '--openai-base-url <url>',
      'an OpenAI-compatible run: the server (/v1 included) for the rest of the run; checked first and recorded ' +
        "in the experiment's stored config in place of the old one",
    )
    .action((id: string, o: { json?: boolean; verbose?: boolean } & ResumeProviderOptions) => resume(id, o));
  withExample(resumeCommand, 'ariadne resume demo-1');
}
