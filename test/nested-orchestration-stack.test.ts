// Nested orchestration as `cdk synth` writes it: the Standard experiment machine runs its turns in chunks, each a
// synchronous Express execution of the turn machine (RunChunk), and grants no more than that needs; with
// -c orchestration=standard there is no turn machine at all.
import { beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { synthesizeTemplate, machineDefinition, type Definition } from '../state-machine/definition.ts';
import { STATES, TASK_STATES } from '../core/machine/states.ts';
import { CHUNK_MARGIN_SECONDS, EXPRESS_MAX_SECONDS } from '../core/config/budgets.ts';
import { fact } from '../aws-facts/facts.ts';
import { AriadneStack } from '../lib/ariadne-stack.ts';

type States = Record<string, Record<string, any>>;
let template: Template;
let parent: States;
let chunk: Definition;
beforeAll(async () => {
  template = await synthesizeTemplate();
  parent = machineDefinition(template, 'Experiments').States;
  chunk = machineDefinition(template, 'ExperimentsChunks');
});

const machines = (t: Template) => Object.entries(t.findResources('AWS::StepFunctions::StateMachine'));
const TURN_TASKS = [
  STATES.InvokeBaselineAgent,
  STATES.InvokeBedrockAgent,
  STATES.InvokeOllamaAgent,
  STATES.InvokeOpenAIAgent,
  STATES.CheckProgress,
];

/** The statements of the policies attached to the role of the machine whose logical id starts with `prefix`. */
function roleStatements(t: Template, prefix: string): Array<{ Action: string | string[]; Resource: unknown }> {
  const [, machine] = machines(t).find(([id]) => id.startsWith(prefix))!;
  const role = (machine.Properties.RoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return Object.values(t.findResources('AWS::IAM::Policy'))
    .filter((p) => (p.Properties.Roles as Array<{ Ref: string }>).some((r) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

describe('nested orchestration (the default)', () => {
  it('the Standard machine starts each chunk with the Task resource AWS documents for nested Express', () => {
    expect(parent[STATES.StartExperiment].Next).toBe(STATES.RunChunk);
    const run = parent[STATES.RunChunk];
    expect(run.Resource).toBe(fact('sfn.nested-express-sync-pattern').value);
    // PascalCase parameters (aws-facts: sfn.aws-sdk-error-names); the input is the API's string
    expect(run.Parameters['Input.$']).toBe('States.JsonToString($)');
    expect(run.Parameters.StateMachineArn).toContain('ExperimentsChunksMachine');
    expect(run.ResultPath).toBe('$.chunk');
    expect(run.TimeoutSeconds).toBe(EXPRESS_MAX_SECONDS + CHUNK_MARGIN_SECONDS);
    // a chunk that timed out, or did not succeed, leaves the turns to go on one at a time here
    expect(run.Catch.map((c: any) => [c.ErrorEquals, c.Next])).toEqual([
      [['States.Timeout'], STATES.ProviderRouter],
      [['States.ALL'], STATES.FinalizeFailure],
    ]);
    expect(parent[STATES.ChunkEnded].Choices).toEqual([
      { Variable: '$.chunk.Status', StringEquals: 'SUCCEEDED', Next: STATES.ChunkResult },
    ]);
    expect(parent[STATES.ChunkEnded].Default).toBe(STATES.ProviderRouter);
    expect(parent[STATES.ChunkResult]).toMatchObject({
      Parameters: { 'state.$': 'States.StringToJson($.chunk.Output)' },
      OutputPath: '$.state',
      Next: STATES.ConditionCheck,
    });
  });

  it("ConditionCheck finalizes a chunk's error first, starts another chunk, or goes on one turn at a time", () => {
    const rules = parent[STATES.ConditionCheck].Choices as any[];
    expect(rules[0]).toEqual({ Variable: '$.error', IsPresent: true, Next: STATES.FinalizeFailure });
    const next = (decision: string) => rules.find((r) => r.StringEquals === decision)?.Next;
    expect(next('hand_back')).toBe(STATES.ChunkLoop);
    expect(next('per_turn')).toBe(STATES.ContinueLoop);
    expect(next('continue')).toBe(STATES.ContinueLoop);
    expect(parent[STATES.ChunkLoop]).toMatchObject({ InputPath: '$.progress.next', Next: STATES.RunChunk });
    // an outage's wait is in the Standard execution (durable); the same turn then goes on in a new chunk
    expect(parent[STATES.OutageResume].Next).toBe(STATES.RunChunk);
  });

  it('the turn machine is EXPRESS, at most 5 minutes, logged, and runs the turn loop to ChunkDone', () => {
    const [, resource] = machines(template).find(([id]) => id.startsWith('ExperimentsChunksMachine'))!;
    expect(resource.Properties.StateMachineType).toBe('EXPRESS');
    expect(chunk.TimeoutSeconds).toBe(fact('sfn.express-max-execution-seconds').value);
    // its history is only in its logs (aws-facts: sfn.express-history)
    expect(resource.Properties.LoggingConfiguration.Level).toBe('ERROR');
    const s = chunk.States as States;
    expect(chunk.StartAt).toBe(STATES.ProviderRouter);
    expect(Object.keys(s).sort()).toEqual(
      [...TURN_TASKS, STATES.ProviderRouter, STATES.ConditionCheck, STATES.ContinueLoop, STATES.ChunkDone].sort(),
    );
    expect(s[STATES.ConditionCheck].Choices).toEqual([
      { Variable: '$.progress.decision', StringEquals: 'continue', Next: STATES.ContinueLoop },
    ]);
    expect(s[STATES.ConditionCheck].Default).toBe(STATES.ChunkDone);
    for (const task of TURN_TASKS) expect(s[task].Catch.at(-1), task).toMatchObject({ Next: STATES.ChunkDone });
    // the Standard execution's clock (continue-as-new) and the chunk's own start (its 5 minutes)
    expect(s[STATES.CheckProgress].Parameters).toEqual({
      'state.$': '$',
      'execution.$': '$.clock',
      chunk: { 'startTime.$': '$$.Execution.StartTime' },
    });
    // the same Task definitions as the Standard machine's: the same retries, the same functions
    for (const task of TURN_TASKS) expect(s[task].Retry, task).toEqual(parent[task].Retry);
  });

  it('the Standard machine may start the turn machine synchronously and nothing else new', () => {
    const statements = roleStatements(template, 'ExperimentsMachine');
    const sync = statements.filter((st) => [st.Action].flat().some((a) => /startsyncexecution/i.test(a)));
    expect(sync).toHaveLength(1);
    expect(sync[0].Action).toBe('states:StartSyncExecution');
    expect(sync[0].Resource).toEqual({
      Ref: machines(template).find(([id]) => id.startsWith('ExperimentsChunks'))![0],
    });
  });

  it('the turn machine may invoke the turn functions and CheckProgress, no other function, and start nothing', () => {
    const statements = roleStatements(template, 'ExperimentsChunksMachine');
    const actions = new Set(statements.flatMap((st) => [st.Action].flat()));
    expect([...actions].filter((a) => !a.startsWith('logs:') && !a.startsWith('xray:'))).toEqual([
      'lambda:InvokeFunction',
    ]);
    const invoked = new Set(
      statements
        .filter((st) => st.Action === 'lambda:InvokeFunction')
        .flatMap((st) => [st.Resource].flat())
        .map((r) => JSON.stringify(r)),
    );
    const fnOf = (state: string) => {
      const arn = (chunk.States as States)[state]?.Resource ?? parent[state].Resource;
      return arn.split(':').at(-1);
    };
    const names = [...invoked].join(' ');
    for (const task of TURN_TASKS) expect(names, task).toContain(fnOf(task));
    for (const task of TASK_STATES.filter((t) => !TURN_TASKS.includes(t as never)))
      expect(names, task).not.toContain(`"${fnOf(task)}"`);
  });
});

describe('-c orchestration=standard', () => {
  it('has no turn machine and no StartSyncExecution grant: each turn is in the execution history', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const standard = Template.fromStack(new AriadneStack(app, 'Ariadne', { orchestration: 'standard' }));
    const experiments = machines(standard).filter(([id]) => id.startsWith('Experiments'));
    expect(experiments.map(([id]) => id.replace(/[0-9A-F]{8}$/, ''))).toEqual(['ExperimentsMachine']);
    expect(experiments[0][1].Properties.StateMachineType).toBe('STANDARD');
    expect(JSON.stringify(standard.toJSON())).not.toMatch(/StartSyncExecution/i);
    const s = machineDefinition(standard, 'Experiments').States as States;
    expect(s[STATES.StartExperiment].Next).toBe(STATES.ProviderRouter);
  });
});
