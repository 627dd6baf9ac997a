// The rehearsal's scenarios, each checked against the database afterwards.
import { randomBytes } from 'node:crypto';
import { machineOf } from './world.ts';
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { PROVIDER_SCENARIOS } from './provider-scenarios.ts';
import { NEW_ACCOUNT_SCENARIOS } from './scenario-new-account.ts';
import { SECRET_SCENARIOS } from './secret-scenarios.ts';
import { MIGRATION_SCENARIOS } from './scenario-migrations.ts';
import { experiment, toGoal, type Scenario } from './run-experiment.ts';
import { sweepScenario } from './scenario-sweep.ts';
import { lowConcurrencyScenario } from './scenario-low-concurrency.ts';
import { researcherScenario } from './scenario-researcher.ts';
import { readOnlyScenario } from './scenario-read-only.ts';
import { secretsScenario } from './scenario-secrets.ts';
import { factorsScenario } from './scenario-factors.ts';
import { largestMazeScenario } from './scenario-largest-maze.ts';
import { failedFirstDeployScenario } from './scenario-failed-first-deploy.ts';
import { logsScenario } from './scenario-logs.ts';
import { duplicateDeliveryScenario } from './scenario-duplicate-delivery.ts';

export const SCENARIOS: Record<string, Scenario> = {
  async baseline(world) {
    const row = await experiment(world, 'baseline', {
      agent: 'frontier',
      maze: { generator: 'medium', size: 15, seed: 3 },
    });
    if (row.status !== 'completed' || !row.goal_found)
      throw new Error(`experiment ${row.id} ended ${row.status}, goal found: ${row.goal_found}`);
    const chunks = machineOf(world).chunks;
    if (chunks && world.sims.sfn.syncExecutions.length === 0)
      throw new Error('the turns ran in no chunk: no StartSyncExecution reached the Step Functions server');
    const how = chunks
      ? `, its turns in chunks started by StartSyncExecution as the machine's role (${chunks.arn.split(':').at(-1)})`
      : '';
    return `frontier agent to the goal in ${row.actions_taken} actions${how}`;
  },
  'duplicate-delivery': duplicateDeliveryScenario,
  async bedrock(world) {
    // A model of the stack's default list, with the config's defaults: as a researcher would launch it.
    const row = await experiment(world, 'bedrock', {
      agent: 'bedrock',
      model: DEFAULT_BEDROCK_MODELS[0],
      maze: { generator: 'medium', size: 9, seed: 3 },
      config: { max_moves: 200 },
    });
    toGoal(row);
    return `Bedrock agent (${DEFAULT_BEDROCK_MODELS[0]}) to the goal in ${row.actions_taken} actions`;
  },
  logs: logsScenario,
  ...PROVIDER_SCENARIOS,
  ...NEW_ACCOUNT_SCENARIOS,
  async 'continue-as-new'(world) {
    // the smallest history budget (20 events): one turn per execution, every later turn a new execution
    const row = await experiment(world, 'hops', {
      agent: 'frontier',
      maze: { generator: 'medium', size: 15, seed: 3 },
      config: { history_event_budget: 20 },
    });
    toGoal(row);
    if (row.executions.length < 3) throw new Error(`only ${row.executions.length} executions: expected at least 3`);
    const { rows } = await world.db.pool.query<{ n: number }>(
      'SELECT cardinality(execution_arns) AS n FROM experiments WHERE id = $1',
      [row.id],
    );
    if (rows[0].n !== row.executions.length)
      throw new Error(`${row.executions.length} executions ran, ${rows[0].n} recorded`);
    return `${row.executions.length} executions (continued as new), to the goal in ${row.actions_taken} actions`;
  },
  async abort(world) {
    // An execution aborted after StartExperiment: EventBridge's status-change event reaches the finalizer, which
    // marks the experiment failed (lib/failure-handling.ts), with the finalizer's own grants.
    const { arn, handlers } = machineOf(world);
    const name = `rehearsal-abort-${randomBytes(3).toString('hex')}`;
    const executionArn = `${arn.replace(':stateMachine:', ':execution:')}:${name}`;
    const request = { agent: 'frontier', maze: { generator: 'medium', size: 9, seed: 3 }, experimentId: name };
    await handlers.StartExperiment!({ request, executionArn });
    const finalizer = world.assembly.functions.find((f) => f.logicalId.startsWith('FailureHandlingFinalizer'));
    if (!finalizer) throw new Error('the template has no EventBridge finalizer function');
    const env = world.model.values.env;
    const event = {
      version: '0',
      id: randomBytes(16).toString('hex'),
      'detail-type': 'Step Functions Execution Status Change',
      source: 'aws.states',
      account: env.account,
      time: new Date().toISOString(),
      region: env.region,
      resources: [executionArn],
      detail: {
        executionArn,
        stateMachineArn: arn,
        name,
        status: 'ABORTED',
        startDate: Date.now() - 1000,
        stopDate: Date.now(),
        input: JSON.stringify(request),
        output: null,
        inputDetails: { included: true },
        outputDetails: null,
        error: null,
        cause: null,
      },
    };
    const result = await world.processes.get(finalizer.logicalId)!.invoke(event);
    if (!result.ok) throw new Error(`the finalizer failed: ${result.errorType}: ${result.errorMessage}`);
    const { rows } = await world.db.pool.query<{ status: string; stop_reason: string }>(
      'SELECT status, stop_reason FROM experiments WHERE id = $1',
      [name],
    );
    if (rows[0]?.status !== 'failed' || rows[0].stop_reason !== 'execution_aborted')
      throw new Error(`the aborted experiment is ${rows[0]?.status ?? 'missing'} (${rows[0]?.stop_reason ?? '-'})`);
    return 'an aborted execution finalized by its EventBridge event: failed, execution_aborted';
  },
  async resume(world) {
    // Aurora paused at 0 ACU: the first Data API calls answer DatabaseResumingException until it is up
    await world.dataApi.pause();
    const row = await experiment(world, 'resume', {
      agent: 'frontier',
      maze: { generator: 'medium', size: 9, seed: 3 },
    });
    toGoal(row);
    if (world.dataApi.isPaused) throw new Error('the database never resumed');
    return `the paused database resumed under StartExperiment; to the goal in ${row.actions_taken} actions`;
  },
  ...MIGRATION_SCENARIOS,
  'failed-first-deploy': failedFirstDeployScenario,
  ...SECRET_SCENARIOS,
  secrets: secretsScenario,
  'largest-maze': largestMazeScenario,
  sweep: sweepScenario,
  'low-concurrency': lowConcurrencyScenario,
  factors: factorsScenario,
  // last: they read what the others ran
  researcher: researcherScenario,
  'researcher-read-only': readOnlyScenario,
};
