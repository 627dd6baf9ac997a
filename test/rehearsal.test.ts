// The deploy rehearsal end to end: the synthesized stack's bundles, wired as
// the template wires them, against IAM-checking AWS servers. It passes on the
// stack as it is, and fails, naming what, when a grant is missing or a state's
// payload is over its quota.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { formatReport, passed, rehearse, STATE_PAYLOAD_LIMIT } from '../rehearsal/rehearse.ts';
import type { CfnTemplate } from '../lib/template-values.ts';
import { STATES } from '../core/machine/states.ts';
import { sharedAssembly } from './support/assembly.ts';

let assemblyDir: string;
beforeAll(async () => {
  assemblyDir = (await sharedAssembly()).dir;
}, 240_000);

/** Removes every statement granting `action` from the policies of the function whose logical id starts with `fn`. */
function withoutGrant(fn: string, action: string) {
  return (template: CfnTemplate) => {
    const fnResource = Object.entries(template.Resources).find(
      ([id, r]) => id.startsWith(fn) && r.Type === 'AWS::Lambda::Function',
    );
    const role = (fnResource![1].Properties!.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    for (const r of Object.values(template.Resources)) {
      if (r.Type !== 'AWS::IAM::Policy') continue;
      const roles = (r.Properties!.Roles as Array<{ Ref: string }>).map((x) => x.Ref);
      if (!roles.includes(role)) continue;
      const doc = r.Properties!.PolicyDocument as { Statement: Array<{ Action: string | string[] }> };
      doc.Statement = doc.Statement.filter((st) => ![st.Action].flat().includes(action));
    }
  };
}

/** Removes the sweep machine's grant to start the experiment machine (the statement naming both). */
function withoutSweepStart(template: CfnTemplate) {
  const role = Object.entries(template.Resources).find(
    ([id, r]) => id.startsWith('SweepsMachine') && r.Type === 'AWS::IAM::Role',
  )![0];
  for (const r of Object.values(template.Resources)) {
    if (r.Type !== 'AWS::IAM::Policy') continue;
    if (!(r.Properties!.Roles as Array<{ Ref: string }>).some((x) => x.Ref === role)) continue;
    const doc = r.Properties!.PolicyDocument as { Statement: Array<{ Action: string | string[]; Resource: unknown }> };
    doc.Statement = doc.Statement.filter(
      (st) =>
        !([st.Action].flat().includes('states:StartExecution') && JSON.stringify(st.Resource).includes('Experiments')),
    );
  }
}

describe('npm run rehearse', () => {
  it('the stack as synthesized: every scenario passes, with no denial and no quota violation', async () => {
    const report = await rehearse({ databaseUrl: inject('databaseUrl'), assemblyDir });
    expect(report.denials, formatReport(report)).toEqual([]);
    expect(report.violations).toEqual([]);
    expect(report.scenarios.map((s) => [s.name, s.pass])).toEqual([
      ['baseline', true],
      ['duplicate-delivery', true],
      ['bedrock', true],
      ['logs', true],
      ['ollama', true],
      ['openai', true],
      ['fork', true],
      ['image', true],
      ['provider-timeout', true],
      ['new-account', true],
      ['legacy-model', true],
      ['continue-as-new', true],
      ['abort', true],
      ['resume', true],
      ['slow-resume-migration', true],
      ['failed-first-deploy', true],
      ['secret-rotation', true],
      ['secrets', true],
      ['largest-maze', true],
      ['sweep', true],
      ['low-concurrency', true],
      ['factors', true],
      ['researcher', true],
      ['researcher-read-only', true],
    ]);
    expect(passed(report)).toBe(true);
    // what the scenarios provoked on purpose, each checked by its scenario: a function reading another's key, a
    // researcher reading a key or the master secret; nothing else
    expect(new Set(report.expectedDenials.map((d) => d.action))).toEqual(
      new Set(['ssm:GetParameter', 'secretsmanager:GetSecretValue']),
    );
    // the bundles really went through the servers: the turn functions wrote every turn through the Data API,
    // and the Bedrock agent's called the model through Bedrock Runtime, each call authorized
    const calls = (fn: string) => report.calls[Object.keys(report.calls).find((f) => f.includes(fn))!];
    expect(calls('InvokeBaselineAgent')['rds-data:ExecuteStatement']).toBeGreaterThan(5);
    expect(calls('InvokeBedrockAgent')['bedrock:InvokeModel']).toBeGreaterThan(0);
    // the sweeps: 10,000 + 60 (the low-concurrency sweep) + 8 (the factor sweep) child workflow executions and as
    // many experiments started as the sweep machine, every token returned by a finalizer: 10,060 with
    // FinalizeSuccess's key (5 by the experiments that ran, the rest by the stand-ins), the factor sweep's 8 by
    // whichever finalizer ended each run
    expect(calls('SweepsMachine')['states:StartExecution']).toBe(2 * 10_068);
    expect(calls('SweepsMachine')['s3:GetObject']).toBeGreaterThan(0);
    const tokens = (fn: string) => calls(fn)?.['states:SendTaskSuccess'] ?? 0;
    expect(tokens('FinalizeSuccess')).toBeGreaterThanOrEqual(10_060);
    expect(tokens('FinalizeSuccess') + tokens('FinalizeTimeout')).toBe(10_068);
    // RegisterSweep read the account's Lambda concurrency for each of the three sweeps
    expect(calls('RegisterSweepFn')['lambda:GetAccountSettings']).toBe(3);
    expect(report.scenarios.find((s) => s.name === 'sweep')!.detail).toMatch(
      /^10,000 runs: .* 10,000 launched, at most (\d+) of \1 in flight, 3 run to the goal, 9,997 stood in for/,
    );
    // the researcher's --aws commands found the stack through CloudFormation and read the database as the
    // researcher policy, in the same world
    expect(report.calls.Researcher['cloudformation:DescribeStacks']).toBeGreaterThan(0);
    expect(report.calls.Researcher['rds-data:ExecuteStatement']).toBeGreaterThan(0);
    expect(report.calls.Researcher['states:ListExecutions']).toBeGreaterThan(0);
    // the largest maze a run may name, read and written over the Data API within its row and response limits
    expect(report.scenarios.find((s) => s.name === 'largest-maze')!.detail).toMatch(
      /^a 201x201 maze \w+ after \d+ actions over the Data API: largest row [\d,]+ bytes of 65,536 \(\d+%\)/,
    );
    // the functions' own lines on stdout: one per turn with the experiment id, and the metric records' values
    expect(report.scenarios.find((s) => s.name === 'logs')!.detail).toMatch(
      new RegExp(
        String.raw`^(\d+) turn lines for \1 turns of rehearsal-logs-\w+ \(one each, \d+ bytes a line\), ` +
          String.raw`start and finalize lines; \d+ metric values: Turns \1, InputTokens [1-9]\d*, `,
      ),
    );
    expect(report.notes.join('\n')).toMatch(/Distributed Map, ItemReader, ResultWriter and waitForTaskToken emulated/);
    // nested orchestration: every experiment's turns ran in chunks started as the experiment machine, whose role may
    // start the turn machine synchronously; the turn machine's role invoked the turn functions
    expect(calls('ExperimentsMachine')['states:StartSyncExecution']).toBeGreaterThan(10);
    expect(calls('ExperimentsChunksMachine')['lambda:InvokeFunction']).toBeGreaterThan(100);
    expect(report.scenarios.find((s) => s.name === 'duplicate-delivery')!.detail).toMatch(
      /^(\d+) chunk deliveries \((\d+) a second Express execution .* the log equals the undisturbed run's/,
    );
  }, 240_000);

  it('a missing grant and an oversized state fail it, naming the function, the action, the resource', async () => {
    const report = await rehearse({
      databaseUrl: inject('databaseUrl'),
      assemblyDir,
      // the failure path's own grant: the first turn's oversized CheckProgress output fails the state, and
      // FinalizeFailure may not write the failure
      editTemplate: withoutGrant('HandlersFinalizeFailure', 'rds-data:ExecuteStatement'),
      scenarios: ['baseline', 'abort'],
      wrapTask: (state, handler) =>
        state === STATES.CheckProgress
          ? async (event) => ({ ...((await handler(event)) as object), padding: 'x'.repeat(STATE_PAYLOAD_LIMIT) })
          : handler,
    });
    expect(passed(report)).toBe(false);
    expect(report.violations[0]).toMatchObject({ where: 'CheckProgress result', limit: STATE_PAYLOAD_LIMIT });
    expect(report.denials[0]).toMatchObject({
      principal: expect.stringMatching(/^HandlersFinalizeFailure/),
      action: 'rds-data:ExecuteStatement',
      resource: expect.stringMatching(/^arn:aws:rds:eu-west-1:123456789012:cluster:/),
    });
    // the scenario that takes a turn fails; the abort scenario takes none and still passes
    expect(report.scenarios.map((s) => [s.name, s.pass])).toEqual([
      ['baseline', false],
      ['abort', true],
    ]);
    expect(formatReport(report)).toMatch(/denials: [1-9]/);
  }, 240_000);

  it('a continuation named past 80 characters is a violation, as StartExecution refuses it', async () => {
    const suffix = 'x'.repeat(60);
    const report = await rehearse({
      databaseUrl: inject('databaseUrl'),
      assemblyDir,
      // the ContinueAsNew state's Name, lengthened in the experiment machine's definition
      editTemplate: (template) => {
        const machine = Object.entries(template.Resources).find(
          ([id, r]) => id.startsWith('ExperimentsMachine') && r.Type === 'AWS::StepFunctions::StateMachine',
        )!;
        const text = JSON.stringify(machine[1].Properties!.DefinitionString);
        // CheckProgress names the next execution: the state's Name path is made to read a longer one it returns
        expect(text).toContain('$.progress.continuation.name');
        const longer = `States.Format('{}-${suffix}-t{}', $.experimentId, $.progress.continuation.turnNumber)`;
        machine[1].Properties!.DefinitionString = JSON.parse(
          text.replace('\\"Name.$\\":\\"$.progress.continuation.name\\"', `\\"Name.$\\":\\"${longer}\\"`),
        );
      },
      scenarios: ['continue-as-new'],
    });
    expect(report.violations[0]).toMatchObject({
      quota: 'execution name (80 characters)',
      where: expect.stringContaining(`${suffix}-t2`),
      limit: 80,
    });
    expect(report.scenarios[0].pass).toBe(false);
    expect(passed(report)).toBe(false);
  }, 240_000);

  it('a sweep wider than a new account runs capped to its Lambda concurrency; uncapped, a violation', async () => {
    const capped = await rehearse({ databaseUrl: inject('databaseUrl'), assemblyDir, scenarios: ['low-concurrency'] });
    expect(capped.denials, formatReport(capped)).toEqual([]);
    expect(capped.violations).toEqual([]);
    expect(capped.scenarios[0]).toMatchObject({ name: 'low-concurrency', pass: true });
    expect(capped.scenarios[0].detail).toMatch(
      /^60 runs asked 50 at a time on an account of 10: .* capped it to 8, the Map ran at most 8 in flight/,
    );
    expect(capped.calls.NarrowResearcher).toMatchObject({
      'lambda:GetAccountSettings': 1,
      'servicequotas:ListServiceQuotas': 1,
    });
    // RegisterSweep without its grant: the read is denied, the Map runs as asked, past the account's concurrency
    const uncapped = await rehearse({
      databaseUrl: inject('databaseUrl'),
      assemblyDir,
      editTemplate: withoutGrant('RegisterSweepFn', 'lambda:GetAccountSettings'),
      scenarios: ['low-concurrency'],
    });
    expect(passed(uncapped)).toBe(false);
    expect(uncapped.denials[0]).toMatchObject({
      principal: expect.stringMatching(/^RegisterSweepFn/),
      action: 'lambda:GetAccountSettings',
      resource: '*',
    });
    expect(uncapped.violations).toEqual([
      expect.objectContaining({ quota: "Lambda concurrent executions (the account's unreserved)", limit: 10 }),
    ]);
    expect(uncapped.violations[0].measured).toBeGreaterThan(10);
    expect(uncapped.scenarios[0]).toMatchObject({
      pass: false,
      detail: expect.stringMatching(/RegisterSweep allowed 50/),
    });
  }, 240_000);

  it("a redeploy's migrations fail on a slow resume when polled only as long as the old budget", async () => {
    const report = await rehearse({
      databaseUrl: inject('databaseUrl'),
      assemblyDir,
      // the waiter polls 4 times after the first (40 s on AWS's clock, the old in-function retry budget)
      editTemplate: (template) => {
        const [, waiter] = Object.entries(template.Resources).find(
          ([id, r]) => id.includes('waiterstatemachine') && r.Type === 'AWS::StepFunctions::StateMachine',
        )!;
        const text = JSON.stringify(waiter.Properties!.DefinitionString);
        expect(text).toMatch(/\\"MaxAttempts\\":180/);
        waiter.Properties!.DefinitionString = JSON.parse(
          text.replace(/(\\"MaxAttempts\\":)180/, (_m, key) => `${key}4`),
        );
      },
      scenarios: ['slow-resume-migration'],
    });
    expect(report.scenarios[0]).toMatchObject({
      name: 'slow-resume-migration',
      pass: false,
      detail: expect.stringMatching(/Operation timed out \(5 polls, 10 s apart\)/),
    });
    expect(passed(report)).toBe(false);
  }, 240_000);

  it('a failed first deploy leaves the cluster behind when it is protected before the stack is complete', async () => {
    const report = await rehearse({
      databaseUrl: inject('databaseUrl'),
      assemblyDir,
      // the protection after the cluster alone: created beside the migrations, it protects the cluster they fail on
      editTemplate: (template) => {
        const [, protection] = Object.entries(template.Resources).find(
          ([, r]) => r.Type === 'Custom::DeletionProtection',
        )!;
        const clusterId = Object.keys(template.Resources).find(
          (id) => template.Resources[id].Type === 'AWS::RDS::DBCluster',
        )!;
        (protection as { DependsOn?: string[] }).DependsOn = [clusterId];
      },
      scenarios: ['failed-first-deploy'],
    });
    expect(report.denials).toEqual([]);
    expect(report.scenarios[0]).toMatchObject({
      name: 'failed-first-deploy',
      pass: false,
      detail: expect.stringMatching(/ended ROLLBACK_FAILED, not ROLLBACK_COMPLETE: .*Cannot delete protected Cluster/),
    });
  }, 240_000);

  it('the sweep fails, naming the sweep machine, when its role may not start the experiment machine', async () => {
    // the factor sweep's 8 runs through the sweep machine: the same launches as the 10,000-run sweep's, 8 of them
    const report = await rehearse({
      databaseUrl: inject('databaseUrl'),
      assemblyDir,
      editTemplate: withoutSweepStart,
      scenarios: ['factors'],
    });
    expect(passed(report)).toBe(false);
    expect(report.scenarios[0]).toMatchObject({
      name: 'factors',
      pass: false,
      detail: expect.stringMatching(/^SweepScenarioError: 8 iterations failed, .*StepFunctions\.AccessDenied/),
    });
    // every launch was a request, and every denied request is recorded (the cached decision is not a free pass)
    expect(report.denials).toHaveLength(8);
    expect(report.denials[0]).toMatchObject({
      principal: expect.stringMatching(/^SweepsMachine/),
      action: 'states:StartExecution',
      resource: expect.stringMatching(/:stateMachine:Ariadne-experiments$/),
    });
  }, 240_000);
});
