// The stack as CloudFormation: what `cdk synth` produces.
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { AriadneParameters, PARAMETER_CHAINS } from '../lib/parameters.ts';
import { synthesizeTemplate, machineDefinition, type Definition } from '../state-machine/definition.ts';
import { EXPERIMENT_MAX_LIFE, SWEEP_OBJECT_EXPIRY, SWEEP_STATES, SWEEP_TIMEOUT } from '../lib/sweep-state-machine.ts';
import { RESULTS_PREFIX, RUNS_PREFIX } from '../core/machine/sweep-machine-input.ts';
import {
  aslRetry,
  EXECUTION_ALREADY_EXISTS_ERRORS,
  INPUT_ERRORS,
  LAMBDA_THROTTLE_RETRY,
  retryWaitSeconds,
  SFN_START_RETRY,
  STATES,
  TASK_STATES,
  TRANSIENT_ERRORS,
} from '../core/machine/states.ts';
import { TASKS, turnReserveSeconds } from '../core/machine/tasks.ts';
import { DATABASE_RETRY_BUDGET_MS, DATABASE_WORK_MARGIN_MS, LLM_TURN_TIMEOUT_SECONDS } from '../core/config/budgets.ts';
import { resolveParameters } from '../core/config/parameters.ts';
import { DEFAULT_CONFIG, experimentConfigSchema, MAX_DURATION_MINUTES } from '../core/config/experiment-config.ts';
import { PROMPTS } from '../core/config/prompts.ts';
import { AriadneStack, DEFAULT_BEDROCK_MODELS, type AriadneStackProps } from '../lib/ariadne-stack.ts';
import {
  DATA_API_ACTIONS,
  MIGRATION_POLL_INTERVAL,
  MIGRATION_TOTAL_TIMEOUT,
  migrationsChecksum,
} from '../lib/database.ts';
import { PROFILE_REGIONS, profilePrefix } from '../lib/bedrock.ts';
import { tempDir } from './support/temp-dir.ts';
import { sharedAssembly } from './support/assembly.ts';
import { IDLE_GOAL, idleCost } from '../bench/idle-cost.ts';
import { THROTTLE_ALARM } from '../lib/monitoring.ts';
import { METRIC_NAMESPACE, METRICS, PROVIDERS, SERVICE, type MetricName } from '../core/telemetry/metrics.ts';
import { dataApiFunctionEnv } from './support/data-api-env.ts';

let template: Template;
let def: Definition;
/** The all-Standard machine (-c orchestration=standard); nested-orchestration-stack.test.ts tests the default's. */
let standardDef: Definition;
beforeAll(async () => {
  template = await synthesizeTemplate();
  def = machineDefinition(template, 'Experiments');
  standardDef = machineDefinition(await synthesizeTemplate('standard'), 'Experiments');
});

/** The stack with other props (bundling skipped, like synthesizeTemplate). */
function variant(props: AriadneStackProps): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return Template.fromStack(new AriadneStack(app, 'Ariadne', props));
}

type Resources = Record<
  string,
  { Type: string; DeletionPolicy?: string; UpdateReplacePolicy?: string; Properties: Record<string, any> }
>;
const resourcesOf = (t: Template) => t.toJSON().Resources as Resources;
const idsOf = (t: Template, type: string) => Object.keys(t.findResources(type));

/** Every IAM statement of a template, with the roles its policy is attached to. */
const statementsOf = (t: Template) =>
  Object.values(t.findResources('AWS::IAM::Policy')).flatMap((p) =>
    p.Properties.PolicyDocument.Statement.map((st: any) => ({ ...st, roles: p.Properties.Roles })),
  );

const PSEUDO: Record<string, string> = {
  'AWS::Partition': 'aws',
  'AWS::Region': 'us-east-1',
  'AWS::AccountId': '123456789012',
};
/** An ARN as a string: Fn::Join over literals and pseudo parameters (the stack's env fills in the rest). */
function flat(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as { Ref?: string; 'Fn::Join'?: [string, unknown[]] };
  if (v.Ref && Object.hasOwn(PSEUDO, v.Ref)) return PSEUDO[v.Ref];
  if (v['Fn::Join']) return v['Fn::Join'][1].map(flat).join(v['Fn::Join'][0]);
  return JSON.stringify(value);
}

/** The deletion protection's function (lib/database.ts), by its logical id. */
const PROTECT_FN = 'DatabaseDeletionProtectionProtectFn';

const INVOKE_STATES: string[] = [
  STATES.InvokeBedrockAgent,
  STATES.InvokeOllamaAgent,
  STATES.InvokeOpenAIAgent,
  STATES.InvokeBaselineAgent,
];

