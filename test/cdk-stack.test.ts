// The stack as CloudFormation: what `cdk synth` produces.
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { AriadneParameters } from '../lib/parameters.ts';
import { synthesizeTemplate, machineDefinition, type Definition } from '../state-machine/definition.ts';
import { SWEEP_STATES } from '../lib/sweep-state-machine.ts';
import {
  aslRetry,
  INPUT_ERRORS,
  retryWaitSeconds,
  SFN_START_RETRY,
  STATES,
  TASK_STATES,
  TRANSIENT_ERRORS,
} from '../state-machine/states.ts';
import { TASKS, turnReserveSeconds } from '../state-machine/tasks.ts';
import { resolveParameters } from '../lambdas/config/parameters.ts';
import { DEFAULT_CONFIG, experimentConfigSchema } from '../lambdas/config/experiment-config.ts';
import { PROMPTS } from '../lambdas/config/prompts.ts';
import { AriadneStack, DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { migrationsChecksum } from '../lib/database.ts';
import { tempDir } from './support/temp-dir.ts';
import { idleCost } from '../bench/idle-cost.ts';

let template: Template;
let def: Definition;
beforeAll(() => {
  template = synthesizeTemplate();
  def = machineDefinition(template, 'Experiments');
});

describe('experiment state machine', () => {
  it('is a Standard machine with tracing, logging and an execution timeout', () => {
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: Match.objectLike({ Level: 'ALL', IncludeExecutionData: false }),
    });
    // above the default max_duration_minutes (120): experiments end by their own rule
    expect(def.TimeoutSeconds).toBe(180 * 60);
  });

  it(
    'loops StartExperiment -> ProviderRouter -> Invoke* -> CheckProgress -> ConditionCheck -> ' +
      'ContinueLoop | Finalize*',
    () => {
      const s = def.States as Record<string, Record<string, any>>;
      expect(s[STATES.StartExperiment].Next).toBe(STATES.ProviderRouter);
      expect(s[STATES.ProviderRouter].Type).toBe('Choice');
      expect(s[STATES.ProviderRouter].Choices.map((c: any) => [c.Variable, c.StringEquals, c.Next])).toEqual([
        ['$.llmProvider', 'bedrock', STATES.InvokeBedrockAgent],
        ['$.llmProvider', 'ollama', STATES.InvokeOllamaAgent],
      ]);
      expect(s[STATES.ProviderRouter].Default).toBe(STATES.InvokeBaselineAgent);
      for (const invoke of [STATES.InvokeBedrockAgent, STATES.InvokeOllamaAgent, STATES.InvokeBaselineAgent]) {
        expect(s[invoke].Next).toBe(STATES.CheckProgress);
      }
      expect(s[STATES.CheckProgress].Next).toBe(STATES.ConditionCheck);
      expect(s[STATES.ConditionCheck].Choices.map((c: any) => c.Next)).toEqual([
        STATES.FinalizeSuccess,
        STATES.FinalizeTimeout,
        STATES.FinalizeStuck,
        STATES.ContinueAsNew,
      ]);
      expect(s[STATES.ConditionCheck].Default).toBe(STATES.ContinueLoop);
      expect(s[STATES.ContinueLoop]).toMatchObject({ Type: 'Pass', Next: STATES.ProviderRouter });
      expect(s[STATES.ContinueLoop].Parameters['turnNumber.$']).toBe('States.MathAdd($.turnNumber, 1)');
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
      expect(s[STATES.ContinueAsNew].Catch.at(-1).Next).toBe(STATES.FinalizeFailure);
      expect(s[STATES.ContinuedAsNew].Type).toBe('Succeed');
    },
  );

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
      } else if (name !== STATES.FinalizeFailure) {
        expect(s[name].Catch, name).toEqual([
          { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: STATES.FinalizeFailure },
        ]);
      }
    }
  });

  it('the agent Tasks give a model that stayed down a few more, slower tries', () => {
    const s = def.States as Record<string, Record<string, any>>;
    for (const name of [STATES.InvokeBedrockAgent, STATES.InvokeOllamaAgent, STATES.InvokeBaselineAgent]) {
      expect(s[name].Retry[1]).toMatchObject({
        ErrorEquals: ['ProviderTransientError'],
        IntervalSeconds: 30,
        MaxAttempts: 2,
      });
    }
  });

  it('every Lambda Task retries the Lambda service errors AWS documents, ClientExecutionTimeoutException too', () => {
    // "Handle Lambda service exceptions" (Step Functions best practices), and Lambda's throttling
    const documented = [
      'Lambda.ClientExecutionTimeoutException',
      'Lambda.ServiceException',
      'Lambda.AWSLambdaException',
      'Lambda.SdkClientException',
      'Lambda.TooManyRequestsException',
    ];
    const s = def.States as Record<string, Record<string, any>>;
    for (const name of TASK_STATES)
      expect(s[name].Retry[0].ErrorEquals, name).toEqual(expect.arrayContaining(documented));
  });

  it('a taken continuation name means the hop was made: ContinueAsNew ends continued, retries transients only', () => {
    const s = def.States as Record<string, Record<string, any>>;
    const hop = s[STATES.ContinueAsNew];
    expect(hop.Catch).toEqual([
      {
        ErrorEquals: ['StepFunctions.ExecutionAlreadyExistsException'],
        ResultPath: '$.continuedAs',
        Next: STATES.ContinuedAsNew,
      },
      { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: STATES.FinalizeFailure },
    ]);
    expect(hop.Retry).toHaveLength(1);
    expect(hop.Retry[0].ErrorEquals).toEqual(SFN_START_RETRY.errors);
    // States.TaskFailed (or States.ALL) would retry ExecutionAlreadyExists, then finalize a running experiment failed
    for (const broad of ['States.TaskFailed', 'States.ALL', 'StepFunctions.ExecutionAlreadyExistsException'])
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
    expect(retried.map(([name]) => name).sort()).toEqual([...TASK_STATES, STATES.ContinueAsNew].sort());
    for (const [name, st] of retried) {
      expect(waits(st.Retry), name).toBeLessThanOrEqual(timeout * 0.05);
      expect(
        st.Retry.every((r: any) => r.JitterStrategy === 'FULL'),
        name,
      ).toBe(true);
    }
    expect(retryWaitSeconds(SFN_START_RETRY)).toBe(waits([aslRetry(SFN_START_RETRY) as any]));
    for (const provider of ['bedrock', 'ollama', 'baseline'] as const)
      expect(turnReserveSeconds(provider), provider).toBeLessThan(timeout / 2);
  });

  it('CheckProgress gets the execution clock: its start time and the machine timeout', () => {
    const s = def.States as Record<string, Record<string, any>>;
    expect(s[STATES.CheckProgress].Parameters).toEqual({
      'state.$': '$',
      execution: { 'startTime.$': '$$.Execution.StartTime', timeoutSeconds: def.TimeoutSeconds },
    });
  });

  it('each Task invokes a function whose timeout is the budget in state-machine/tasks.ts', () => {
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
  it(
    'registers the sweep, then runs the experiment machine per run in a Distributed Map with ' +
      'MaxConcurrency from the input',
    () => {
      const sweep = machineDefinition(template, 'Sweeps');
      const s = sweep.States as Record<string, Record<string, any>>;
      expect(sweep.StartAt).toBe(SWEEP_STATES.RegisterSweep);
      expect(s[SWEEP_STATES.RegisterSweep]).toMatchObject({
        Type: 'Task',
        ResultPath: '$.registered',
        Next: SWEEP_STATES.RunExperiments,
      });
      expect(s[SWEEP_STATES.RegisterSweep].Resource).toMatch(/function:RegisterSweepFn/);
      const map = s[SWEEP_STATES.RunExperiments];
      expect(map).toMatchObject({
        Type: 'Map',
        ItemsPath: '$.runs',
        MaxConcurrencyPath: '$.maxConcurrency',
        ToleratedFailurePercentage: 100,
        ResultPath: null,
        Next: SWEEP_STATES.SweepDone,
        ItemProcessor: {
          ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
          StartAt: SWEEP_STATES.RunExperiment,
        },
      });
      const child = map.ItemProcessor.States[SWEEP_STATES.RunExperiment];
      expect(child).toMatchObject({
        Type: 'Task',
        Resource: 'arn:aws:states:::states:startExecution.sync:2',
        ResultPath: null,
        End: true,
      });
      expect(child.Parameters).toMatchObject({ 'Name.$': '$.name', 'Input.$': '$.input' });
      expect(JSON.stringify(child.Parameters.StateMachineArn)).toMatch(/arn:aws:lambda|Experiments/);
      // a child that already ran is not run again, and does not fail the sweep
      expect(child.Catch).toEqual([
        {
          ErrorEquals: ['StepFunctions.ExecutionAlreadyExistsException'],
          ResultPath: null,
          Next: SWEEP_STATES.AlreadyRun,
        },
      ]);
      expect(s[SWEEP_STATES.SweepDone].Type).toBe('Succeed');
    },
  );

  it('may start, watch and stop only the experiment machine, and run its own Map children', () => {
    const policies = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([id]) => id.startsWith('SweepsMachine'))
      .map(([, p]) => p);
    const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
    const starts = statements.filter((st: any) => [st.Action].flat().includes('states:StartExecution'));
    expect(starts.length).toBeGreaterThan(0);
    // it starts the experiment machine and (its Distributed Map) itself, nothing else
    for (const st of starts) expect(JSON.stringify(st.Resource)).toMatch(/ExperimentsMachine|SweepsMachine/);
    // .sync:2 watches the child through EventBridge
    expect(statements.some((st: any) => [st.Action].flat().includes('events:PutRule'))).toBe(true);
    for (const st of statements)
      expect([st.Action].flat().some((a: string) => a === 'states:*' || a === '*')).toBe(false);
    template.hasOutput('SweepStateMachineArn', {});
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
    // the Bedrock region defaults to the stack's own
    expect(params.find((p) => p.Name === '/ariadne/config/bedrock/region').Value).toEqual({ Ref: 'AWS::Region' });
  });

  const statements = () =>
    Object.values(template.findResources('AWS::IAM::Policy')).flatMap((p) =>
      p.Properties.PolicyDocument.Statement.map((st: any) => ({ ...st, roles: p.Properties.Roles })),
    );

  it('only the Bedrock agent may call Bedrock, and only the configured models', () => {
    const bedrock = statements().filter((st) => [st.Action].flat().some((a: string) => a.startsWith('bedrock:')));
    expect(bedrock).toHaveLength(1);
    expect(bedrock[0].Action).toBe('bedrock:InvokeModel');
    expect(JSON.stringify(bedrock[0].roles)).toMatch(/InvokeBedrockAgentFn/);
    const arns = JSON.stringify(bedrock[0].Resource);
    for (const id of DEFAULT_BEDROCK_MODELS) expect(arns).toContain(`:foundation-model/${id}`);
  });

  it('parameters are readable under the prefix only, and decryptable through SSM only', () => {
    const ssm = statements().filter((st) => [st.Action].flat().some((a: string) => a.startsWith('ssm:')));
    expect(ssm.length).toBe(3); // StartExperiment, InvokeOllamaAgent, InvokeBedrockAgent
    for (const st of ssm) {
      expect(st.Action).toBe('ssm:GetParametersByPath');
      expect(JSON.stringify(st.Resource)).toMatch(/:parameter\/ariadne"\]\]\}.*:parameter\/ariadne\/\*/);
    }
    // the default key aws/ssm lets the account decrypt through SSM; KMS never authorizes by an alias ARN
    const kms = statements().filter((st) => [st.Action].flat().includes('kms:Decrypt'));
    expect(kms).toEqual([]);
  });

  it('a customer managed key for the secrets is granted by its key ARN, through SSM only', () => {
    const stack = new Stack(new App(), 'Keys', { env: { account: '123456789012', region: 'eu-west-1' } });
    const key = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    const role = new Role(stack, 'Fn', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    new AriadneParameters(stack, 'Parameters', '/ariadne', key).grantRead(role);
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
    // X-Ray trace segments and CloudWatch Logs delivery for Step Functions take no resource ARN: AWS requires "*".
    const REQUIRES_STAR = new RegExp(
      '^(xray:(PutTraceSegments|PutTelemetryRecords|GetSamplingRules|GetSamplingTargets)|' +
        'logs:(CreateLogDelivery|GetLogDelivery|UpdateLogDelivery|DeleteLogDelivery|ListLogDeliveries|' +
        'PutResourcePolicy|DescribeResourcePolicies|DescribeLogGroups))$',
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

  it('alarms on failed and timed-out executions, with a dashboard', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties.MetricName);
    expect(alarms.sort()).toEqual(['ExecutionsFailed', 'ExecutionsTimedOut']);
    expect(Object.keys(template.findResources('AWS::CloudWatch::Dashboard'))).toHaveLength(1);
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
      expect([...kinds].sort()).toEqual(['AwsSolutions-IAM4', 'AwsSolutions-IAM5', 'AwsSolutions-SQS3']);
    },
  );
});

describe('database', () => {
  it('Aurora PostgreSQL Serverless v2, encrypted, retained, with generated credentials in Secrets Manager', () => {
    template.hasResourceProperties('AWS::RDS::DBCluster', {
      Engine: 'aurora-postgresql',
      StorageEncrypted: true,
      DeletionProtection: true,
      DatabaseName: 'ariadne',
      ServerlessV2ScalingConfiguration: { MinCapacity: 0.5, MaxCapacity: 8 },
    });
    template.hasResourceProperties('AWS::RDS::DBInstance', { DBInstanceClass: 'db.serverless' });
    template.hasResource('AWS::RDS::DBCluster', { DeletionPolicy: 'Retain' });
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    template.hasResourceProperties('AWS::SecretsManager::RotationSchedule', {
      RotationRules: { ScheduleExpression: 'rate(30 days)' },
    });
  });

  it('the Lambdas reach it through RDS Proxy with TLS required, and nothing else can', () => {
    template.hasResourceProperties('AWS::RDS::DBProxy', { EngineFamily: 'POSTGRESQL', RequireTLS: true });
    const groups = template.findResources('AWS::EC2::SecurityGroup');
    const dbGroup = Object.entries(groups).find(([, g]) =>
      /cluster and RDS Proxy/.test(g.Properties.GroupDescription),
    )![0];
    const clients = Object.entries(groups).find(([, g]) =>
      /only clients of the database/.test(g.Properties.GroupDescription),
    )![0];
    const rotation = Object.entries(groups).find(([, g]) =>
      /RotationSingleUser/.test(g.Properties.GroupDescription),
    )![0]; // the secret rotation Lambda
    const ingress = Object.values(template.findResources('AWS::EC2::SecurityGroupIngress'))
      .map((r) => r.Properties)
      .filter((r) => JSON.stringify(r.GroupId).includes(dbGroup));
    expect(ingress.length).toBeGreaterThan(0);
    for (const rule of ingress) {
      // 5432, or the cluster's port attribute (the rule addProxy adds for the proxy itself)
      expect(rule.IpProtocol).toBe('tcp');
      expect(JSON.stringify(rule.FromPort)).toMatch(/^5432$|Endpoint\.Port/);
      expect(rule.CidrIp).toBeUndefined();
      expect(rule.CidrIpv6).toBeUndefined();
      expect([clients, dbGroup, rotation].some((g) => JSON.stringify(rule.SourceSecurityGroupId).includes(g))).toBe(
        true,
      );
    }
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (f) => !f.Properties.Handler.startsWith('framework.'),
    )) {
      expect(JSON.stringify(fn.Properties.VpcConfig.SecurityGroupIds)).toContain(clients);
      expect(fn.Properties.Environment.Variables).toMatchObject({
        DATABASE_NAME: 'ariadne',
        DATABASE_HOST: expect.anything(),
        DATABASE_SECRET_ARN: expect.anything(),
      });
    }
  });

  it('migrations run at deploy through a custom resource that changes when a migration does', () => {
    const [migrations] = Object.values(template.findResources('AWS::CloudFormation::CustomResource'));
    expect(migrations.Properties.checksum).toBe(migrationsChecksum());
    const proxyId = Object.keys(template.findResources('AWS::RDS::DBProxy'))[0];
    expect(migrations.DependsOn).toContain(proxyId);
  });

  it('outputs the state machine ARN, the proxy endpoint and the secret', () => {
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual([
      'DatabaseClusterEndpoint',
      'DatabaseProxyEndpoint',
      'DatabaseSecretArn',
      'StateMachineArn',
      'SweepStateMachineArn',
    ]);
  });
});

