// ariadne rerun: an experiment run again with everything it started from (agent, model, seed, maze, stored
// config); with --replay its model calls are answered from its record, with no model server, and the rerun's
// trajectory must equal the original's. A request that differs from the recorded one stops the replay at that call.
import type { Command } from 'commander';
import { randomUUID } from 'node:crypto';
import { agentsWith } from '../../../core/providers/agents.ts';
import { sqlRateLimits } from '../../../core/store/rate-limit-sql.ts';
import { PgStore } from '../../../core/store/pg-store.ts';
import { ExperimentFailedError, runLocalExperiment } from '../../../state-machine/local-experiment.ts';
import { replayScript, rerunRequest, trajectoryHashes } from '../../../results/recorded-run.ts';
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

async function rerun(id: string, o: RerunOptions): Promise<void> {
  const newId = o.experimentId ?? `${id.slice(0, 40)}-${o.replay ? 'replay' : 'rerun'}-${randomUUID().slice(0, 8)}`;
  await withCliDatabase(async (db) => {
    const request = await rerunRequest(db, id, newId);
    const replay = o.replay ? await replayScript(db, id) : undefined;
    const maxMoves = Number(request.config?.max_moves ?? 0);
    const progress = turnProgress(maxMoves);
    let summary: ExperimentSummary | null;
    try {
      ({ summary } = await runLocalExperiment(request, {
        db,
        parameters: localParameters(),
        agents: agentsWith({ rateLimits: sqlRateLimits(db), replay }),
        onTurn: (t) => {
          if (!o.quiet && !o.json) progress.update(t);
        },
      }));
    } catch (err) {
      if (!(err instanceof ExperimentFailedError)) throw err;
      summary = err.summary;
    }
    progress.done();
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
}
