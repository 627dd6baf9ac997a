#!/usr/bin/env -S npx tsx
// The ariadne command line: run experiments locally, list and export mazes,
// show results.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import {
  GENERATOR_NAMES,
  MAX_SIZE,
  MIN_SIZE,
  describeGenerator,
  generateMaze,
} from '../lambdas/maze/generators/index.ts';
import { MazeInputError } from '../lambdas/maze/errors.ts';
import { mazeToJson, parseMazeJson } from '../lambdas/maze/maze-file.ts';
import { renderAscii } from '../lambdas/maze/grid.ts';
import type { Maze } from '../lambdas/maze/maze.ts';
import { InvalidInputError } from '../lambdas/engine/errors.ts';
import { resolveConfig } from '../lambdas/engine/experiment.ts';
import { DatabaseConfigError } from '../lambdas/store/errors.ts';
import { STUCK_POLICIES, SUCCESS_RULES, mergeConfig, ollamaHostUrl } from '../lambdas/config/experiment-config.ts';
import { InvalidParameterError, ParameterCache, type ParameterSource } from '../lambdas/config/parameters.ts';
import { readWorkflowFile, withWorkflowPrompt } from './cli/workflow-file.ts';
import { fileSource } from '../lambdas/config/file-source.ts';
import { BASELINE_AGENTS, BASELINE_NAMES } from '../lambdas/providers/baselines.ts';
import { LLM_AGENTS } from '../lambdas/providers/agents.ts';
import { PROMPTS } from '../lambdas/config/prompts.ts';
import { checkEndpoint, checkOllama } from './cli/preflight.ts';
import { describe as describeExecution, launchRequests, regionOf, startExecutions } from './cli/launch.ts';
import { SFNClient } from '@aws-sdk/client-sfn';
import { parseOrThrow } from '../lambdas/config/zod-errors.ts';
import { startRequestSchema, type StartExecutionInput } from '../state-machine/contracts.ts';
import { choiceOption, intOption, numberOption } from './cli/options.ts';
import { turnProgress } from './cli/progress.ts';
import { cliDatabase, withCliDatabase } from './cli/database.ts';
import { showSummary } from './cli/summary.ts';
import { sweepProgress } from './cli/sweep-progress.ts';
import { formatTable } from './cli/table.ts';

// `ariadne sql ... | head` closes the pipe early: that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const SEED = intOption('--seed', 0, 0xffffffff);

function mazeOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--maze <generator>', 'maze generator (see `ariadne mazes`)')
        .default('medium')
        .argParser(choiceOption('--maze', GENERATOR_NAMES)),
    )
    .addOption(
      new Option('--size <n>', `square maze side, ${MIN_SIZE}-${MAX_SIZE}`)
        .default(30)
        .argParser(intOption('--size', MIN_SIZE, MAX_SIZE)),
    )
    .addOption(new Option('--seed <n>', 'maze seed').default(7).argParser(SEED))
    .option(
      '--maze-file <path>',
      'use a maze from a JSON file ({"grid": [[0,1,2,...]], "start": {"x":1,"y":1}}) instead of a generator',
    );
}

interface MazeOpts {
  maze: string;
  size: number;
  seed: number;
  mazeFile?: string;
}