describe('experiment state machine', () => {
  it('is a Standard machine that logs its failures, untraced, with an execution timeout', () => {
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineName: 'Ariadne-experiments',
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: false },
      LoggingConfiguration: Match.objectLike({ Level: 'ERROR', IncludeExecutionData: false }),
    });
    // above the default max_duration_minutes (120): experiments end by their own rule
    expect(def.TimeoutSeconds).toBe(180 * 60);
  });

  it(
    'standard: loops StartExperiment -> ProviderRouter -> Invoke* -> CheckProgress -> ConditionCheck -> ' +
      'ContinueLoop | Finalize*',
    () => {
      const s = standardDef.States as Record<string, Record<string, any>>;
      expect(s[STATES.StartExperiment].Next).toBe(STATES.ProviderRouter);
      expect(s[STATES.ProviderRouter].Type).toBe('Choice');
      expect(s[STATES.ProviderRouter].Choices.map((c: any) => [c.Variable, c.StringEquals, c.Next])).toEqual([
        ['$.llmProvider', 'baseline', STATES.InvokeBaselineAgent],
        ['$.llmProvider', 'bedrock', STATES.InvokeBedrockAgent],
        ['$.llmProvider', 'ollama', STATES.InvokeOllamaAgent],
        ['$.llmProvider', 'openai', STATES.InvokeOpenAIAgent],
      ]);
      expect(s[STATES.ProviderRouter].Default).toBe(STATES.InvokeBaselineAgent);
      for (const invoke of INVOKE_STATES) {
        expect(s[invoke].Next).toBe(STATES.CheckProgress);
      }
      expect(s[STATES.CheckProgress].Next).toBe(STATES.ConditionCheck);
      expect(s[STATES.ConditionCheck].Choices.map((c: any) => c.Next)).toEqual([
        STATES.ContinueLoop,
        STATES.FinalizeSuccess,
        STATES.FinalizeTimeout,
        STATES.FinalizeStuck,
        STATES.ContinueAsNew,
        STATES.OutageWait,
        STATES.OutageFailed,
      ]);
      // a provider outage: wait what CheckProgress chose, try the same turn again; or end with the turn's error
      expect(s[STATES.OutageWait]).toMatchObject({
        Type: 'Wait',
        SecondsPath: '$.progress.waitSeconds',
        Next: STATES.OutageResume,
      });
      expect(s[STATES.OutageResume]).toMatchObject({ Type: 'Pass', Next: STATES.ProviderRouter });
      // CheckProgress builds the loop state the same turn starts again from
      expect(s[STATES.OutageResume].InputPath).toBe('$.progress.next');
      expect(s[STATES.OutageFailed]).toMatchObject({
        Type: 'Pass',
        ResultPath: '$.error',
        Parameters: { 'Error.$': '$.outageError.Error', 'Cause.$': '$.progress.detail' },
        Next: STATES.FinalizeFailure,
      });
      expect(s[STATES.ConditionCheck].Choices[0]).toEqual({
        Variable: '$.progress.decision',
        StringEquals: 'continue',
        Next: STATES.ContinueLoop,
      });
      expect(s[STATES.ConditionCheck].Default).toBe(STATES.ContinueLoop);
      // and the next turn's loop state, as CheckProgress built it
      expect(s[STATES.ContinueLoop]).toMatchObject({
        Type: 'Pass',
        InputPath: '$.progress.next',
        Next: STATES.ProviderRouter,
      });
      expect(s[STATES.FinalizeSuccess].End).toBe(true);
      expect(s[STATES.FinalizeTimeout].End).toBe(true);
      expect(s[STATES.FinalizeStuck].End).toBe(true);
      expect(s[STATES.FinalizeFailure].Next).toBe(STATES.ExperimentFailed);
      expect(s[STATES.ExperimentFailed].Type).toBe('Fail');
      // continue as new: start this machine at the next turn, then end this execution
      expect(s[STATES.ContinueAsNew]).toMatchObject({
        Type: 'Task',
        Resource: 'arn:aws:states:::states:startExecution',
        Next: STATES.ContinuedAsNew,
      });
      expect(s[STATES.ContinueAsNew].Parameters['StateMachineArn.$']).toBe('$$.StateMachine.Id');
      // CheckProgress names the next execution and its first turn (the next, or an outage's same turn again)
      expect(s[STATES.ContinueAsNew].Parameters['Name.$']).toBe('$.progress.continuation.name');
      expect(s[STATES.ContinueAsNew].Parameters.Input.resume['turnNumber.$']).toBe(
        '$.progress.continuation.turnNumber',
      );
      expect(s[STATES.ContinueAsNew].Catch.at(-1).Next).toBe(STATES.FinalizeFailure);
      expect(s[STATES.ContinuedAsNew].Type).toBe('Succeed');
    },
  );

  it("carries a sweep's task token through every turn and into every continue-as-new hop", () => {
    const s = def.States as Record<string, Record<string, any>>;
    // the next turn's state is CheckProgress's (provider-outage.test.ts: the token in it)
    expect(s[STATES.ContinueLoop].InputPath).toBe('$.progress.next');
    expect(s[STATES.ContinueAsNew].Parameters.Input.resume['taskToken.$']).toBe('$.taskToken');
  });

  it('the machine may start only itself (continue as new), by its fixed name', () => {
    const policies = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([id]) => id.startsWith('ExperimentsMachineRole'))
      .map(([, p]) => p);
    const start = policies
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((st: any) => [st.Action].flat().includes('states:StartExecution'));
    expect(start).toHaveLength(1);
    expect(JSON.stringify(start[0].Resource)).toContain(':stateMachine:Ariadne-experiments');
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', { StateMachineName: 'Ariadne-experiments' });
  });

  it('every Task retries transient errors and every Task but FinalizeFailure catches the rest', () => {
    const s = def.States as Record<string, Record<string, any>>;
    for (const name of TASK_STATES) {
      expect(s[name].Type, name).toBe('Task');
      expect(s[name].Retry[0].ErrorEquals, name).toEqual(TRANSIENT_ERRORS);
      if (name === STATES.StartExperiment) {
        // bad input ends at InputRefused with the error as the whole state (works for any input shape)
        expect(s[name].Catch, name).toEqual([
          { ErrorEquals: INPUT_ERRORS, Next: STATES.InputRefused }, // no ResultPath: the error replaces the state
          { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: STATES.FinalizeFailure },
        ]);
        expect(s[STATES.InputRefused]).toEqual({ Type: 'Fail', ErrorPath: '$.Error', CausePath: '$.Cause' });
      } else if (INVOKE_STATES.includes(name)) {
        // a provider still down after the retries is an outage, decided by CheckProgress; the rest is finalized
        expect(s[name].Catch, name).toEqual([
          { ErrorEquals: ['ProviderTransientError'], ResultPath: '$.outageError', Next: STATES.CheckProgress },
          { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: STATES.FinalizeFailure },
        ]);
      } else if (name !== STATES.FinalizeFailure) {
        expect(s[name].Catch, name).toEqual([
          { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: STATES.FinalizeFailure },
        ]);
      }
    }
  });

  it('the agent Tasks give a model that stayed down a few more, slower tries', () => {
    const s = def.States as Record<string, Record<string, any>>;
    for (const name of INVOKE_STATES) {
      expect(s[name].Retry.find((r: any) => r.ErrorEquals.includes('ProviderTransientError'))).toMatchObject({
        ErrorEquals: ['ProviderTransientError'],
        IntervalSeconds: 30,
        MaxAttempts: 2,
      });
    }
  });

  it('every Lambda Task retries the Lambda service errors AWS documents, ClientExecutionTimeoutException too', () => {
    // "Handle Lambda service exceptions" (Step Functions best practices)
    const documented = [
      'Lambda.ClientExecutionTimeoutException',
      'Lambda.ServiceException',
      'Lambda.AWSLambdaException',
      'Lambda.SdkClientException',
    ];
    const s = def.States as Record<string, Record<string, any>>;
    for (const name of TASK_STATES)
      expect(s[name].Retry[0].ErrorEquals, name).toEqual(expect.arrayContaining(documented));
  });

  it("every Lambda Task rides out Lambda's throttling: AWS's backoff, capped, jittered, for longer than a turn", () => {
    // "When Lambda hits the maximum number of invocations, the error is Lambda.TooManyRequestsException."
    const s = def.States as Record<string, Record<string, any>>;
    for (const name of TASK_STATES) {
      const throttle = s[name].Retry.filter((r: any) => r.ErrorEquals.includes('Lambda.TooManyRequestsException'));
      expect(throttle, name).toEqual([aslRetry(LAMBDA_THROTTLE_RETRY)]);
    }
    // AWS's Retry for Lambda service exceptions starts at 2 s and doubles; capped so no single wait is long
    expect(LAMBDA_THROTTLE_RETRY).toMatchObject({ intervalSeconds: 2, backoffRate: 2, maxDelaySeconds: 120 });
    // a throttle lasts until another invocation ends; a model turn holds one for up to its timeout
    expect(retryWaitSeconds(LAMBDA_THROTTLE_RETRY)).toBeGreaterThan(LLM_TURN_TIMEOUT_SECONDS);
    expect(retryWaitSeconds(LAMBDA_THROTTLE_RETRY)).toBe(966);
  });

  it('a taken continuation name means the hop was made: ContinueAsNew ends continued, retries transients only', () => {
    const s = def.States as Record<string, Record<string, any>>;
    const hop = s[STATES.ContinueAsNew];
    expect(hop.Catch).toEqual([
      {
        ErrorEquals: ['StepFunctions.ExecutionAlreadyExistsException', 'StepFunctions.ExecutionAlreadyExists'],
        ResultPath: '$.continuedAs',
        Next: STATES.ContinuedAsNew,
      },
      { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: STATES.FinalizeFailure },
    ]);
    expect(hop.Retry).toHaveLength(1);
    expect(hop.Retry[0].ErrorEquals).toEqual(SFN_START_RETRY.errors);
    // States.TaskFailed (or States.ALL) would retry ExecutionAlreadyExists, then finalize a running experiment failed
    for (const broad of ['States.TaskFailed', 'States.ALL', ...hop.Catch[0].ErrorEquals])
      expect(hop.Retry[0].ErrorEquals).not.toContain(broad);
  });

  it('every retry schedule waits little against the execution timeout, and a turn fits well inside it', () => {
    // the most a state waits between attempts in all, read from the definition itself
    const waits = (retry: Array<Record<string, number>> = []) =>
      retry.reduce((sum, r) => {
        let total = 0;
        for (let k = 0; k < (r.MaxAttempts ?? 3); k++)
          total += Math.min((r.IntervalSeconds ?? 1) * (r.BackoffRate ?? 2) ** k, r.MaxDelaySeconds ?? Infinity);
        return sum + total;
      }, 0);
    const timeout = def.TimeoutSeconds as number;
    const s = def.States as Record<string, Record<string, any>>;
    const retried = Object.entries(s).filter(([, st]) => st.Retry);
    expect(retried.map(([name]) => name).sort()).toEqual(
      [...TASK_STATES, STATES.ContinueAsNew, STATES.RunChunk].sort(),
    );
    // Lambda's throttling is waited out for longer (the test above says why); the turn reserve below counts it
    const throttle = (r: any) => r.ErrorEquals.includes('Lambda.TooManyRequestsException');
    for (const [name, st] of retried) {
      expect(waits(st.Retry.filter((r: any) => !throttle(r))), name).toBeLessThanOrEqual(timeout * 0.05);
      expect(
        st.Retry.every((r: any) => r.JitterStrategy === 'FULL'),
        name,
      ).toBe(true);
    }
    expect(retryWaitSeconds(SFN_START_RETRY)).toBe(waits([aslRetry(SFN_START_RETRY) as any]));
    for (const provider of ['bedrock', 'ollama', 'openai', 'baseline'] as const) {
      expect(turnReserveSeconds(provider), provider).toBeLessThan(timeout / 2);
      // a turn and its CheckProgress may each be throttled through the whole schedule before the hop
      expect(turnReserveSeconds(provider), provider).toBeGreaterThan(2 * retryWaitSeconds(LAMBDA_THROTTLE_RETRY));
    }
  });

  it('CheckProgress gets the execution clock: its start time and the machine timeout', () => {
    const s = def.States as Record<string, Record<string, any>>;
    expect(s[STATES.CheckProgress].Parameters).toEqual({
      'state.$': '$',
      execution: { 'startTime.$': '$$.Execution.StartTime', timeoutSeconds: def.TimeoutSeconds },
    });
  });

  it('each Task invokes a function whose timeout is the budget in core/machine/tasks.ts', () => {
    const s = def.States as Record<string, Record<string, any>>;
    const functions = template.findResources('AWS::Lambda::Function');
    for (const name of TASK_STATES) {
      const logicalId = String(s[name].Resource).replace(/^.*function:/, '');
      expect(functions[logicalId]?.Properties.Timeout, name).toBe(TASKS[name].timeoutSeconds);
    }
  });

  it('refuses an execution timeout with no room for a turn before it must hand over', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => new AriadneStack(app, 'Tiny', { executionTimeoutMinutes: 30 })).toThrow(
      /executionTimeout 1800 s leaves no room for turns/,
    );
  });

  it('uses JSONPath only (the local engine supports no JSONata or variables)', () => {
    const text = JSON.stringify(def);
    expect(text).not.toMatch(/"QueryLanguage"\s*:\s*"JSONata"|"Assign"|"Arguments"|\{%/);
  });
});

