// RegisterSweep (the AWS sweep machine's first state): validates the sweep file, fits it to the account (the Map's
// MaxConcurrency capped to the free Lambda concurrency; a sweep that could not end within one Standard execution
// refused), and writes the sweep and its cells so every child experiment can name its cell. Idempotent; a changed
// spec under a used name is refused.
import { z } from 'zod';
import { parseOrThrow } from '../core/config/zod-errors.ts';
import { InvalidInputError } from '../core/errors.ts';
import { loadSweep, SweepDefinitionError } from '../core/sweeps/sweep-spec.ts';
import { registerSweep } from '../core/sweeps/sweep-registry.ts';
import {
  durationNote,
  fitToAccount,
  type ConcurrencyDecision,
  type SweepDuration,
} from '../core/sweeps/sweep-capacity.ts';
import { lambdaEntry, type HandlerDeps } from './deps.ts';
import { lambdaAccountConcurrency, type AccountConcurrencyReader } from './lambda-concurrency.ts';
import { fact } from '../aws-facts/facts.ts';
import { envString } from '../core/config/environment.ts';

/** A Distributed Map runs at most 10,000 child workflow executions at once. */
const MAP_MAX_CONCURRENCY = fact('sfn.max-map-run-child-executions').value;

const inputSchema = z
  .object({
    sweep: z.object({ id: z.string().min(1), specText: z.string().min(1).max(200_000) }).strict(),
    /** What the launcher asked for (the CLI: --concurrency or the file's max_concurrency); else the file's. */
    maxConcurrency: z.number().int().min(1).max(MAP_MAX_CONCURRENCY).optional(),
  })
  .passthrough();

export interface RegisteredSweep {
  sweepId: string;
  cells: number;
  runs: number;
  /** The Map's MaxConcurrency (its MaxConcurrencyPath reads it here). */
  maxConcurrency: number;
  concurrency: ConcurrencyDecision;
  duration: SweepDuration & { note: string };
}

let accountReader: AccountConcurrencyReader | undefined;

export const registerSweepHandler =
  (deps: HandlerDeps, readAccount?: AccountConcurrencyReader) =>
  async (event: unknown): Promise<RegisteredSweep> => {
    const input = parseOrThrow(inputSchema, event);
    const { sweep } = input;
    let loaded;
    try {
      loaded = loadSweep(sweep.specText, `"${sweep.id}"`);
    } catch (err) {
      if (err instanceof SweepDefinitionError) throw new InvalidInputError(err.path, sweep.id, err.message);
      throw err;
    }
    if (loaded.spec.sweep !== sweep.id)
      throw new InvalidInputError(
        'sweep.id',
        sweep.id,
        `sweep.id "${sweep.id}" does not match the file's sweep "${loaded.spec.sweep}"`,
      );
    // Read at run time, not trusted from the launcher: the account may have changed since, or the sweep was started
    // without the CLI. A read that fails leaves the request as it is (its throttles are retried, not failed).
    const read = readAccount ?? (accountReader ??= lambdaAccountConcurrency());
    const account = await read().catch((err: unknown) => ({
      error: `${(err as Error).name}: ${(err as Error).message}`,
    }));
    // the deployed default a run without its own max_duration_minutes gets from StartExperiment
    const deployed = (await deps.parameters?.get())?.config.max_duration_minutes;
    // refused (SweepTooLongError) before anything is written
    const { concurrency, duration } = fitToAccount(
      loaded.spec.sweep,
      loaded.runs.map((r) => r.cell.config),
      input.maxConcurrency ?? loaded.spec.max_concurrency,
      account,
      envString('AWS_REGION'),
      typeof deployed === 'number' ? deployed : undefined,
    );
    // no growth here: the run list was uploaded from the file before the sweep was registered
    await registerSweep(deps.store.db, loaded, { growth: false });
    deps.telemetry?.event('sweep registered', {
      sweepId: loaded.spec.sweep,
      cells: loaded.cells.length,
      runs: loaded.runs.length,
      maxConcurrency: concurrency.maxConcurrency,
    });
    return {
      sweepId: loaded.spec.sweep,
      cells: loaded.cells.length,
      runs: loaded.runs.length,
      maxConcurrency: concurrency.maxConcurrency,
      concurrency,
      duration: { ...duration, note: durationNote(duration, concurrency.maxConcurrency) },
    };
  };

export const handler = lambdaEntry(registerSweepHandler);
