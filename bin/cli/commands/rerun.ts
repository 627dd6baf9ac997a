// ariadne rerun and fork: an experiment run again with everything it started from (agent, model, seed, maze, stored
// config). rerun --replay answers its model calls from its record, with no server, to the same trajectory (a request
// that differs stops it at that call); fork continues it after step K with the model and settings given.
import type { Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { randomUUID } from 'node:crypto';
import { agentsWith } from '../../../core/providers/agents.ts';
import { sharedAgentDeps } from '../../../core/store/shared-agent-deps.ts';
import { PgStore } from '../../../core/store/pg-store.ts';
import { ExperimentFailedError, runLocalExperiment } from '../../../state-machine/local-experiment.ts';
import { replayScript, rerunRequest, trajectoryHashes } from '../../../results/recorded-run.ts';
import { answeredRequests } from '../../../core/store/fork-prefix-sql.ts';
import { mergeConfig } from '../../../core/config/experiment-config.ts';
import { collectRepeated } from '../options.ts';
import { settingsFromSet } from '../set-option.ts';
import type { AgentDeps } from '../../../core/providers/agents.ts';
import type { Database } from '../../../core/store/database.ts';
import type { StartExecutionInput } from '../../../core/machine/contracts.ts';
import type { ExperimentSummary } from '../../../results/summary-row.ts';
import { withCliDatabase } from '../database.ts';
import { EXIT } from '../exit-codes.ts';
import { withExample } from '../help.ts';
import { localParameters } from '../local-parameters.ts';
import { jsonOption } from '../options.ts';
import { turnProgress } from '../progress.ts';
import { showSummary } from '../summary.ts';

interface RerunOptions {
  replay?: boolean;
  experimentId?: string;
  json?: boolean;
  quiet?: boolean;
}

/** Runs `request` with `deps`' agents, with progress; the summary however the run ended (a failed run has one). */
async function runAgain(
  db: Database,
  request: StartExecutionInput,
  deps: AgentDeps,
  o: { json?: boolean; quiet?: boolean },
): Promise<ExperimentSummary | null> {
  const progress = turnProgress(Number(request.config?.max_moves ?? 0));
  try {
    const { summary } = await runLocalExperiment(request, {
      db,
      parameters: localParameters(),
      agents: agentsWith({ ...sharedAgentDeps(db), ...deps }),
      onTurn: (t) => {
        if (!o.quiet && !o.json) progress.update(t);
      },
    });
    return summary;
  } catch (err) {
    if (!(err instanceof ExperimentFailedError)) throw err;
    return err.summary;
  } finally {
    progress.done();
  }
}

const newIdFor = (id: string, what: string) => `${id.slice(0, 40)}-${what}-${randomUUID().slice(0, 8)}`;

async function rerun(id: string, o: RerunOptions): Promise<void> {
  const newId = o.experimentId ?? newIdFor(id, o.replay ? 'replay' : 'rerun');
  await withCliDatabase(async (db) => {
    const request = await rerunRequest(db, id, newId);
    const replay = o.replay ? await replayScript(db, id) : undefined;
    // each turn's cursor starts past the calls the rerun committed (a turn tried again asks again)
    const replayFrom = replay ? async (run: string) => replay.from(await answeredRequests(db, run)) : undefined;
    const summary = await runAgain(db, request, { replayFrom }, o);
    if (o.replay) await new PgStore(db).linkReplay(newId, id);
    const hashes = await trajectoryHashes(db, id, newId);
    if (summary) await showSummary(db, summary, o.json === true);
    const same = hashes.original !== null && hashes.original === hashes.rerun;
    process.stderr.write(
      `${o.replay ? 'replay' : 'rerun'} ${newId} of ${id}: trajectory ${same ? 'identical' : 'differs'} ` +
        `(${hashes.rerun ?? 'none'} against ${hashes.original ?? 'none'})\n`,
    );
    if (summary?.status === 'failed' || (o.replay && !same)) process.exitCode = EXIT.workFailed;
  });
}

interface ForkOptions {
  atStep: string;
  model?: string;
  set?: string[];
  experimentId?: string;
  json?: boolean;
  quiet?: boolean;
}

async function fork(id: string, o: ForkOptions): Promise<void> {
  const atStep = Number(o.atStep);
  if (!Number.isInteger(atStep) || atStep < 1)
    throw new InvalidInputError('--at-step', o.atStep, `--at-step must be a whole number from 1, got "${o.atStep}"`);
  const newId = o.experimentId ?? newIdFor(id, `fork${atStep}`);
  await withCliDatabase(async (db) => {
    const request = await rerunRequest(db, id, newId);
    if (o.model !== undefined) {
      if (request.model === null)
        throw new InvalidInputError('--model', o.model, `${id} is a ${request.agent} baseline run: it has no model`);
      request.model = o.model;
    }
    request.config = mergeConfig(request.config ?? {}, settingsFromSet(o.set ?? [], new Set()));
    request.fork = { parent: id, atStep };
    const summary = await runAgain(db, request, {}, o);
    if (summary) await showSummary(db, summary, o.json === true);
    process.stderr.write(`fork ${newId} of ${id} after step ${atStep}\n`);
    if (summary?.status === 'failed') process.exitCode = EXIT.workFailed;
  });
}

export function registerRerunCommand(program: Command): void {
  const command = program
    .command('rerun')
    .description(
      'run an experiment again from what it started with (agent, model, seed, maze, stored config); ' +
        '--replay answers its model calls from its record, with no model server, and checks the trajectory',
    )
    .argument('<experiment-id>')
    .option('--replay', 'answer every model call from the recorded run; a request that differs stops the run')
    .option('--experiment-id <id>', "the rerun's id (default: the original's, -replay- or -rerun-, and 8 characters)")
    .addOption(jsonOption('print the summary as JSON on stdout'))
    .option('--quiet', 'no progress line')
    .action((id: string, o: RerunOptions) => rerun(id, o));
  withExample(command, 'ariadne rerun demo-1 --replay');

  const forkCommand = program
    .command('fork')
    .description(
      'start an experiment from the state after step K of another: its maze, position, tiles seen, memory and ' +
        "detectors reached by the parent's recorded replies, then the model (or --model) continues",
    )
    .argument('<experiment-id>')
    .requiredOption('--at-step <k>', "the step after which the fork continues (1 to the parent's actions)")
    .option('--model <id>', "the model that continues (default: the parent's)")
    .option('--set <key=value>', 'a setting for the fork, as run takes it; repeatable', collectRepeated)
    .option('--experiment-id <id>', "the fork's id (default: the parent's, -forkK- and 8 characters)")
    .addOption(jsonOption('print the summary as JSON on stdout'))
    .option('--quiet', 'no progress line')
    .action((id: string, o: ForkOptions) => fork(id, o));
  withExample(forkCommand, 'ariadne fork demo-1 --at-step 50 --model qwen2.5:14b');
}
