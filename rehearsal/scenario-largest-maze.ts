// The scenario "largest-maze": an experiment on the largest maze a run may name, through the stack's
// functions, which read and write the run over the Data API; its simulator refuses a row over 64 KB and a response
// over 1 MiB as AWS documents them (aws-facts/facts.ts), so a maze stored as one row too large would fail here. The
// researcher scenario then replays it with --aws (the CLI's read of the same row). Reports how close it came.
import { fact } from '../aws-facts/facts.ts';
import { MAX_SIZE } from '../core/maze/generators/index.ts';
import { experiment } from './run-experiment.ts';
import type { World } from './world.ts';

/** The label of its experiment id, for the researcher scenario's replay. */
export const LARGEST_MAZE_LABEL = 'largest-maze';

class LargestMazeScenarioError extends Error {
  override readonly name = 'LargestMazeScenarioError';
}

const share = (n: number, of: number) =>
  `${n.toLocaleString('en-US')} bytes of ${of.toLocaleString('en-US')} ` + `(${((100 * n) / of).toFixed(0)}%)`;

export async function largestMazeScenario(world: World): Promise<string> {
  const { peaks } = world.dataApi;
  peaks.rowBytes = 0;
  peaks.responseBytes = 0;
  const row = await experiment(world, LARGEST_MAZE_LABEL, {
    agent: 'frontier',
    maze: { generator: 'perfect', size: MAX_SIZE, seed: 1 },
    config: { max_moves: 300 },
  });
  // a timeout is a finished run (300 actions do not cross a 201x201 maze); a failure is a limit met
  if (row.status === 'failed' || row.error)
    throw new LargestMazeScenarioError(
      `${row.id} ${row.status}: ${row.failure_reason ?? row.error?.message ?? 'no reason recorded'}`,
    );
  if (peaks.rowBytes === 0) throw new LargestMazeScenarioError('no row was read through the Data API');
  return (
    `a ${MAX_SIZE}x${MAX_SIZE} maze ${row.status} after ${row.actions_taken} actions over the Data API: largest row ` +
    `${share(peaks.rowBytes, fact('data-api.max-row-bytes').value)}, largest response ` +
    share(peaks.responseBytes, fact('data-api.max-response-bytes').value)
  );
}
