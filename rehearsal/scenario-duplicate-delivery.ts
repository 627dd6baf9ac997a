// Express runs a workflow at least once, and a Task may run its state more than once (aws-facts:
// sfn.express-execution-semantics): every chunk is delivered twice at once (a retried RunChunk's second child), and
// inside each, every turn's Lambda is invoked twice. The action log must equal an undisturbed run's.
import { randomBytes } from 'node:crypto';
import { machineOf, type World } from './world.ts';
import { runExperimentMachine } from './run-experiment.ts';
import { STATES } from '../core/machine/states.ts';
import { fact } from '../aws-facts/facts.ts';

const REQUEST = {
  agent: 'random',
  agentSeed: 7,
  maze: { generator: 'perfect', size: 21, seed: 9 },
  config: { max_moves: 160, max_actions_per_turn: 6 },
};

/** What an experiment wrote, without its id: every action, in order. */
async function actionLog(world: World, id: string): Promise<string[]> {
  const { rows } = await world.db.pool.query<Record<string, unknown>>(
    'SELECT turn_number, call_index, step_number, tool, outcome, from_x, from_y, to_x, to_y, new_tiles_seen ' +
      'FROM actions WHERE experiment_id = $1 ORDER BY turn_number, call_index',
    [id],
  );
  return rows.map((r) => JSON.stringify(r));
}

export async function duplicateDeliveryScenario(world: World): Promise<string> {
  if (!machineOf(world).chunks) return 'orchestration standard: no chunks to deliver twice';
  const semantics = fact('sfn.express-execution-semantics').value.synchronousExpress;
  const id = (label: string) => `rehearsal-${label}-${randomBytes(3).toString('hex')}`;
  const calm = id('undisturbed');
  await runExperimentMachine(world, { ...REQUEST, experimentId: calm }, calm);
  const twice = id('twice');
  let invocations = 0;
  const run = await runExperimentMachine(world, { ...REQUEST, experimentId: twice }, twice, {
    duplicateChunks: () => true,
    // the turn's state run a second time: the second answer is the one the chunk goes on with
    wrap: (state, handler) =>
      state === STATES.InvokeBaselineAgent
        ? async (event) => {
            invocations += 2;
            await handler(event);
            return handler(event);
          }
        : handler,
  });
  const [expected, got] = await Promise.all([actionLog(world, calm), actionLog(world, twice)]);
  if (expected.length === 0) throw new Error(`${calm} wrote no action`);
  if (JSON.stringify(got) !== JSON.stringify(expected))
    throw new Error(`${twice} wrote ${got.length} actions, the undisturbed run ${expected.length}: not the same log`);
  const duplicates = run.chunks.filter((c) => c.duplicate).length;
  if (duplicates === 0) throw new Error('no chunk was delivered twice');
  return (
    `${run.chunks.length} chunk deliveries (${duplicates} a second Express execution racing the first, as a ` +
    `retried start makes one: each is ${semantics}), ${invocations} turn invocations, each turn twice, for the ` +
    `${expected.length} actions: the log equals ` +
    "the undisturbed run's, each action written once"
  );
}
