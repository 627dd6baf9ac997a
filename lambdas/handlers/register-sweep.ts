// RegisterSweep (the AWS sweep machine's first state): validate the sweep
// file it was given and write the sweep and its cells, so every child
// experiment can name its cell. Idempotent; a changed spec under a used name
// is refused.
import { z } from 'zod';
import { parseOrThrow } from '../config/zod-errors.ts';
import { InvalidInputError } from '../engine/errors.ts';
import { loadSweep, SweepDefinitionError } from '../../state-machine/sweep-spec.ts';
import { registerSweep } from '../../state-machine/sweep-registry.ts';
import { lambdaEntry, type HandlerDeps } from './deps.ts';

const inputSchema = z
  .object({ sweep: z.object({ id: z.string().min(1), specText: z.string().min(1).max(200_000) }).strict() })
  .passthrough();

export const registerSweepHandler =
  (deps: HandlerDeps) =>
  async (event: unknown): Promise<{ sweepId: string; cells: number; runs: number }> => {
    const { sweep } = parseOrThrow(inputSchema, event);
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
    await registerSweep(deps.store.db, loaded);
    return { sweepId: loaded.spec.sweep, cells: loaded.cells.length, runs: loaded.runs.length };
  };

export const handler = lambdaEntry(registerSweepHandler);
