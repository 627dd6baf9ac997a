// The Standard machine's side of nested orchestration: RunChunk starts the turn machine as a synchronous Express
// execution and waits for it (the Task resource AWS documents for a nested Express workflow, aws-facts:
// sfn.nested-express-sync-pattern); ChunkEnded reads how it ended, ChunkResult takes its output as the state, and
// ChunkLoop starts the next chunk. A chunk that did not succeed (stopped at 5 minutes by a slow turn) leaves the
// state as it was before it: the same turns go on one at a time here, the committed ones replayed, not run again.
import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { CHUNK_START_RETRY, STATES } from '../core/machine/states.ts';
import { CHUNK_MARGIN_SECONDS, EXPRESS_MAX_SECONDS } from '../core/config/budgets.ts';
import { retryProps } from './turn-states.ts';

export interface ChunkStates {
  /** RunChunk: where a chunk starts (after StartExperiment, ChunkLoop, OutageResume). */
  run: sfn.IChainable;
  /** ChunkLoop: the next chunk from CheckProgress's next loop state; wired to `run` by the caller. */
  loop: sfn.Pass;
  /** ChunkResult: the chunk's last state, for ConditionCheck; wired by the caller. */
  result: sfn.Pass;
}

export function runChunk(
  scope: Construct,
  props: { chunks: sfn.IStateMachine; perTurn: sfn.IChainable; onError: sfn.IChainable },
): ChunkStates {
  const run = new tasks.CallAwsService(scope, STATES.RunChunk, {
    stateName: STATES.RunChunk,
    service: 'sfn',
    action: 'startSyncExecution',
    parameters: {
      StateMachineArn: props.chunks.stateMachineArn,
      Input: sfn.JsonPath.jsonToString(sfn.JsonPath.entirePayload),
    },
    // the API's own action, on the turn machine alone (CDK would spell it sfn:startSyncExecution's lower case)
    iamAction: 'states:StartSyncExecution',
    iamResources: [props.chunks.stateMachineArn],
    resultPath: '$.chunk',
    // the call waits at most the chunk's 5 minutes; past that and a margin, the turns go on here one at a time
    taskTimeout: sfn.Timeout.duration(Duration.seconds(EXPRESS_MAX_SECONDS + CHUNK_MARGIN_SECONDS)),
  });
  run.addRetry(retryProps(CHUNK_START_RETRY));
  run.addCatch(props.perTurn, { errors: ['States.Timeout'], resultPath: '$.chunk' });
  run.addCatch(props.onError, { errors: ['States.ALL'], resultPath: '$.error' });
  const result = new sfn.Pass(scope, STATES.ChunkResult, {
    stateName: STATES.ChunkResult,
    parameters: { 'state.$': 'States.StringToJson($.chunk.Output)' },
    outputPath: '$.state',
  });
  const ended = new sfn.Choice(scope, STATES.ChunkEnded, { stateName: STATES.ChunkEnded })
    .when(sfn.Condition.stringEquals('$.chunk.Status', 'SUCCEEDED'), result)
    .otherwise(props.perTurn);
  run.next(ended);
  const loop = new sfn.Pass(scope, STATES.ChunkLoop, { stateName: STATES.ChunkLoop, inputPath: '$.progress.next' });
  return { run, loop, result };
}