function mazeFromOptions(o: MazeOpts): { maze: Maze; input: StartExecutionInput['maze'] } {
  if (o.mazeFile) {
    let text: string;
    try {
      text = readFileSync(o.mazeFile, 'utf8');
    } catch (err) {
      throw new InvalidInputError(
        '--maze-file',
        o.mazeFile,
        `--maze-file "${o.mazeFile}" cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    const maze = parseMazeJson(text, `--maze-file ${o.mazeFile}`);
    return { maze, input: { grid: maze.grid.toRows(), start: maze.start } };
  }
  const spec = { generator: o.maze, width: o.size, height: o.size, seed: o.seed };
  return { maze: generateMaze(spec), input: { generator: o.maze, size: o.size, seed: o.seed } };
}

const program = new Command('ariadne')
  .description('Maze-navigation experiments for LLM agents: run locally, read results from Postgres.')
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride();

experimentOptions(
  program
    .command('run')
    .description('run one experiment through the local state machine, with live progress and a summary'),
)
  .option('--json', 'print the summary as JSON on stdout')
  .option('--quiet', 'no progress line')
  .option(
    '--workflow <file>',
    'a workflow YAML file as the prompt (LLM agents; used as prompt version "<workflow>/v0")',
  )
  .action(async (o) => {
    const { maze, request, config, agent } = requestFromOptions(o);
    let parameters = localParameters();
    if (o.workflow !== undefined) {
      if (!o.provider)
        throw new InvalidInputError(
          '--workflow',
          o.workflow,
          '--workflow goes with --provider ollama or --provider bedrock',
        );
      const { text, workflow } = readWorkflowFile('--workflow', o.workflow);
      const overlay = withWorkflowPrompt(localParameterSource(), workflow.definition.workflow, text);
      parameters = overlay.parameters;
      config.prompt_version = overlay.version;
    }
    const fromFile = await parameters?.get();
    const resolved = resolveConfig(mergeConfig(fromFile?.config, config)); // `config`: only what was given, so the file's values count
    if (
      !Object.hasOwn(PROMPTS, resolved.prompt_version) &&
      !Object.hasOwn(fromFile?.prompts ?? {}, resolved.prompt_version)
    ) {
      throw new InvalidInputError(
        '--prompt-version',
        resolved.prompt_version,
        `--prompt-version "${resolved.prompt_version}" is not defined; choose one of: ${[...Object.keys(PROMPTS), ...Object.keys(fromFile?.prompts ?? {})].join(', ')}`,
      );
    }
    if (agent === 'ollama') {
      const host = o.ollamaHost ?? process.env.OLLAMA_HOST ?? resolved.ollama.host;
      await checkOllama(ollamaHostUrl(host), o.model);
    }
    if (agent === 'bedrock' && resolved.bedrock.endpoint)
      await checkEndpoint('--bedrock-endpoint', resolved.bedrock.endpoint);
    const log = (line: string) => {
      if (!o.json) process.stderr.write(`${line}\n`);
    };
    log(
      `maze: ${maze.generator} ${maze.width}x${maze.height} seed ${maze.seed ?? '-'} (shortest path ${maze.shortestPath}, to sight ${maze.shortestPathToSight})`,
    );
    await withCliDatabase(
      async (db) => {
        const { runLocalExperiment } = await import('../state-machine/local-experiment.ts');
        const { experimentDefinition } = await import('../state-machine/definition.ts');
        experimentDefinition(); // synthesize first, so the progress rate measures the experiment only
        const progress = turnProgress(resolved.max_moves);
        const result = await runLocalExperiment(request, {
          db,
          parameters,
          onTurn: (t) => {
            if (!o.quiet && !o.json) progress.update(t);
          },
        });
        progress.done();
        if (!result.summary) throw new Error(`the experiment did not start: ${JSON.stringify(result.output)}`);
        await showSummary(db, result.summary, o.json === true);
        if (result.summary.status === 'failed') process.exitCode = 1;
      },
      { log },
    );
  });

program
  .command('mazes')
  .description('list the maze generators')
  .action(() => {
    for (const name of GENERATOR_NAMES) {
      const info = describeGenerator(name);
      process.stdout.write(`${name.padEnd(20)} ${info.description}${info.oddSizes ? ' (odd sizes only)' : ''}\n`);
    }
  });

/** The options that describe one experiment, shared by run and launch. */
function experimentOptions(cmd: Command): Command {
  return mazeOptions(cmd)
    .addOption(
      new Option('--agent <name>', `agent: ${BASELINE_NAMES.map((n) => `${n} (${BASELINE_AGENTS[n]})`).join('; ')}`)
        .default('frontier')
        .argParser(choiceOption('--agent', BASELINE_NAMES)),
    )
    .addOption(
      new Option('--provider <name>', 'run an LLM agent: ollama or bedrock (needs --model)').argParser(
        choiceOption('--provider', LLM_AGENTS),
      ),
    )
    .option('--model <id>', 'model name: e.g. qwen2.5:7b (ollama), anthropic.claude-3-5-sonnet-20240620-v1:0 (bedrock)')
    .option(
      '--ollama-host <url>',
      'Ollama server (default: $OLLAMA_HOST or http://127.0.0.1:11434); hosted Ollama reads its key from $OLLAMA_API_KEY',
    )
    .option('--stream', 'ask Ollama for streaming (NDJSON) replies')
    .option('--region <region>', 'AWS region for Bedrock (default: /ariadne/config/bedrock/region, else us-east-1)')
    .option('--bedrock-endpoint <url>', 'Bedrock Runtime endpoint override (a simulator or a VPC endpoint)')
    .option('--prompt-version <name>', `system prompt version (${Object.keys(PROMPTS).join(', ')})`)
    .addOption(
      new Option('--agent-seed <n>', 'seed of the random agent (default: derived from the experiment id)').argParser(
        intOption('--agent-seed', 0, 0xffffffff),
      ),
    )
    .addOption(
      new Option('--max-moves <n>', 'stop after this many actions').argParser(intOption('--max-moves', 1, 1_000_000)),
    )
    .addOption(
      new Option('--max-duration-minutes <n>', 'stop after this long').argParser(
        numberOption('--max-duration-minutes', 0.01, 10080),
      ),
    )
    .addOption(
      new Option('--max-actions-per-turn <n>', 'tool actions per turn').argParser(
        intOption('--max-actions-per-turn', 1, 64),
      ),
    )
    .addOption(new Option('--vision-range <n>', 'how far the agent sees').argParser(intOption('--vision-range', 0, 50)))
    .option('--see-through', 'see every tile within vision range, walls do not block')
    .addOption(
      new Option('--success-rule <rule>', 'seen: the goal is in view; reached: the agent stands on it').argParser(
        choiceOption('--success-rule', SUCCESS_RULES),
      ),
    )
    .addOption(
      new Option('--recall-interval <n>', 'actions between two recall_all calls').argParser(
        intOption('--recall-interval', 0, 100_000),
      ),
    )
    .addOption(
      new Option('--max-recall-actions <n>', 'how many recent actions recall_all covers').argParser(
        intOption('--max-recall-actions', 1, 100_000),
      ),
    )
    .addOption(
      new Option(
        '--stuck-policy <policy>',
        'observe: record stuck signals only (default); advise: tell the agent in its next prompt; halt: end the run as stuck',
      ).argParser(choiceOption('--stuck-policy', STUCK_POLICIES)),
    )
    .option('--experiment-id <id>', 'experiment id (default: derived from the execution)');
}

/**
 * The StartExecution input the options describe, validated with the
 * StartExperiment schema. It is what the user gave, not zod's parsed copy
 * (which fills in defaults that would override Parameter Store).
 */
function requestFromOptions(o: MazeOpts & Record<string, any>): {
  maze: Maze;
  request: StartExecutionInput;
  config: Record<string, unknown>;
  agent: string;
} {
  const { maze, input } = mazeFromOptions(o);
  const config: Record<string, unknown> = Object.fromEntries(
    Object.entries({
      max_moves: o.maxMoves,
      max_duration_minutes: o.maxDurationMinutes,
      max_actions_per_turn: o.maxActionsPerTurn,
      vision_range: o.visionRange,
      see_through: o.seeThrough,
      success_rule: o.successRule,
      recall_interval: o.recallInterval,
      max_recall_actions: o.maxRecallActions,
      stuck_policy: o.stuckPolicy,
    }).filter(([, v]) => v !== undefined),
  );
  const agent: string = o.provider ?? o.agent;
  if (o.provider && o.model === undefined)
    throw new InvalidInputError(
      '--model',
      undefined,
      `--provider ${o.provider} needs --model (e.g. ${o.provider === 'ollama' ? 'qwen2.5:7b' : 'anthropic.claude-3-5-sonnet-20240620-v1:0'})`,
    );
  if (!o.provider && o.model !== undefined)
    throw new InvalidInputError('--model', o.model, '--model goes with --provider ollama or --provider bedrock');
  // Only what was given: hosts and regions left out are filled in where the experiment starts
  // ($OLLAMA_HOST, Parameter Store, defaults), which for `launch` is AWS, not this machine.
  const host: string | undefined = o.ollamaHost;
  const ollama = { ...(host ? { host: ollamaHostUrl(host) } : {}), ...(o.stream ? { stream: true } : {}) };
  const bedrock = {
    ...(o.region ? { region: o.region } : {}),
    ...(o.bedrockEndpoint ? { endpoint: o.bedrockEndpoint } : {}),
  };
  if (o.provider === 'ollama' && Object.keys(ollama).length > 0) config.ollama = ollama;
  if (o.provider === 'bedrock' && Object.keys(bedrock).length > 0) config.bedrock = bedrock;
  if (o.promptVersion !== undefined) config.prompt_version = o.promptVersion;
  const request: StartExecutionInput = {
    agent,
    maze: input,
    config,
    ...(o.model !== undefined ? { model: o.model } : {}),
    ...(o.agentSeed !== undefined ? { agentSeed: o.agentSeed } : {}),
    ...(o.experimentId !== undefined ? { experimentId: o.experimentId } : {}),
  } as StartExecutionInput;
  parseOrThrow(startRequestSchema, request, 'input');
  return { maze, request, config, agent };
}

mazeOptions(
  program
    .command('maze')
    .description('show a maze (ASCII: # wall, . empty, G goal, S start) and optionally export it as JSON'),
)
  .option('--out <path>', 'write the maze as JSON (importable with --maze-file)')
  .action((o) => {
    const { maze } = mazeFromOptions(o);
    process.stdout.write(`${renderAscii(maze.grid, [{ at: maze.start, ch: 'S' }])}\n`);
    process.stdout.write(
      `${maze.generator} ${maze.width}x${maze.height} seed ${maze.seed ?? '-'} start (${maze.start.x},${maze.start.y}) goal (${maze.goal.x},${maze.goal.y}) shortest path ${maze.shortestPath} to sight ${maze.shortestPathToSight} hash ${maze.hash}\n`,
    );
    if (o.out) {
      writeFileSync(o.out, `${JSON.stringify(mazeToJson(maze))}\n`);
      process.stdout.write(`written to ${o.out}\n`);
    }
  });

program
  .command('sweep')
  .description('run a sweep file (agents x mazes x settings x repeats) with live progress; run it again to resume')
  .argument('<file>', 'a sweep YAML file (see sweeps/example.yaml)')
  .addOption(
    new Option('--concurrency <n>', 'experiments at a time (default: max_concurrency in the file)').argParser(
      intOption('--concurrency', 1, 256),
    ),
  )
  .option('--aws', "run it on AWS: start the stack's sweep state machine (Distributed Map) instead of running locally")
  .option(
    '--state-machine-arn <arn>',
    'with --aws: the sweep state machine (default: $ARIADNE_SWEEP_STATE_MACHINE_ARN)',
  )
  .option('--endpoint <url>', 'with --aws: Step Functions endpoint override (a simulator or a VPC endpoint)')
  .option('--json', 'print the result as JSON on stdout')
  .action(
    async (
      file: string,
      o: { concurrency?: number; aws?: boolean; stateMachineArn?: string; endpoint?: string; json?: boolean },
    ) => {
      const { readSweepFile, startAwsSweep } = await import('./cli/sweep.ts');
      const sweep = readSweepFile(file);
      if (o.aws) {
        const arn = o.stateMachineArn ?? process.env.ARIADNE_SWEEP_STATE_MACHINE_ARN;
        if (!arn)
          throw new InvalidInputError(
            '--state-machine-arn',
            arn,
            '--aws needs --state-machine-arn (or ARIADNE_SWEEP_STATE_MACHINE_ARN): the SweepStateMachineArn output of the stack',
          );
        const started = await startAwsSweep(sweep, arn, o.concurrency, o.endpoint);
        process.stdout.write(
          `${o.json ? JSON.stringify(started) : `started ${started.runs} runs of sweep ${sweep.spec.sweep}: ${started.executionArn}`}\n`,
        );
        return;
      }
      const concurrency = o.concurrency ?? sweep.spec.max_concurrency;
      const log = (line: string) => {
        if (!o.json) process.stderr.write(`${line}\n`);
      };
      log(
        `sweep ${sweep.spec.sweep}: ${sweep.cells.length} cells x ${sweep.spec.repeats} repeats = ${sweep.runs.length} runs, ${concurrency} at a time`,
      );
      await withCliDatabase(
        async (db) => {
          const { runLocalSweep } = await import('../state-machine/local-sweep.ts');
          const { experimentDefinition } = await import('../state-machine/definition.ts');
          experimentDefinition();
          const progress = sweepProgress();
          const result = await runLocalSweep(sweep, {
            db,
            concurrency,
            parameters: localParameters(),
            onProgress: (p) => progress.update(p),
          });
          progress.done();
          if (o.json) process.stdout.write(`${JSON.stringify(result)}\n`);
          else
            log(
              `sweep ${result.sweep}: ${result.planned.skip} already done, ${result.planned.start} started, ${result.planned.resume} resumed, ${result.planned.retry} retried; ` +
                `${result.successes}/${result.done} succeeded, ${result.failed} failed, ${result.seconds.toFixed(1)} s. Statistics: ariadne sql "SELECT * FROM sweep_stats WHERE sweep_id = '${result.sweep}'"`,
            );
          if (result.failed > 0) process.exitCode = 1;
        },
        { log, poolSize: concurrency + 2 },
      );
    },
  );

program
  .command('replay')
  .description(
    'write a self-contained HTML replay of an experiment: the maze, path, vision, known tiles, phases, signals, tokens and words per step',
  )
  .argument('<experiment-id>')
  .option('--out <file>', 'where to write it (default: replay-<experiment-id>.html)')
  .action(async (id: string, o: { out?: string }) => {
    await withCliDatabase(async (db) => {
      const { loadReplay } = await import('../reports/replay-data.ts');
      const { replayHtml } = await import('../reports/replay-page.ts');
      let data;
      try {
        data = await loadReplay(db, id);
      } catch (err) {
        if ((err as Error).name === 'ExperimentNotFoundError')
          throw new InvalidInputError(
            'experiment-id',
            id,
            `no experiment with id "${id}"; list them with: ariadne sql "SELECT experiment_id FROM experiment_summary"`,
          );
        throw err;
      }
      const out = o.out ?? `replay-${id}.html`;
      const html = replayHtml(data);
      writeFileSync(out, html);
      process.stdout.write(
        `${out} (${(html.length / 1024).toFixed(0)} KB, ${data.steps} steps): open it in a browser\n`,
      );
    });
  });

program
  .command('report')
  .description(
    'write a self-contained HTML report of a sweep: statistics tables, charts, and replays of the runs that did not succeed',
  )
  .argument('<sweep>')
  .option('--out <file>', 'where to write it (default: report-<sweep>.html; replays go to <name>-replays/ beside it)')
  .addOption(
    new Option('--max-replays <n>', 'replays to write for runs that did not succeed')
      .default(50)
      .argParser(intOption('--max-replays', 0, 10_000)),
  )
  .action(async (sweepId: string, o: { out?: string; maxReplays: number }) => {
    await withCliDatabase(async (db) => {
      const { writeReport } = await import('../reports/write-report.ts');
      const written = await writeReport(db, sweepId, o.out ?? `report-${sweepId}.html`, o.maxReplays);
      process.stdout.write(
        `${written.report} (${written.kb} KB) and ${written.replays} replays in ${written.replayDir}: open the report in a browser\n`,
      );
    });
  });

program
  .command('export')
  .description("export a sweep's experiments and actions as CSV or JSON Lines (for pandas, R)")
  .argument('<sweep>')
  .addOption(
    new Option('--format <format>', 'csv or jsonl')
      .default('csv')
      .argParser(choiceOption('--format', ['csv', 'jsonl'] as const)),
  )
  .option('--out <dir>', 'directory for <sweep>-experiments.<format> and <sweep>-actions.<format>', '.')
  .action(async (sweepId: string, o: { format: 'csv' | 'jsonl'; out: string }) => {
    await withCliDatabase(async (db) => {
      const exists = await db.pool.query('SELECT 1 FROM sweeps WHERE id = $1', [sweepId]);
      if (exists.rowCount === 0)
        throw new InvalidInputError(
          'sweep',
          sweepId,
          `no sweep named "${sweepId}"; list them with: ariadne sql "SELECT id FROM sweeps"`,
        );
      const { exportSweep } = await import('../reports/export.ts');
      for (const f of await exportSweep(db, sweepId, o.format, o.out))
        process.stdout.write(`${f.file}: ${f.rows} rows\n`);
    });
  });

program
  .command('compare')
  .description(
    'compare two agents of a sweep on the same mazes: McNemar exact test on success, paired bootstrap of the efficiency difference',
  )
  .argument('<sweep>')
  .argument('<a>', 'an agent label of the sweep')
  .argument('<b>', 'another one')
  .addOption(
    new Option('--resamples <n>', 'bootstrap resamples')
      .default(10_000)
      .argParser(intOption('--resamples', 100, 1_000_000)),
  )
  .option('--json', 'as JSON')
  .action(async (sweep: string, a: string, b: string, o: { resamples: number; json?: boolean }) => {
    await withCliDatabase(async (db) => {
      const { compareAgents } = await import('../reports/compare.ts');
      const c = await compareAgents(db, sweep, a, b, o.resamples);
      if (o.json) {
        process.stdout.write(`${JSON.stringify(c, null, 2)}\n`);
        return;
      }
      const f = (x: number | null, d = 4) => (x === null ? '-' : x.toFixed(d));
      process.stdout.write(
        [
          `${c.a} vs ${c.b} in sweep ${c.sweep}: ${c.pairs} paired runs (same maze, settings, repeat)`,
          `  both solved ${c.bothSolved}, only ${c.a} ${c.onlyA}, only ${c.b} ${c.onlyB}, neither ${c.neither}`,
          `  McNemar exact p = ${f(c.mcnemarP, 6)}`,
          `  efficiency ${c.a} - ${c.b} over ${c.efficiency.pairs} pairs both solved: mean ${f(c.efficiency.meanDiff)}, 95% bootstrap interval [${f(c.efficiency.low95)}, ${f(c.efficiency.high95)}] (${c.efficiency.resamples} resamples, seed 1)`,
        ].join('\n') + '\n',
      );
    });
  });

program
  .command('resume')
  .description('continue an interrupted local experiment (left running by a process that died) from its next turn')
  .argument('<experiment-id>')
  .option('--json', 'print the summary as JSON on stdout')
  .action(async (id: string, o: { json?: boolean }) => {
    await withCliDatabase(async (db) => {
      const { resumeInput, runLocalExperiment } = await import('../state-machine/local-experiment.ts');
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
      const result = await runLocalExperiment(input as never, {
        db,
        parameters: localParameters(),
        onTurn: (t) => {
          if (!o.json) progress.update(t);
        },
        executionName: `${id}-resume-${Date.now()}`,
      });
      progress.done();
      const { summaryOf } = await import('../state-machine/local-experiment.ts');
      const summary = result.summary ?? (await summaryOf(db, id));
      if (summary) await showSummary(db, summary, o.json === true);
    });
  });

program
  .command('workflow')
  .description(
    'check a workflow YAML file: every state, step, variable and expression, with the YAML path of each problem',
  )
  .argument('<file>')
  .action((file: string) => {
    const { workflow } = readWorkflowFile('workflow', file);
    const d = workflow.definition;
    process.stdout.write(
      `${file}: workflow "${d.workflow}" is valid: ${d.states.length} states (${d.states.join(', ')}), initial ${d.initial_state}, ` +
        `${d.steps.length} steps, ${d.transitions.length} transitions, ${Object.keys(d.variables).length} variables\n`,
    );
  });

program
  .command('summary')
  .description('show the summary of a stored experiment')
  .argument('<experiment-id>')
  .option('--json', 'as JSON')
  .action(async (id: string, o: { json?: boolean }) => {
    await withCliDatabase(async (db) => {
      const { summaryOf } = await import('../state-machine/local-experiment.ts');
      const summary = await summaryOf(db, id);
      if (!summary)
        throw new InvalidInputError(
          'experiment-id',
          id,
          `no experiment with id "${id}"; list them with: SELECT experiment_id FROM experiment_summary`,
        );
      await showSummary(db, summary, o.json === true);
    });
  });

experimentOptions(
  program
    .command('launch')
    .description(
      'start experiments on a deployed stack with Step Functions StartExecution (validated first; named so a relaunch cannot run one twice)',
    ),
)
  .requiredOption('--state-machine-arn <arn>', 'the stack output StateMachineArn')
  .addOption(
    new Option('--repeat <n>', 'how many experiments (agent seeds seed, seed+1, ...)')
      .default(1)
      .argParser(intOption('--repeat', 1, 1000)),
  )
  .option('--endpoint <url>', 'Step Functions endpoint override (a local server, a VPC endpoint)')
  .option('--dry-run', 'print the StartExecution requests without sending them')
  .action(async (o) => {
    const region = regionOf(o.stateMachineArn);
    if (o.endpoint !== undefined) {
      try {
        new URL(o.endpoint);
      } catch {
        throw new InvalidInputError('--endpoint', o.endpoint, `--endpoint "${o.endpoint}" is not a URL`);
      }
    }
    const { request } = requestFromOptions(o);
    const requests = launchRequests(request, o.repeat);
    if (o.dryRun) {
      for (const r of requests)
        process.stdout.write(
          `${JSON.stringify({ stateMachineArn: o.stateMachineArn, name: r.name, input: JSON.stringify(r.input) })}\n`,
        );
      return;
    }
    const client = new SFNClient({ region, ...(o.endpoint ? { endpoint: o.endpoint } : {}) });
    for (const r of await startExecutions(client, o.stateMachineArn, requests)) {
      process.stdout.write(`${r.already ? 'already launched' : 'started'} ${r.executionArn}\n`);
    }
  });

program
  .command('status')
  .description('show a deployed execution: status, times, error')
  .argument('<execution-arn>')
  .option('--endpoint <url>', 'Step Functions endpoint override')
  .action(async (arn: string, o: { endpoint?: string }) => {
    const m = /^arn:aws[a-z-]*:states:([a-z]{2}(-[a-z]+)+-\d):\d{12}:execution:/.exec(arn);
    if (!m)
      throw new InvalidInputError(
        'execution-arn',
        arn,
        `"${arn}" is not an execution ARN (arn:aws:states:REGION:ACCOUNT:execution:MACHINE:NAME)`,
      );
    const client = new SFNClient({ region: m[1], ...(o.endpoint ? { endpoint: o.endpoint } : {}) });
    const d = await describeExecution(client, arn);
    process.stdout.write(
      `${d.status} ${d.name}\nstarted ${d.startDate?.toISOString()}${d.stopDate ? `\nstopped ${d.stopDate.toISOString()}` : ''}${d.error ? `\nerror ${d.error}: ${d.cause ?? ''}` : ''}\n`,
    );
  });

program
  .command('sql')
  .description('run a SQL query against the results database and print the rows')
  .argument('<query>', 'e.g. "SELECT * FROM experiment_summary ORDER BY started_at DESC LIMIT 5"')
  .option('--json', 'rows as JSON')
  .action(async (query: string, o: { json?: boolean }) => {
    await withCliDatabase(async (db) => {
      let result;
      try {
        result = await db.pool.query(query);
      } catch (err) {
        throw new InvalidInputError('query', query, `the query failed: ${(err as Error).message}`);
      }
      if (o.json) process.stdout.write(`${JSON.stringify(result.rows, null, 2)}\n`);
      else
        process.stdout.write(
          `${formatTable(
            result.rows,
            result.fields.map((f) => f.name),
          )}\n`,
        );
    });
  });

program
  .command('db')
  .description(
    'start the embedded results database and keep it running, printing its URL (for psql, notebooks, BI tools); Ctrl-C stops it',
  )
  .action(async () => {
    const db = await cliDatabase((line) => process.stderr.write(`${line}\n`));
    process.stdout.write(`DATABASE_URL=${process.env.DATABASE_URL ?? db.url}\n`);
    process.stderr.write('serving until Ctrl-C\n');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await db.close();
  });

program
  .command('sim')
  .description(
    'serve a simulated model that speaks a real wire protocol: ollama (/api/chat, /api/tags, /api/show, /api/version) or bedrock (POST /model/{id}/converse, HTTP/2)',
  )
  .argument('<service>', 'ollama or bedrock')
  .addOption(
    new Option('--port <n>', 'port on 127.0.0.1 (default: 11434 for ollama, 8787 for bedrock)').argParser(
      intOption('--port', 0, 65535),
    ),
  )
  .option(
    '--faults <list>',
    'misbehave on the next requests, in order: NNN (HTTP status), reset, slow:MS, malformed, text-embedded, text-only, empty, script:TOOL+TOOL (exactly these calls), say:TEXT (exactly this answer); xN repeats (e.g. 429x2,500,text-embedded)',
  )
  .option('--always <fault>', 'misbehave on every request after --faults (e.g. 500)')
  .option('--models <list>', 'comma-separated model names it serves (others get "not found")')
  .option('--calls-per-reply <n>', 'tool calls per reply', '2')
  .action(
    async (
      service: string,
      o: { port?: number; faults?: string; always?: string; models?: string; callsPerReply: string },
    ) => {
      const kind = choiceOption('service', ['ollama', 'bedrock'] as const)(service);
      const { parseFaults } = await import('../test/servers/sim-server.ts');
      const parse = (option: string, spec: string) => {
        try {
          return parseFaults(spec);
        } catch (err) {
          throw new InvalidInputError(option, spec, `${option}: ${(err as Error).message}`);
        }
      };
      const opts = {
        faults: o.faults ? parse('--faults', o.faults) : [],
        always: o.always ? parse('--always', o.always)[0] : undefined,
        models: o.models
          ?.split(',')
          .map((m) => m.trim())
          .filter(Boolean),
        callsPerReply: intOption('--calls-per-reply', 1, 8)(o.callsPerReply),
      };
      const sim =
        kind === 'ollama'
          ? new (await import('../test/servers/ollama-sim.ts')).OllamaSim(opts)
          : new (await import('../test/servers/bedrock-sim.ts')).BedrockSim(opts);
      const url = await sim.listen(o.port ?? (kind === 'ollama' ? 11434 : 8787));
      process.stdout.write(`simulated ${kind} at ${url} serving ${sim.models.join(', ')}\n`);
      process.stdout.write(
        kind === 'ollama'
          ? `try: npm run ariadne -- run --provider ollama --model ${sim.models[0]} --ollama-host ${url}\n`
          : `try: AWS_ACCESS_KEY_ID=sim AWS_SECRET_ACCESS_KEY=sim npm run ariadne -- run --provider bedrock --model ${sim.models[0]} --bedrock-endpoint ${url}\n`,
      );
      let requests = 0;
      const timer = setInterval(() => {
        if (sim.requests.length !== requests) {
          requests = sim.requests.length;
          process.stderr.write(`requests served: ${requests}\n`);
        }
      }, 2000);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      clearInterval(timer);
      await sim.close();
    },
  );

/** config/parameters.yaml (or $ARIADNE_PARAMETERS): the local stand-in for Parameter Store. */
function localParameterSource(): ParameterSource | undefined {
  const file = process.env.ARIADNE_PARAMETERS ?? fileURLToPath(new URL('../config/parameters.yaml', import.meta.url));
  if (!existsSync(file)) {
    if (process.env.ARIADNE_PARAMETERS)
      throw new InvalidInputError('ARIADNE_PARAMETERS', file, `ARIADNE_PARAMETERS names ${file}, which does not exist`);
    return undefined;
  }
  return fileSource(file);
}

function localParameters(): ParameterCache | undefined {
  const source = localParameterSource();
  return source ? new ParameterCache(source) : undefined;
}

function isInputError(err: unknown): err is Error & { field?: string } {
  return (
    err instanceof InvalidInputError ||
    err instanceof MazeInputError ||
    err instanceof DatabaseConfigError ||
    err instanceof InvalidParameterError
  );
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // help and version exit 0; usage errors were already printed by commander
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else if (isInputError(err)) {
    process.stderr.write(`\nariadne: ${err.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`\nariadne: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}\n`);
    process.exitCode = 1;
  }
}