describe('idle cost (bench/idle-cost.ts)', () => {
  // On this suite's template: no second synthesis. The redesign (issue 16: under $1/month idle) must change this.
  it("today's stack idles above $100/month, every billable resource priced", () => {
    const cost = idleCost(template.toJSON() as Parameters<typeof idleCost>[0]);
    expect(cost.rows.filter((r) => r.monthly === null)).toEqual([]);
    expect(cost.total).toBeGreaterThan(100);
  });
});

describe('handler Lambdas', () => {
  it('run on nodejs22.x or newer, arm64, in the VPC, with JSON logs and X-Ray', () => {
    const all = Object.values(template.findResources('AWS::Lambda::Function'));
    // The custom-resource framework function is CDK's own; it too must be on a current runtime.
    const framework = all.filter((fn) => fn.Properties.Handler.startsWith('framework.'));
    expect(framework).toHaveLength(1);
    expect(Number(/^nodejs(\d+)\.x$/.exec(framework[0].Properties.Runtime)?.[1])).toBeGreaterThanOrEqual(22);
    const fns = all.filter((fn) => !fn.Properties.Handler.startsWith('framework.'));
    // one per Task state, the EventBridge finalizer, the migrations, RegisterSweep
    expect(fns.length).toBe(TASK_STATES.length + 3);
    for (const fn of fns) {
      const p = fn.Properties;
      expect(p.VpcConfig.SecurityGroupIds).toHaveLength(1);
      expect(Number(/^nodejs(\d+)\.x$/.exec(p.Runtime)?.[1])).toBeGreaterThanOrEqual(22);
      expect(p.Architectures).toEqual(['arm64']);
      expect(p.LoggingConfig).toMatchObject({ LogFormat: 'JSON' });
      expect(p.TracingConfig).toEqual({ Mode: 'Active' });
    }
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
    const { spawnSync } = await import('node:child_process');
    const { readdirSync, readFileSync, existsSync } = await import('node:fs');
    const { fileURLToPath, pathToFileURL } = await import('node:url');
    const out = tempDir('cdk');
    const root = fileURLToPath(new URL('..', import.meta.url));
    const r = spawnSync('npx', ['cdk', 'synth', '--quiet', '--output', out], {
      cwd: root,
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(r.status, r.stderr).toBe(0);
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

    // The bundled migration handler, as Lambda runs it: its own copy of the SQL files, a real Postgres.
    const migrateFn = fns.find((fn) => fn.Properties.Environment.Variables.MIGRATIONS_DIR)!;
    const migrateAsset = assets.find((a) =>
      JSON.stringify(migrateFn.Properties.Code).includes(a.slice('asset.'.length)),
    )!;
    expect(readdirSync(join(out, migrateAsset, 'migrations')).sort()).toEqual(
      readdirSync(join(root, 'migrations'))
        .filter((f) => f.endsWith('.sql'))
        .sort(),
    );
    const schema = `t_migrate_${Date.now()}`;
    Object.assign(process.env, {
      MIGRATIONS_DIR: join(out, migrateAsset, 'migrations'),
      DATABASE_URL: inject('databaseUrl'),
      DATABASE_SCHEMA: schema,
    });
    try {
      const { handler } = await import(`${pathToFileURL(join(out, migrateAsset, 'index.mjs')).href}?fresh`);
      const created = await handler({ RequestType: 'Create' });
      expect(created.Data.Applied.split(',')).toEqual(
        readdirSync(join(root, 'migrations'))
          .filter((f) => f.endsWith('.sql'))
          .sort(),
      );
      expect(
        (await handler({ RequestType: 'Update', PhysicalResourceId: created.PhysicalResourceId })).PhysicalResourceId,
      ).toBe(created.PhysicalResourceId);
      expect(await handler({ RequestType: 'Delete', PhysicalResourceId: created.PhysicalResourceId })).toEqual({
        PhysicalResourceId: created.PhysicalResourceId,
      });
    } finally {
      for (const k of ['MIGRATIONS_DIR', 'DATABASE_URL', 'DATABASE_SCHEMA']) delete process.env[k];
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: inject('databaseUrl') });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });
});
