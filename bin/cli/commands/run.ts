// ariadne run and ariadne resume: one experiment through the local state
// machine, with live progress and the summary at the end.
import type { Command } from 'commander';
import { InvalidInputError } from '../../../lambdas/engine/errors.ts';
import { mergeConfig } from '../../../lambdas/config/experiment-config.ts';
import { PROMPTS } from '../../../lambdas/config/prompts.ts';
import { withCliDatabase } from '../database.ts';
import { EXIT } from '../exit-codes.ts';
import { withExample } from '../help.ts';
import { addExperimentOptions, jsonOption, type ExperimentOptions } from '../options.ts';
import type { ExperimentSummary } from '../../../state-machine/local-experiment.ts';

interface RunOptions extends ExperimentOptions {
  json?: boolean;
  quiet?: boolean;
  workflow?: string;
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
    const failed = err as { name?: string; summary?: ExperimentSummary | null };
    if (failed.name === 'ExperimentFailedError' && failed.summary) return failed.summary;
    throw err;
  }
}

async function run(o: RunOptions): Promise<void> {
  // loaded when the command runs, so that --help and the other commands do not pay for them
  const [{ requestFromOptions }, { localParameterSource, localParameters }, { resolveConfig }] = await Promise.all([
    import('../experiment-input.ts'),
    import('../local-parameters.ts'),
    import('../../../lambdas/engine/experiment.ts'),
  ]);
  const [{ preflightAgents }, { turnProgress }, { showSummary }] = await Promise.all([
    import('../preflight.ts'),
    import('../progress.ts'),
    import('../summary.ts'),
  ]);
  const { maze, request, config, agent } = requestFromOptions(o);
  let parameters = localParameters();
  if (o.workflow !== undefined) {
    if (!o.provider)
      throw new InvalidInputError(
        '--workflow',
        o.workflow,
        '--workflow goes with --provider ollama or --provider bedrock',
      );
    const { readWorkflowFile, withWorkflowPrompt } = await import('../workflow-file.ts');
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
  await withCliDatabase(
    async (db) => {
      const { runLocalExperiment } = await import('../../../state-machine/local-experiment.ts');
      const { experimentDefinition } = await import('../../../state-machine/definition.ts');
      experimentDefinition(); // synthesize first, so the progress rate measures the experiment only
      const progress = turnProgress(resolved.max_moves);
      const summary = await finishedSummary(() =>
        runLocalExperiment(request, {
          db,
          parameters,
          onTurn: (t) => {
            if (!o.quiet && !o.json) progress.update(t);
          },
        }),
      );
      progress.done();
      await showSummary(db, summary, o.json === true);
      if (summary.status === 'failed') process.exitCode = EXIT.workFailed;
    },
    { log },
  );
}

async function resume(id: string, o: { json?: boolean }): Promise<void> {
  const [{ localParameters }, { turnProgress }, { showSummary }] = await Promise.all([
    import('../local-parameters.ts'),
    import('../progress.ts'),
    import('../summary.ts'),
  ]);
  await withCliDatabase(async (db) => {
    const { resumeInput, runLocalExperiment } = await import('../../../state-machine/local-experiment.ts');
    let input;
    try {
      input = await resumeInput(db, id);
    } catch (err) {
      const name = (err as Error).name;
      if (name === 'ExperimentNotFoundError' || name === 'ExperimentClosedError')
        throw new InvalidInputError(
          'experiment-id',
          id,
          `${(err as Error).message}; only an interrupted (running) experiment can be resumed`,
        );
      throw err;
    }
    const progress = turnProgress(input.resume.limits.maxMoves);
    const summary = await finishedSummary(() =>
      runLocalExperiment(input as never, {
        db,
        parameters: localParameters(),
        onTurn: (t) => {
          if (!o.json) progress.update(t);
        },
        executionName: `${id}-resume-${Date.now()}`,
      }),
    );
    progress.done();
    await showSummary(db, summary, o.json === true);
    if (summary.status === 'failed') process.exitCode = EXIT.workFailed;
  });
}

export function registerRunCommands(program: Command): void {
  const runCommand = program
    .command('run')
    .description('run one experiment through the local state machine, with live progress and a summary');
  addExperimentOptions(runCommand)
    .addOption(jsonOption('print the summary as JSON on stdout'))
    .option('--quiet', 'no progress line')
    .option(
      '--workflow <file>',
      'a workflow YAML file as the prompt (LLM agents; used as prompt version "<workflow>/v0")',
    )
    .action((o: RunOptions) => run(o));
  withExample(runCommand, 'ariadne run --agent frontier --maze spiral --size 21 --seed 3 --experiment-id demo-1');

  const resumeCommand = program
    .command('resume')
    .description('continue an interrupted local experiment (left running by a process that died) from its next turn')
    .argument('<experiment-id>')
    .addOption(jsonOption('print the summary as JSON on stdout'))
    .action((id: string, o: { json?: boolean }) => resume(id, o));
  withExample(resumeCommand, 'ariadne resume demo-1');
}