describe('sweep state machine', () => {
  const sweepStates = () => machineDefinition(template, 'Sweeps').States as Record<string, Record<string, any>>;
  const policyStatements = (prefix: RegExp) =>
    Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([id]) => prefix.test(id))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
  const actionsOf = (st: any): string[] => [st.Action].flat();

  it(
    'registers the sweep, then a Distributed Map reads the runs from S3 (ItemReader), writes its results to S3 ' +
      '(ResultWriter), with MaxConcurrency from the input',
    () => {
      const sweep = machineDefinition(template, 'Sweeps');
      const s = sweepStates();
      expect(sweep.StartAt).toBe(SWEEP_STATES.RegisterSweep);
      expect(s[SWEEP_STATES.RegisterSweep]).toMatchObject({
        Type: 'Task',
        ResultPath: '$.registered',
        Next: SWEEP_STATES.RunExperiments,
      });
      expect(s[SWEEP_STATES.RegisterSweep].Resource).toMatch(/function:RegisterSweepFn/);
      expect(s[SWEEP_STATES.RegisterSweep].Parameters).toEqual({
        'sweep.$': '$.sweep',
        'maxConcurrency.$': '$.maxConcurrency',
      });
      expect(s[SWEEP_STATES.RegisterSweep].Retry.at(-1)).toEqual(aslRetry(LAMBDA_THROTTLE_RETRY));
      const map = s[SWEEP_STATES.RunExperiments];
      expect(map).toMatchObject({
        Type: 'Map',
        // what RegisterSweep allowed: the request capped to the account's free Lambda concurrency
        MaxConcurrencyPath: '$.registered.maxConcurrency',
        ToleratedFailurePercentage: 100,
        ResultPath: null,
        Next: SWEEP_STATES.SweepDone,
        ItemProcessor: {
          ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
          StartAt: SWEEP_STATES.RunExperiment,
        },
      });
      // the runs are not in the input: the reader takes a JSON array object named by the input
      expect(map.ItemsPath).toBeUndefined();
      expect(map.ItemReader).toEqual({
        Resource: 'arn:aws:states:::s3:getObject',
        ReaderConfig: { InputType: 'JSON' },
        Parameters: { 'Bucket.$': '$.runsObject.bucket', 'Key.$': '$.runsObject.key' },
      });
      expect(map.ResultWriter).toMatchObject({
        Resource: 'arn:aws:states:::s3:putObject',
        Parameters: { Prefix: RESULTS_PREFIX },
        WriterConfig: { OutputType: 'JSONL', Transformation: 'COMPACT' },
      });
      expect(map.ResultWriter.Parameters.Bucket).toMatch(/SweepsBucket/);
      expect(s[SWEEP_STATES.SweepDone].Type).toBe('Succeed');
      expect(sweep.TimeoutSeconds).toBe(SWEEP_TIMEOUT.toSeconds());
    },
  );

  it(
    'each iteration starts its experiment with waitForTaskToken, the token merged into its input, and waits at ' +
      "least an experiment's longest life",
    () => {
      const child = sweepStates()[SWEEP_STATES.RunExperiments].ItemProcessor.States[SWEEP_STATES.RunExperiment];
      expect(child).toMatchObject({
        Type: 'Task',
        QueryLanguage: 'JSONata',
        Resource: 'arn:aws:states:::states:startExecution.waitForTaskToken',
        End: true,
      });
      expect(child.Arguments.Name).toBe('{% $states.input.name %}');
      expect(child.Arguments.Input).toBe(
        "{% $merge([$states.input.input, {'taskToken': $states.context.Task.Token}]) %}",
      );
      expect(JSON.stringify(child.Arguments.StateMachineArn)).toMatch(/ExperimentsMachine/);
      expect(child.Arguments.Input).not.toMatch(/AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID/);
      // a lost token frees the slot eventually, but never before the longest experiment could end
      expect(child.TimeoutSeconds).toBe(EXPERIMENT_MAX_LIFE.toSeconds());
      expect(child.TimeoutSeconds).toBeGreaterThan(MAX_DURATION_MINUTES * 60);
      expect(child.TimeoutSeconds).toBeLessThan(SWEEP_TIMEOUT.toSeconds());
      // a child that already ran fails to start at once (no token was handed out) and does not fail the sweep
      expect(child.Catch).toEqual([
        {
          ErrorEquals: EXECUTION_ALREADY_EXISTS_ERRORS,
          Output: { experimentId: '{% $states.input.name %}', status: 'already_run' },
          Next: SWEEP_STATES.AlreadyRun,
        },
      ]);
      // a start the service dropped or throttled is tried again, never a name already used
      expect(child.Retry).toEqual([aslRetry(SFN_START_RETRY)]);
      expect(child.Retry[0].ErrorEquals).not.toContain('States.TaskFailed');
      for (const name of EXECUTION_ALREADY_EXISTS_ERRORS) expect(child.Retry[0].ErrorEquals).not.toContain(name);
      expect(sweepStates()[SWEEP_STATES.RunExperiments].ItemProcessor.States[SWEEP_STATES.AlreadyRun].Type).toBe(
        'Pass',
      );
    },
  );

  it('may start only the experiment machine and its own Map children, and touch only its bucket', () => {
    const statements = policyStatements(/^SweepsMachine/);
    const starts = statements.filter((st: any) => actionsOf(st).includes('states:StartExecution'));
    expect(starts.map((st: any) => JSON.stringify(st.Resource)).sort()).toEqual([
      expect.stringMatching(/^\{"Ref":"ExperimentsMachine[0-9A-F]+"\}$/),
      expect.stringMatching(/^\{"Ref":"SweepsMachine[0-9A-F]+"\}$/),
    ]);
    // waitForTaskToken neither watches nor stops the experiment (no .sync rule, no Describe/StopExecution on it)
    for (const st of statements) {
      expect(actionsOf(st).some((a) => a.startsWith('events:'))).toBe(false);
      if (actionsOf(st).some((a) => a === 'states:DescribeExecution' || a === 'states:StopExecution'))
        expect(JSON.stringify(st.Resource)).not.toMatch(/ExperimentsMachine/);
      expect(actionsOf(st).some((a) => a === 'states:*' || a === '*' || a === 's3:*')).toBe(false);
    }
    const s3 = statements.filter((st: any) => actionsOf(st).some((a) => a.startsWith('s3:')));
    expect(s3.length).toBeGreaterThan(0);
    for (const st of s3) expect(JSON.stringify(st.Resource)).toMatch(/SweepsBucket[0-9A-F]+.*\/(runs\/)?\*"/);
    // ItemReader: GetObject on the run lists; ResultWriter: the multipart upload actions of "ResultWriter (Map)"
    expect(s3.find((st: any) => st.Action === 's3:GetObject')!.Resource).toEqual({
      'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^SweepsBucket/), 'Arn'] }, `/${RUNS_PREFIX}*`]],
    });
    expect(s3.flatMap(actionsOf)).toEqual(
      expect.arrayContaining(['s3:PutObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload']),
    );
    template.hasOutput('SweepStateMachineArn', {});
    template.hasOutput('SweepBucketName', {});
  });

  it("only RegisterSweep may read the account's Lambda settings, with lambda:GetAccountSettings alone", () => {
    const holders = Object.entries(template.findResources('AWS::IAM::Policy')).filter(([, p]) =>
      p.Properties.PolicyDocument.Statement.some((st: any) => actionsOf(st).includes('lambda:GetAccountSettings')),
    );
    expect(holders.map(([id]) => id)).toEqual([expect.stringMatching(/^RegisterSweepFnServiceRoleDefaultPolicy/)]);
    const st = holders[0][1].Properties.PolicyDocument.Statement.find((x: any) =>
      actionsOf(x).includes('lambda:GetAccountSettings'),
    );
    expect(st).toMatchObject({ Action: 'lambda:GetAccountSettings', Effect: 'Allow', Resource: '*' });
  });

  it('only the finalize functions may return task tokens, with states:SendTaskSuccess alone', () => {
    const holders = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([, p]) =>
        p.Properties.PolicyDocument.Statement.some((st: any) => actionsOf(st).some((a) => a.startsWith('states:Send'))),
      )
      .map(([id, p]) => ({ id, statements: p.Properties.PolicyDocument.Statement }));
    expect(holders.map((h) => h.id.replace(/ServiceRoleDefaultPolicy.*$/, '')).sort()).toEqual([
      'FailureHandlingFinalizerFn',
      'HandlersFinalizeFailureFn',
      'HandlersFinalizeStuckFn',
      'HandlersFinalizeSuccessFn',
      'HandlersFinalizeTimeoutFn',
    ]);
    for (const h of holders) {
      const send = h.statements.filter((st: any) => actionsOf(st).some((a) => a.startsWith('states:Send')));
      expect(send).toHaveLength(1);
      expect(send[0].Action).toBe('states:SendTaskSuccess');
      expect(send[0].Resource).toBe('*'); // a task token is not a resource IAM can scope (lib/sweep-state-machine.ts)
    }
  });

  it('asl-validator accepts the synthesized sweep definition (JSONata task, ItemReader, ResultWriter)', async () => {
    const { default: validate } = await import('asl-validator');
    const result = validate(machineDefinition(template, 'Sweeps'));
    expect(result.isValid, result.errorsText()).toBe(true);
  });

  it('its bucket is encrypted, SSL only, not public, and expires its objects', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LifecycleConfiguration: {
        Rules: [Match.objectLike({ ExpirationInDays: SWEEP_OBJECT_EXPIRY.toDays(), Status: 'Enabled' })],
      },
    });
    // the objects outlive the longest sweep and the 14 days its execution can be redriven
    expect(SWEEP_OBJECT_EXPIRY.toDays()).toBeGreaterThanOrEqual(SWEEP_TIMEOUT.toDays() + 14);
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });
});

describe('no zombie experiments', () => {
  it(
    "an EventBridge rule sends this machine's FAILED, TIMED_OUT and ABORTED executions to the " +
      'finalizer, with retries and a dead-letter queue',
    () => {
      const rules = Object.values(template.findResources('AWS::Events::Rule'));
      expect(rules).toHaveLength(1);
      const rule = rules[0].Properties;
      expect(rule.EventPattern).toMatchObject({
        source: ['aws.states'],
        'detail-type': ['Step Functions Execution Status Change'],
        detail: {
          status: ['FAILED', 'TIMED_OUT', 'ABORTED'],
          stateMachineArn: [{ Ref: expect.stringMatching(/^ExperimentsMachine/) }],
        },
      });
      expect(rule.Targets).toHaveLength(1);
      expect(rule.Targets[0]).toMatchObject({
        RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 21600 },
        DeadLetterConfig: { Arn: expect.anything() },
      });
      const target = rule.Targets[0].Arn['Fn::GetAtt'];
      expect(target[1]).toBe('Arn');
      expect(template.findResources('AWS::Lambda::Function')[target[0]]).toBeDefined();
      expect(target[0]).toMatch(/^FailureHandlingFinalizerFn/);
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Principal: 'events.amazonaws.com',
        Action: 'lambda:InvokeFunction',
      });
    },
  );
});

describe('Parameter Store and least privilege', () => {
  it('creates every config default and the built-in prompts under /ariadne, as valid parameters', () => {
    const params = Object.values(template.findResources('AWS::SSM::Parameter')).map((p) => p.Properties);
    const names = params.map((p) => p.Name);
    expect(names).toEqual(
      expect.arrayContaining([
        '/ariadne/config/max_moves',
        '/ariadne/config/ollama/num_ctx',
        '/ariadne/config/bedrock/region',
        '/ariadne/prompts/maze/v1',
      ]),
    );
    expect(names.every((n: string) => n.startsWith('/ariadne/'))).toBe(true);
    const raw = params
      .filter((p) => typeof p.Value === 'string')
      .map((p) => ({ name: p.Name, value: p.Value, secure: false }));
    const resolved = resolveParameters('/ariadne', raw);
    expect(experimentConfigSchema.parse(resolved.config)).toMatchObject({
      ...DEFAULT_CONFIG,
      bedrock: { ...DEFAULT_CONFIG.bedrock },
    });
    expect(resolved.prompts['maze/v1']).toBe(PROMPTS.v1);
    // the models the stack grants its agent, written for `ariadne doctor --aws --bedrock` (not a setting)
    expect(params.find((p) => p.Name === '/ariadne/deployment/bedrock_models')).toMatchObject({
      Type: 'StringList',
      Value: DEFAULT_BEDROCK_MODELS.join(','),
    });
    expect(resolved.deployment.bedrock_models).toBe(DEFAULT_BEDROCK_MODELS.join(','));
    // the Bedrock region defaults to the stack's own
    expect(params.find((p) => p.Name === '/ariadne/config/bedrock/region').Value).toEqual({ Ref: 'AWS::Region' });
  });

  it(`lets CloudFormation create at most ${PARAMETER_CHAINS} parameters at once (PutParameter's quota)`, () => {
    const resources = resourcesOf(template);
    const params = idsOf(template, 'AWS::SSM::Parameter');
    expect(params.length).toBeGreaterThan(40);
    // what a resource waits for: its DependsOn, and every resource it Refs or Fn::GetAtts
    const waitsFor = (id: string): string[] => {
      const out = new Set<string>(
        [resources[id] as { DependsOn?: string | string[] }].flatMap((r) => r.DependsOn ?? []),
      );
      const walk = (v: unknown): void => {
        if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object') {
          const o = v as Record<string, unknown>;
          if (typeof o.Ref === 'string' && o.Ref in resources) out.add(o.Ref);
          const att = o['Fn::GetAtt'] as unknown[] | undefined;
          if (Array.isArray(att) && typeof att[0] === 'string' && att[0] in resources) out.add(att[0]);
          Object.values(o).forEach(walk);
        }
      };
      walk(resources[id].Properties);
      return [...out];
    };
    // every parameter each parameter waits for, directly or through other resources
    const memo = new Map<string, Set<string>>();
    const before = (id: string): Set<string> => {
      if (!memo.has(id)) {
        const all = new Set<string>();
        memo.set(id, all);
        for (const d of waitsFor(id)) [d, ...before(d)].forEach((x) => all.add(x));
      }
      return memo.get(id)!;
    };
    const earlier = new Map(params.map((p) => [p, params.filter((q) => before(p).has(q))]));
    // The most parameters being created at once, whatever the timing, is the largest set of which none waits for
    // another; by Dilworth's theorem that is the count less a maximum matching of "p waits for q" (Kuhn's algorithm).
    const matchedTo = new Map<string, string>();
    const augment = (p: string, seen: Set<string>): boolean =>
      earlier.get(p)!.some((q) => {
        if (seen.has(q)) return false;
        seen.add(q);
        const other = matchedTo.get(q);
        if (other === undefined || augment(other, seen)) return matchedTo.set(q, p) && true;
        return false;
      });
    const matching = params.filter((p) => augment(p, new Set())).length;
    expect(params.length - matching).toBe(PARAMETER_CHAINS);
    // and the chains are even: the longest waits for no more than its share of the others
    const longest = Math.max(...params.map((p) => earlier.get(p)!.length + 1));
    expect(longest).toBe(Math.ceil(params.length / PARAMETER_CHAINS));
  });

  const statements = () => statementsOf(template);
  const bedrockStatements = (t: Template) =>
    statementsOf(t).filter((st) => [st.Action].flat().some((a: string) => a.startsWith('bedrock:')));

  it('only the Bedrock agent may call Bedrock: the default global profiles, and their models only through them', () => {
    const bedrock = bedrockStatements(template);
    expect(bedrock).toHaveLength(2);
    const [direct, routed] = bedrock;
    expect(direct.Condition).toBeUndefined();
    expect([direct.Resource].flat().map(flat)).toEqual(
      DEFAULT_BEDROCK_MODELS.map((id) => `arn:aws:bedrock:us-east-1:123456789012:inference-profile/${id}`),
    );
    // a global profile: its model in the source Region and the Region-less model ARN, through the profile only
    const bases = DEFAULT_BEDROCK_MODELS.map((id) => id.replace(/^global\./, ''));
    expect([routed.Resource].flat().map(flat).sort()).toEqual(
      bases
        .flatMap((b) => [`arn:aws:bedrock:us-east-1::foundation-model/${b}`, `arn:aws:bedrock:::foundation-model/${b}`])
        .sort(),
    );
    expect(Object.keys(routed.Condition)).toEqual(['ArnLike']);
    expect(JSON.stringify(bedrock.map((st) => st.roles))).toMatch(/InvokeBedrockAgentFn/);
  });

  it('an inference profile id is a profile (us., eu., apac., global., ...); a model id is not', () => {
    expect(profilePrefix('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('us');
    expect(profilePrefix('us-gov.anthropic.claude-3-haiku-20240307-v1:0')).toBe('us-gov');
    expect(profilePrefix('apac.amazon.nova-lite-v1:0')).toBe('apac');
    expect(profilePrefix('global.anthropic.claude-haiku-4-5-20251001-v1:0')).toBe('global');
    expect(profilePrefix('anthropic.claude-3-haiku-20240307-v1:0')).toBeUndefined();
    expect(profilePrefix('amazon.nova-pro-v1:0')).toBeUndefined();
    expect(profilePrefix('us')).toBeUndefined();
  });

  describe('inference profiles', () => {
    const env = { account: '123456789012', region: 'us-east-1' };
    const US = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
    const EU = 'eu.amazon.nova-lite-v1:0';
    const GLOBAL = 'global.anthropic.claude-haiku-4-5-20251001-v1:0';
    const MODEL = 'amazon.nova-pro-v1:0';
    const profile = (id: string) => `arn:aws:bedrock:us-east-1:123456789012:inference-profile/${id}`;
    const model = (region: string, id: string) => `arn:aws:bedrock:${region}::foundation-model/${id}`;

    it(
      'allow the profile in the stack Region, and its model in every Region it routes to, ' +
        'only through those profiles (a global profile: the Region-less model ARN and the source Region)',
      () => {
        const bedrock = bedrockStatements(variant({ env, bedrockModelIds: [US, EU, GLOBAL, MODEL] }));
        expect(bedrock).toHaveLength(2);
        const [direct, routed] = bedrock;
        expect(direct.Action).toBe('bedrock:InvokeModel');
        expect(direct.Condition).toBeUndefined();
        expect([direct.Resource].flat().map(flat).sort()).toEqual(
          [model('us-east-1', MODEL), profile(US), profile(EU), profile(GLOBAL)].sort(),
        );
        expect(routed.Action).toBe('bedrock:InvokeModel');
        expect([routed.Resource].flat().map(flat).sort()).toEqual(
          [
            ...PROFILE_REGIONS.us.map((r) => model(r, 'anthropic.claude-sonnet-4-5-20250929-v1:0')),
            ...PROFILE_REGIONS.eu.map((r) => model(r, 'amazon.nova-lite-v1:0')),
            model('us-east-1', 'anthropic.claude-haiku-4-5-20251001-v1:0'),
            model('', 'anthropic.claude-haiku-4-5-20251001-v1:0'),
          ].sort(),
        );
        // a routed Region's model may not be called directly, only through the profiles
        expect(Object.keys(routed.Condition)).toEqual(['ArnLike']);
        expect(Object.keys(routed.Condition.ArnLike)).toEqual(['bedrock:InferenceProfileArn']);
        expect(routed.Condition.ArnLike['bedrock:InferenceProfileArn'].map(flat)).toEqual([
          profile(US),
          profile(EU),
          profile(GLOBAL),
        ]);
        expect(JSON.stringify(bedrock.map((st) => st.roles))).toMatch(/InvokeBedrockAgentFn/);
        expect(JSON.stringify(bedrock.map((st) => st.roles))).not.toMatch(/Baseline|Ollama|OpenAI|StartExperiment/);
      },
    );

    it('bedrockRegions replaces the routed Regions the prefix implies', () => {
      const [, routed] = bedrockStatements(
        variant({ env, bedrockModelIds: [US], bedrockRegions: ['us-east-1', 'us-west-2'] }),
      );
      expect([routed.Resource].flat().map(flat)).toEqual([
        model('us-east-1', 'anthropic.claude-sonnet-4-5-20250929-v1:0'),
        model('us-west-2', 'anthropic.claude-sonnet-4-5-20250929-v1:0'),
      ]);
    });
  });

  it('the settings are read where experiments start, undecrypted; each key by its one function', () => {
    const ssm = statements().filter((st) => [st.Action].flat().some((a: string) => a.startsWith('ssm:')));
    const byPath = ssm.filter((st) => st.Action === 'ssm:GetParametersByPath');
    // StartExperiment, and RegisterSweep (the deployed max_duration_minutes)
    expect(byPath.length).toBe(2);
    for (const st of byPath)
      expect(JSON.stringify(st.Resource)).toMatch(/:parameter\/ariadne"\]\]\}.*:parameter\/ariadne\/\*/);
    const keys = ssm.filter((st) => st.Action === 'ssm:GetParameter');
    expect(keys.map((st) => JSON.stringify(st.Resource).match(/parameter\/([\w/-]+)/)![1]).sort()).toEqual([
      'ariadne-secrets/ollama_api_key',
      'ariadne-secrets/openai_api_key',
    ]);
    expect(ssm.length).toBe(byPath.length + keys.length);
    const holders = (name: string) =>
      keys
        .filter((st) => JSON.stringify(st.Resource).includes(name))
        .map((st) => st.roles)
        .flat();
    expect(JSON.stringify(holders('ollama_api_key'))).toMatch(/InvokeOllamaAgent/);
    expect(JSON.stringify(holders('ollama_api_key'))).not.toMatch(/OpenAI|Bedrock|Baseline|StartExperiment/);
    expect(JSON.stringify(holders('openai_api_key'))).toMatch(/InvokeOpenAIAgent/);
    expect(JSON.stringify(holders('openai_api_key'))).not.toMatch(/Ollama|Bedrock|Baseline|StartExperiment/);
    // the default key aws/ssm lets the account decrypt through SSM; KMS never authorizes by an alias ARN
    const kms = statements().filter((st) => [st.Action].flat().includes('kms:Decrypt'));
    expect(kms).toEqual([]);
  });

  it('a customer managed key for the secrets is granted by its key ARN, through SSM only', () => {
    const stack = new Stack(new App(), 'Keys', { env: { account: '123456789012', region: 'eu-west-1' } });
    const key = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    const role = new Role(stack, 'Fn', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    const parameters = new AriadneParameters(stack, 'Parameters', '/ariadne', [], key);
    parameters.grantRead(new Role(stack, 'Reader', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') }));
    parameters.grantSecret(role, 'openai_api_key');
    const decrypt = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy'))
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((st) => st.Action === 'kms:Decrypt');
    expect(decrypt).toEqual([
      expect.objectContaining({
        Resource: key,
        Condition: { StringEquals: { 'kms:ViaService': 'ssm.eu-west-1.amazonaws.com' } },
      }),
    ]);
  });

  it('no IAM statement allows every action, and every resource only where AWS requires it', () => {
    // X-Ray trace segments, CloudWatch Logs delivery for Step Functions, states:SendTaskSuccess and
    // lambda:GetAccountSettings take no resource ARN: AWS requires "*".
    const REQUIRES_STAR = new RegExp(
      '^(xray:(PutTraceSegments|PutTelemetryRecords|GetSamplingRules|GetSamplingTargets)|' +
        'logs:(CreateLogDelivery|GetLogDelivery|UpdateLogDelivery|DeleteLogDelivery|ListLogDeliveries|' +
        'PutResourcePolicy|DescribeResourcePolicies|DescribeLogGroups)|states:SendTaskSuccess|' +
        'lambda:GetAccountSettings)$',
    );
    for (const st of statements()) {
      const actions = [st.Action].flat();
      expect(
        actions.some((a: string) => a === '*' || a.endsWith(':*')),
        JSON.stringify(actions),
      ).toBe(false);
      if ([st.Resource].flat().includes('*'))
        expect(
          actions.every((a: string) => REQUIRES_STAR.test(a)),
          JSON.stringify(actions),
        ).toBe(true);
    }
  });

  it('every function logs to a log group of its own that expires (the default group keeps logs forever)', () => {
    const groups = template.findResources('AWS::Logs::LogGroup');
    const functions = Object.entries(template.findResources('AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(5);
    for (const [id, f] of functions) {
      const ref = f.Properties.LoggingConfig?.LogGroup?.Ref as string | undefined;
      expect(ref, `${id} has no log group of its own`).toBeDefined();
      expect(groups[ref!].Properties.RetentionInDays, `${id}'s log group`).toBe(30);
    }
  });

  it('every log group expires, and goes with the stack unless it is one removeData decides on', () => {
    for (const [t, removeData] of [
      [template, false],
      [variant({ removeData: true }), true],
    ] as const) {
      const groups = Object.entries(resourcesOf(t)).filter(([, r]) => r.Type === 'AWS::Logs::LogGroup');
      // the state machines' groups among them, which CloudFormation used to keep after the stack was gone
      expect(groups.filter(([id]) => /^(Experiments|Sweeps)Logs/.test(id))).toHaveLength(2);
      for (const [id, g] of groups) {
        expect(g.Properties.RetentionInDays, id).toBe(30);
        expect(g.DeletionPolicy, id).toBe(id.startsWith('FlowLogs') && !removeData ? 'RetainExceptOnCreate' : 'Delete');
      }
    }
  });

  it('the state machines log ERROR by default, every transition with -c stateMachineLogLevel=ALL', () => {
    const levels = (t: Template) =>
      Object.entries(t.findResources('AWS::StepFunctions::StateMachine'))
        .filter(([id]) => /^(Experiments|Sweeps)Machine/.test(id))
        .map(([, m]) => m.Properties.LoggingConfiguration.Level);
    expect(levels(template)).toEqual(['ERROR', 'ERROR']);
    expect(levels(variant({ stateMachineLogLevel: 'ALL' }))).toEqual(['ALL', 'ALL']);
  });

  it('alarms on failed and timed-out executions; a dashboard ($3/month) only on request', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties.MetricName);
    expect(alarms.sort()).toEqual(['ExecutionsFailed', 'ExecutionsTimedOut', 'ExperimentsFailed', 'Throttles']);
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
    const withDashboard = variant({ dashboard: true });
    withDashboard.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    withDashboard.resourceCountIs('AWS::CloudWatch::Alarm', 4);
  });

  it("alarms on the functions' own metrics: each one metric of the namespace, the service its one dimension", () => {
    const own = Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter(
      (a) => a.Properties.Namespace === METRIC_NAMESPACE,
    );
    const byName = Object.fromEntries(own.map((a) => [a.Properties.MetricName as string, a.Properties]));
    for (const name of ['ExperimentsFailed', 'Throttles']) {
      // a stack-wide metric (no Provider): one alarm, one alarm-metric, $0.10 a month
      expect(byName[name].Dimensions).toEqual([{ Name: 'service', Value: SERVICE }]);
      expect(METRICS[name as MetricName].byProvider).toBe(false);
      expect(byName[name]).toMatchObject({ Statistic: 'Sum', Period: 300, TreatMissingData: 'notBreaching' });
    }
    expect(byName.ExperimentsFailed).toMatchObject({ Threshold: 1, EvaluationPeriods: 1 });
    expect(byName.Throttles).toMatchObject({
      Threshold: THROTTLE_ALARM.threshold,
      EvaluationPeriods: THROTTLE_ALARM.periods,
    });
  });

  it('the dashboard graphs every metric the functions send, per provider where they send one per provider', () => {
    const dashboard = Object.values(variant({ dashboard: true }).findResources('AWS::CloudWatch::Dashboard'))[0];
    // the body is a Fn::Join of strings and tokens (the Region, function names): the tokens as placeholders
    const parts = dashboard.Properties.DashboardBody['Fn::Join'][1] as unknown[];
    const body = JSON.parse(parts.map((p) => (typeof p === 'string' ? p : 'token')).join('')) as {
      widgets: Array<{ properties: { metrics?: unknown[][] } }>;
    };
    const graphed = body.widgets
      .flatMap((w) => w.properties.metrics ?? [])
      .filter((m) => m[0] === METRIC_NAMESPACE)
      .map((m) => m[1]);
    for (const [name, spec] of Object.entries(METRICS))
      expect(graphed.filter((g) => g === name).length, name).toBe(spec.byProvider ? PROVIDERS.length : 1);
  });

  it('asl-validator accepts the synthesized definition', async () => {
    const { default: validate } = await import('asl-validator');
    const result = validate(def);
    expect(result.isValid, result.errorsText()).toBe(true);
  });
});

describe('cdk-nag', () => {
  it(
    'AwsSolutions checks pass: no open finding, and only the acknowledged kinds (each with its reason ' +
      'in lib/nag-acknowledgements.ts)',
    async () => {
      const { App, Validations } = await import('aws-cdk-lib');
      const { AwsSolutionsChecks } = await import('cdk-nag');
      const { AriadneStack } = await import('../lib/ariadne-stack.ts');
      const { readFileSync } = await import('node:fs');
      const outdir = tempDir('nag');
      const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
      new AriadneStack(app, 'Ariadne');
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      app.synth(); // throws ValidationFailed on any open finding
      const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));
      const nag = report.pluginReports.find((p: { pluginName: string }) => p.pluginName === 'AwsSolutions');
      expect(nag.conclusion).toBe('success');
      expect(nag.violations).toEqual([]);
      const kinds = new Set(nag.suppressedViolations.map((v: { ruleName: string }) => v.ruleName.replace(/\[.*$/, '')));
      expect([...kinds].sort()).toEqual([
        'AwsSolutions-IAM4',
        'AwsSolutions-IAM5',
        'AwsSolutions-RDS10', // created unprotected, protected by the stack's last resource
        'AwsSolutions-S1',
        'AwsSolutions-SF1', // state machines log ERROR unless asked for ALL
        'AwsSolutions-SF2', // X-Ray on request only
        'AwsSolutions-SMG4', // no secret rotation: it would need a Secrets Manager endpoint in the VPC
        'AwsSolutions-SQS3',
      ]);
    },
  );
});

describe('database', () => {
  it(
    'Aurora PostgreSQL Serverless v2 that scales to 0 ACUs and pauses after 5 minutes, Data API on, ' +
      'encrypted, backed up, with generated credentials in Secrets Manager',
    () => {
      template.hasResourceProperties('AWS::RDS::DBCluster', {
        Engine: 'aurora-postgresql',
        EngineVersion: Match.stringLikeRegexp('^17\\.'), // 17.4+: Data API; 16.3+: 0 ACUs
        StorageEncrypted: true,
        DeletionProtection: false, // protected once the stack is complete (below)
        DatabaseName: 'ariadne',
        EnableHttpEndpoint: true,
        BackupRetentionPeriod: 7,
        ServerlessV2ScalingConfiguration: { MinCapacity: 0, MaxCapacity: 4, SecondsUntilAutoPause: 300 },
      });
      template.hasResourceProperties('AWS::RDS::DBInstance', { DBInstanceClass: 'db.serverless' });
      // the master user's and the researchers' read-only role's
      template.resourceCountIs('AWS::SecretsManager::Secret', 2);
      // no rotation: its Lambda would need a Secrets Manager endpoint in the VPC (~$7.30/month per AZ)
      template.resourceCountIs('AWS::SecretsManager::RotationSchedule', 0);
      template.resourceCountIs('AWS::Serverless::Application', 0);
    },
  );

  it('auto-pause and maximum capacity are configurable', () => {
    variant({ databaseAutoPauseMinutes: 60, databaseMaxCapacity: 8 }).hasResourceProperties('AWS::RDS::DBCluster', {
      ServerlessV2ScalingConfiguration: { MinCapacity: 0, MaxCapacity: 8, SecondsUntilAutoPause: 3600 },
    });
    // AWS allows 5 minutes to 24 hours; CDK refuses the rest at synth
    expect(() => variant({ databaseAutoPauseMinutes: 4 })).toThrow(/between 300 seconds/);
  });

  it('nothing bills by the hour: no NAT or internet gateway, RDS Proxy or endpoint; isolated subnets only', () => {
    for (const type of [
      'AWS::EC2::NatGateway',
      'AWS::EC2::EIP',
      'AWS::EC2::InternetGateway',
      'AWS::EC2::VPCGatewayAttachment',
      'AWS::EC2::VPCEndpoint',
      'AWS::RDS::DBProxy',
      'AWS::RDS::DBProxyTargetGroup',
      'AWS::EC2::Route', // isolated route tables hold only the VPC's local route
    ])
      template.resourceCountIs(type, 0);
    const subnets = Object.values(template.findResources('AWS::EC2::Subnet'));
    expect(subnets).toHaveLength(2);
    for (const subnet of subnets) {
      expect(subnet.Properties.MapPublicIpOnLaunch).toBe(false);
      expect(subnet.Properties.Tags).toContainEqual({ Key: 'aws-cdk:subnet-type', Value: 'Isolated' });
    }
    const [group] = Object.values(template.findResources('AWS::RDS::DBSubnetGroup'));
    expect(group.Properties.SubnetIds.map((s: { Ref: string }) => s.Ref).sort()).toEqual(
      idsOf(template, 'AWS::EC2::Subnet').sort(),
    );
    // the cluster's own group, and no way in: the Data API needs none
    template.resourceCountIs('AWS::EC2::SecurityGroup', 1);
    template.resourceCountIs('AWS::EC2::SecurityGroupIngress', 0);
    expect(JSON.stringify(template.findResources('AWS::EC2::SecurityGroup'))).not.toMatch(/SecurityGroupIngress/);
  });

  it('no function runs in a VPC; each gets the Data API coordinates (cluster ARN, secret ARN, database)', () => {
    const [clusterId] = idsOf(template, 'AWS::RDS::DBCluster');
    const [attachmentId] = idsOf(template, 'AWS::SecretsManager::SecretTargetAttachment');
    const all = Object.entries(template.findResources('AWS::Lambda::Function'));
    // + finalizer, the migrations' onEvent and isComplete, RegisterSweep, the protection's function, CDK's provider
    // framework (3 for the migrations, 1 for the protection)
    expect(all.length).toBe(TASK_STATES.length + 9);
    for (const [id, fn] of all) {
      expect(fn.Properties.VpcConfig, id).toBeUndefined();
      // the migrations' onEvent only answers CloudFormation, the protection calls RDS's control plane: no Data API
      if (
        fn.Properties.Handler.startsWith('framework.') ||
        id.startsWith('DatabaseMigrateStartFn') ||
        id.startsWith(PROTECT_FN)
      )
        continue;
      const env = fn.Properties.Environment.Variables;
      expect(env.DATABASE_NAME, id).toBe('ariadne');
      expect(flat(env.DATABASE_CLUSTER_ARN), id).toBe(
        `arn:aws:rds:us-east-1:123456789012:cluster:${JSON.stringify({ Ref: clusterId })}`,
      );
      // a SecretTargetAttachment's Ref is the secret's ARN
      expect(env.DATABASE_SECRET_ARN, id).toEqual({ Ref: attachmentId });
      expect(env.DATABASE_HOST, id).toBeUndefined();
    }
    // no managed policy to attach network interfaces in a VPC
    expect(JSON.stringify(template.findResources('AWS::IAM::Role'))).not.toMatch(/AWSLambdaVPCAccessExecutionRole/);
  });

  it(
    "database grants: exactly the Data API's actions on this cluster and GetSecretValue on its secret, " +
      'for the functions that use the database only',
    () => {
      const [clusterId] = idsOf(template, 'AWS::RDS::DBCluster');
      const [attachmentId] = idsOf(template, 'AWS::SecretsManager::SecretTargetAttachment');
      const database = statementsOf(template).filter((st) =>
        [st.Action].flat().some((a: string) => /^(rds-data|rds-db|rds|secretsmanager):/.test(a)),
      );
      const byRole = new Map<string, any[]>();
      for (const st of database) {
        expect(st.roles).toHaveLength(1);
        const role = st.roles[0].Ref as string;
        byRole.set(role, [...(byRole.get(role) ?? []), st]);
      }
      const roleOf = (fn: { Properties: { Role: { 'Fn::GetAtt': [string, string] } } }) =>
        fn.Properties.Role['Fn::GetAtt'][0];
      const fns = Object.entries(template.findResources('AWS::Lambda::Function'));
      const expected = fns
        .filter(
          ([id, fn]) =>
            !fn.Properties.Handler.startsWith('framework.') &&
            !id.startsWith('HandlersCheckProgress') &&
            !id.startsWith('DatabaseMigrateStartFn') &&
            !id.startsWith(PROTECT_FN),
        )
        .map(([, fn]) => roleOf(fn as never));
      expect(expected).toHaveLength(TASK_STATES.length + 2); // all Tasks but CheckProgress, + 3 others
      // the protection's role may modify the cluster and nothing else (its own test below)
      const [, protectFn] = fns.find(([id]) => id.startsWith(PROTECT_FN))!;
      byRole.delete(roleOf(protectFn as never));
      expect([...byRole.keys()].sort()).toEqual(expected.sort());
      // the migrations also read the read-only role's secret, to set its password
      const [readerId] = idsOf(template, 'AWS::SecretsManager::Secret').filter((id) => id.includes('Reader'));
      const migrateRole = roleOf(fns.find(([id]) => id.startsWith('DatabaseMigrateFn'))![1] as never);
      expect(byRole.get(migrateRole)!.splice(2)).toEqual([
        expect.objectContaining({ Action: 'secretsmanager:GetSecretValue', Resource: { Ref: readerId } }),
      ]);
      for (const [role, sts] of byRole) {
        expect(sts, role).toEqual([
          expect.objectContaining({ Effect: 'Allow', Action: [...DATA_API_ACTIONS].sort() }),
          expect.objectContaining({ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue' }),
        ]);
        expect(flat(sts[0].Resource), role).toBe(
          `arn:aws:rds:us-east-1:123456789012:cluster:${JSON.stringify({ Ref: clusterId })}`,
        );
        expect(sts[1].Resource, role).toEqual({ Ref: attachmentId });
        for (const st of sts) expect(st.Condition).toBeUndefined();
      }
      // CheckProgress never queries: no database grant at all
      const [, checkProgress] = fns.find(([id]) => id.startsWith('HandlersCheckProgress'))!;
      expect(byRole.has(roleOf(checkProgress as never))).toBe(false);
    },
  );

  it('migrations run at deploy, after the cluster and its writer, in a custom resource that changes with them', () => {
    const [migrations] = Object.values(template.findResources('AWS::CloudFormation::CustomResource'));
    expect(migrations.Properties.checksum).toBe(migrationsChecksum());
    expect(migrations.DependsOn).toEqual(
      expect.arrayContaining([...idsOf(template, 'AWS::RDS::DBCluster'), ...idsOf(template, 'AWS::RDS::DBInstance')]),
    );
  });

  it("a paused cluster's slow resume is polled, not failed: isComplete every 10 s for up to 30 minutes", () => {
    const resources = resourcesOf(template);
    const fns = Object.entries(template.findResources('AWS::Lambda::Function'));
    const [, framework] = fns.find(([, fn]) => fn.Properties.Handler === 'framework.onEvent')!;
    const env = framework.Properties.Environment.Variables;
    const onEvent = resources[env.USER_ON_EVENT_FUNCTION_ARN['Fn::GetAtt'][0]];
    const isComplete = resources[env.USER_IS_COMPLETE_FUNCTION_ARN['Fn::GetAtt'][0]];
    expect(onEvent.Properties.Handler).toBe('index.handler');
    expect(isComplete.Properties.Handler).toBe('index.isComplete');
    // isComplete applies the migrations; onEvent touches nothing
    expect(isComplete.Properties.Environment.Variables.MIGRATIONS_DIR).toBe('/var/task/migrations');
    expect(onEvent.Properties.Environment.Variables.DATABASE_CLUSTER_ARN).toBeUndefined();
    // the waiter's Retry is the polling: every MIGRATION_POLL_INTERVAL, as many times as MIGRATION_TOTAL_TIMEOUT allows
    const waiter = resources[env.WAITER_STATE_MACHINE_ARN.Ref];
    // its definition's Fn::Join, with each function ARN (an Fn::GetAtt) as a stand-in string
    const parts = waiter.Properties.DefinitionString['Fn::Join'][1] as unknown[];
    const definition = JSON.parse(parts.map((p) => (typeof p === 'string' ? p : 'arn')).join(''));
    expect(definition.States['framework-isComplete-task'].Retry).toEqual([
      {
        ErrorEquals: ['States.ALL'],
        IntervalSeconds: MIGRATION_POLL_INTERVAL.toSeconds(),
        MaxAttempts: MIGRATION_TOTAL_TIMEOUT.toSeconds() / MIGRATION_POLL_INTERVAL.toSeconds(),
        BackoffRate: 1,
      },
    ]);
    expect(MIGRATION_POLL_INTERVAL.toSeconds()).toBe(10);
    // longer than the resume the old handler could wait out (its retry budget), within CloudFormation's hour
    expect(MIGRATION_TOTAL_TIMEOUT.toMilliseconds()).toBeGreaterThan(10 * DATABASE_RETRY_BUDGET_MS);
    expect(MIGRATION_TOTAL_TIMEOUT.toMinutes()).toBeLessThan(60);
    // a poll may wait out a statement past the Data API's 45 s, and finish before CDK's framework function (15 min)
    expect(isComplete.Properties.Timeout).toBeGreaterThan(45 * 2);
    expect(isComplete.Properties.Timeout).toBeLessThan(framework.Properties.Timeout);
  });

  it('by default cdk destroy keeps the data and the credentials to read it (and the network it lives in)', () => {
    const resources = resourcesOf(template);
    for (const type of [
      'AWS::RDS::DBCluster',
      'AWS::RDS::DBInstance',
      'AWS::SecretsManager::Secret',
      'AWS::SecretsManager::SecretTargetAttachment',
      'AWS::RDS::DBSubnetGroup',
      'AWS::EC2::SecurityGroup',
      'AWS::EC2::VPC',
      'AWS::EC2::Subnet',
    ])
      for (const id of idsOf(template, type))
        expect(resources[id].DeletionPolicy, `${type} ${id}`).toBe('RetainExceptOnCreate');
    // protected, by the stack's last resource (cdk destroy then keeps it; nothing else can delete it)
    template.resourceCountIs('Custom::DeletionProtection', 1);
  });

  it('the cluster is created unprotected and protected by the last resource, which depends on every other', () => {
    template.hasResourceProperties('AWS::RDS::DBCluster', { DeletionProtection: false });
    const [clusterId] = idsOf(template, 'AWS::RDS::DBCluster');
    const [protectId] = idsOf(template, 'Custom::DeletionProtection');
    const protect = resourcesOf(template)[protectId] as Resources[string] & { DependsOn: string[] };
    expect(protect.Properties.ClusterIdentifier).toEqual({ Ref: clusterId });
    // so nothing can fail after the cluster is protected: a rollback always finds it unprotected
    expect([...protect.DependsOn].sort()).toEqual(
      Object.keys(resourcesOf(template))
        .filter((id) => id !== protectId)
        .sort(),
    );
    // a template whose cluster changes changes the protection too: its update protects the cluster again
    const hash = (t: Template) =>
      Object.values(t.findResources('Custom::DeletionProtection'))[0].Properties.ClusterTemplateHash;
    expect(hash(template)).toMatch(/^[0-9a-f]{64}$/);
    expect(hash(variant({ databaseMaxCapacity: 8 }))).not.toBe(hash(variant({ databaseMaxCapacity: 4 })));
    expect(hash(variant({ dashboard: true }))).toBe(hash(variant({})));
  });

  it('the protection may call rds:ModifyDBCluster on this cluster, and nothing else', () => {
    const [clusterId] = idsOf(template, 'AWS::RDS::DBCluster');
    const fns = Object.entries(template.findResources('AWS::Lambda::Function'));
    const [, protectFn] = fns.find(([id]) => id.startsWith(PROTECT_FN))!;
    expect(protectFn.Properties.Handler).toBe('index.handler');
    const role = protectFn.Properties.Role['Fn::GetAtt'][0];
    const statements = statementsOf(template).filter((st) => st.roles.some((r: { Ref: string }) => r.Ref === role));
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({ Effect: 'Allow', Action: 'rds:ModifyDBCluster' });
    expect(flat(statements[0].Resource)).toBe(
      `arn:aws:rds:us-east-1:123456789012:cluster:${JSON.stringify({ Ref: clusterId })}`,
    );
    // no other role may change or delete the cluster
    const others = statementsOf(template).filter(
      (st) => !st.roles.some((r: { Ref: string }) => r.Ref === role) && /"rds:/.test(JSON.stringify(st.Action)),
    );
    expect(others).toEqual([]);
  });

  it('retains nothing a failed first deploy created: every kept resource is RetainExceptOnCreate', () => {
    const kept = Object.entries(resourcesOf(template)).filter(([, r]) => r.DeletionPolicy?.startsWith('Retain'));
    // the cluster, its secret and network, the sweep bucket, the flow logs at least
    expect(kept.map(([, r]) => r.Type)).toEqual(
      expect.arrayContaining(['AWS::RDS::DBCluster', 'AWS::S3::Bucket', 'AWS::EC2::VPC', 'AWS::Logs::LogGroup']),
    );
    for (const [id, r] of kept) {
      expect(r.DeletionPolicy, `${r.Type} ${id}`).toBe('RetainExceptOnCreate');
      expect(r.UpdateReplacePolicy, `${r.Type} ${id}`).toBe('Retain');
    }
  });

  it('removeData removes everything: cluster and secret deleted, no deletion protection, no final snapshot', () => {
    const removed = variant({ removeData: true });
    removed.hasResourceProperties('AWS::RDS::DBCluster', { DeletionProtection: false });
    removed.resourceCountIs('Custom::DeletionProtection', 0);
    const resources = resourcesOf(removed);
    for (const type of ['AWS::RDS::DBCluster', 'AWS::RDS::DBInstance', 'AWS::SecretsManager::Secret'])
      for (const id of idsOf(removed, type)) expect(resources[id].DeletionPolicy, `${type} ${id}`).toBe('Delete');
    // nothing retained and no final snapshot (CloudFormation's default for a cluster without a policy)
    for (const [id, r] of Object.entries(resources)) {
      expect(r.DeletionPolicy === undefined || r.DeletionPolicy === 'Delete', `${r.Type} ${id}`).toBe(true);
      if (r.Type === 'AWS::RDS::DBCluster') expect(r.DeletionPolicy).toBe('Delete');
    }
  });

  it('outputs what the CLI and `aws rds-data execute-statement` need, and no proxy endpoint', () => {
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual([
      'BedrockModels',
      'DatabaseClusterArn',
      'DatabaseName',
      'DatabaseReaderSecretArn',
      'DatabaseSecretArn',
      'StateMachineArn',
      'SweepBucketName',
      'SweepStateMachineArn',
    ]);
    const [clusterId] = idsOf(template, 'AWS::RDS::DBCluster');
    const [attachmentId] = idsOf(template, 'AWS::SecretsManager::SecretTargetAttachment');
    const outputs = template.findOutputs('*');
    expect(flat(outputs.DatabaseClusterArn.Value)).toBe(
      `arn:aws:rds:us-east-1:123456789012:cluster:${JSON.stringify({ Ref: clusterId })}`,
    );
    expect(outputs.DatabaseSecretArn.Value).toEqual({ Ref: attachmentId });
    const [readerId] = idsOf(template, 'AWS::SecretsManager::Secret').filter((id) => id.includes('Reader'));
    expect(outputs.DatabaseReaderSecretArn.Value).toEqual({ Ref: readerId });
    expect(outputs.DatabaseName.Value).toBe('ariadne');
    expect(outputs.BedrockModels.Value).toBe(DEFAULT_BEDROCK_MODELS.join(','));
  });
});

describe('idle cost (bench/idle-cost.ts)', () => {
  // On this suite's template: no second synthesis.
  it('the stack idles under its goal ($1.50/month), every billable resource priced, no compute billed', () => {
    const cost = idleCost(template.toJSON() as Parameters<typeof idleCost>[0]);
    expect(cost.rows.filter((r) => r.monthly === null)).toEqual([]);
    expect(cost.total).toBeLessThan(IDLE_GOAL);
    expect(cost.total).toBeGreaterThan(0.8); // at least the two secrets: the bench did price something
    const writer = cost.rows.find((r) => r.type === 'AWS::RDS::DBInstance')!;
    expect(writer.monthly).toBe(0);
    expect(writer.note).not.toMatch(/Proxy/);
  });
});

describe('handler Lambdas', () => {
  it('every function allowed to query the database outlasts its retry budget plus its own work', () => {
    // the roles granted rds-data:ExecuteStatement, then the functions that run as them
    const granted = new Set(
      Object.values(template.findResources('AWS::IAM::Policy'))
        .filter((p) =>
          p.Properties.PolicyDocument.Statement.some((st: any) =>
            [st.Action].flat().includes('rds-data:ExecuteStatement'),
          ),
        )
        .flatMap((p) => p.Properties.Roles.map((r: any) => r.Ref as string)),
    );
    const functions = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([, f]) =>
      granted.has(f.Properties.Role['Fn::GetAtt']?.[0]),
    );
    // the Task functions that touch the database, the failure finalizer, RegisterSweep, the migrations
    expect(functions.length).toBe(TASK_STATES.filter((s) => TASKS[s].database).length + 3);
    for (const [id, f] of functions)
      expect(f.Properties.Timeout * 1000, id).toBeGreaterThan(DATABASE_RETRY_BUDGET_MS + DATABASE_WORK_MARGIN_MS);
  });

  it('run on nodejs22.x or newer, arm64, outside any VPC, with JSON logs at INFO and, by default, no X-Ray', () => {
    const all = Object.values(template.findResources('AWS::Lambda::Function'));
    // The custom-resource framework's functions (onEvent, isComplete, onTimeout) are CDK's own; they too must be on
    // a current runtime.
    const framework = all.filter((fn) => fn.Properties.Handler.startsWith('framework.'));
    // the migrations' (onEvent, isComplete, onTimeout) and the deletion protection's (onEvent)
    expect(framework.map((fn) => fn.Properties.Handler).sort()).toEqual([
      'framework.isComplete',
      'framework.onEvent',
      'framework.onEvent',
      'framework.onTimeout',
    ]);
    for (const fn of framework)
      expect(Number(/^nodejs(\d+)\.x$/.exec(fn.Properties.Runtime)?.[1])).toBeGreaterThanOrEqual(22);
    const fns = all.filter((fn) => !fn.Properties.Handler.startsWith('framework.'));
    // one per Task state, the EventBridge finalizer, the migrations' onEvent and isComplete, RegisterSweep, the
    // deletion protection
    expect(fns.length).toBe(TASK_STATES.length + 5);
    for (const fn of fns) {
      const p = fn.Properties;
      expect(p.VpcConfig).toBeUndefined();
      expect(Number(/^nodejs(\d+)\.x$/.exec(p.Runtime)?.[1])).toBeGreaterThanOrEqual(22);
      expect(p.Architectures).toEqual(['arm64']);
      expect(p.LoggingConfig).toMatchObject({ LogFormat: 'JSON', ApplicationLogLevel: 'INFO', SystemLogLevel: 'INFO' });
      expect(p.TracingConfig).toBeUndefined();
    }
    // nothing traces, so nothing may write traces
    expect(statementsOf(template).filter((st) => JSON.stringify(st.Action).includes('xray:'))).toEqual([]);
  });

  it('with tracing (-c tracing=true), every function and both state machines trace actively', () => {
    const traced = variant({ tracing: true });
    const fns = Object.entries(traced.findResources('AWS::Lambda::Function')).filter(
      ([, fn]) => !fn.Properties.Handler.startsWith('framework.'),
    );
    expect(fns.length).toBe(TASK_STATES.length + 5);
    for (const [id, fn] of fns) expect(fn.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
    const machines = Object.entries(traced.findResources('AWS::StepFunctions::StateMachine')).filter(([id]) =>
      /^(Experiments|Sweeps)Machine/.test(id),
    );
    expect(machines).toHaveLength(2);
    for (const [id, m] of machines) expect(m.Properties.TracingConfiguration, id).toEqual({ Enabled: true });
    expect(statementsOf(traced).some((st) => [st.Action].flat().includes('xray:PutTraceSegments'))).toBe(true);
  });

  it('the state machine may invoke exactly its handler functions', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const invoke = policies
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((st: any) => [st.Action].flat().includes('lambda:InvokeFunction'));
    expect(invoke.length).toBeGreaterThan(0);
    for (const st of invoke) expect(JSON.stringify(st.Resource)).not.toContain('"*"');
  });
});

describe('cdk synth with bundling', () => {
  it('the CDK CLI synthesizes the app and every bundled handler loads in Node', async () => {
    const { readdirSync, readFileSync, existsSync } = await import('node:fs');
    const { fileURLToPath, pathToFileURL } = await import('node:url');
    // the run's one `cdk synth --output` (the CLI, with bundling); reading it links the runtime's @aws-sdk into it
    const out = (await sharedAssembly()).dir;
    const root = fileURLToPath(new URL('..', import.meta.url));
    const tpl = JSON.parse(readFileSync(join(out, 'Ariadne.template.json'), 'utf8'));
    const fns = Object.values(tpl.Resources as Record<string, any>).filter(
      (res) => res.Type === 'AWS::Lambda::Function' && !res.Properties.Handler.startsWith('framework.'),
    );
    const assets = readdirSync(out).filter((d) => d.startsWith('asset.') && existsSync(join(out, d, 'index.mjs')));
    const codeKeys = new Set(fns.map((fn) => JSON.stringify(fn.Properties.Code.S3Key)));
    expect(assets.length).toBe(codeKeys.size); // one bundle per distinct handler file
    for (const fn of fns) {
      const asset = assets.find((a) => JSON.stringify(fn.Properties.Code).includes(a.slice('asset.'.length)));
      expect(asset, `bundle of ${fn.Properties.Handler}`).toBeDefined();
      const [file, exportName] = fn.Properties.Handler.split('.');
      const mod = await import(pathToFileURL(join(out, asset!, `${file}.mjs`)).href);
      expect(typeof mod[exportName], fn.Properties.Handler).toBe('function');
    }

    // The bundled migration handler, as Lambda runs it: its own copy of the SQL files, the environment the stack
    // gives it, the AWS SDK from the runtime (bundles leave @aws-sdk/* out: Lambda's Node runtimes include it),
    // and the Data API (RdsDataSim in front of a real Postgres schema).
    const migrateFn = fns.find((fn) => fn.Properties.Environment.Variables.MIGRATIONS_DIR)!;
    const migrateAsset = assets.find((a) =>
      JSON.stringify(migrateFn.Properties.Code).includes(a.slice('asset.'.length)),
    )!;
    const migrationFiles = readdirSync(join(root, 'migrations'))
      .filter((f) => f.endsWith('.sql'))
      .sort();
    expect(readdirSync(join(out, migrateAsset, 'migrations')).sort()).toEqual(migrationFiles);
    const env = migrateFn.Properties.Environment.Variables;
    expect(Object.keys(env)).toEqual(
      expect.arrayContaining(['DATABASE_CLUSTER_ARN', 'DATABASE_SECRET_ARN', 'DATABASE_NAME']),
    );
    expect(env).not.toHaveProperty('DATABASE_URL');
    const schema = `t_migrate_${Date.now()}`;
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: inject('databaseUrl') });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    const { RdsDataSim } = await import('../simulators/rds-data-sim.ts');
    const sim = new RdsDataSim({ url: inject('databaseUrl'), schema });
    const endpoint = await sim.listen();
    const saved = { ...process.env };
    Object.assign(process.env, {
      MIGRATIONS_DIR: join(out, migrateAsset, 'migrations'),
      ...dataApiFunctionEnv(sim, endpoint),
    });
    delete process.env.DATABASE_URL;
    try {
      const { handler, isComplete } = await import(`${pathToFileURL(join(out, migrateAsset, 'index.mjs')).href}?fresh`);
      // onEvent only answers; isComplete, polled by the framework, migrates
      const created = await handler({ RequestType: 'Create' });
      expect(created).toEqual({ PhysicalResourceId: 'ariadne-migrations' });
      // paused: one try, no waiting inside the function, "not yet" (the framework polls again)
      await sim.pause(1_000);
      expect(await isComplete({ RequestType: 'Create', ...created })).toEqual({ IsComplete: false });
      expect(sim.requests.map((q) => q.path)).toEqual(['/BeginTransaction']);
      await new Promise((r) => setTimeout(r, 1_100));
      const done = await isComplete({ RequestType: 'Create', ...created });
      expect(done.IsComplete).toBe(true);
      expect(done.Data.Applied.split(',')).toEqual(migrationFiles);
      // every DDL statement may run past the Data API's 45 s without being cancelled
      const executes = sim.requests.filter((q) => q.path === '/Execute');
      expect(executes.every((q) => q.body.continueAfterTimeout === true)).toBe(true);
      // every statement went through the Data API, one per call
      expect(sim.requests.filter((q) => q.path === '/Execute').length).toBeGreaterThan(migrationFiles.length);
      const tables = await admin.query(
        'SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1',
        [schema],
      );
      expect(tables.rows[0].n).toBeGreaterThan(5);
      expect(
        (await handler({ RequestType: 'Update', PhysicalResourceId: created.PhysicalResourceId })).PhysicalResourceId,
      ).toBe(created.PhysicalResourceId);
      expect((await isComplete({ RequestType: 'Update', ...created })).IsComplete).toBe(true);
      expect(await handler({ RequestType: 'Delete', PhysicalResourceId: created.PhysicalResourceId })).toEqual({
        PhysicalResourceId: created.PhysicalResourceId,
      });
      expect(await isComplete({ RequestType: 'Delete', ...created })).toEqual({ IsComplete: true });
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
      await sim.close();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });
});
