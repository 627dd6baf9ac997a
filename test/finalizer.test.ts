// The EventBridge finalizer, fed the event shapes Step Functions publishes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalizeExecutionHandler } from '../functions/finalize-execution.ts';
import { startExperiment } from '../core/engine/experiment.ts';
import { PgStore } from '../core/store/pg-store.ts';
import { baselineAgents } from '../core/providers/baselines.ts';
import { tableDump, testDatabase, TRANSPORTS, type TestDatabase } from './support/db.ts';
import { returnTaskToken, type TaskTokenNotifier } from '../core/engine/task-tokens.ts';

let db: TestDatabase;
let store: PgStore;
let handler: (event: unknown) => Promise<unknown>;

const MACHINE = 'arn:aws:states:us-east-1:123456789012:stateMachine:AriadneExperiments';
const exec = (name: string) => `arn:aws:states:us-east-1:123456789012:execution:AriadneExperiments:${name}`;

/** As EventBridge delivers it (see the Step Functions "Execution Status Change" event). */
function statusEvent(
  executionArn: string,
  status: string,
  error: string | null = null,
  cause: string | null = null,
  input = '{}',
) {
  return {
    version: '0',
    id: '315c1398-40ff-a850-213b-158f73e60175',
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    account: '123456789012',
    time: '2026-11-22T19:42:21Z',
    region: 'us-east-1',
    resources: [executionArn],
    detail: {
      executionArn,
      stateMachineArn: MACHINE,
      name: executionArn.split(':').at(-1),
      status,
      startDate: 1_763_840_541_984,
      stopDate: 1_763_844_141_984,
      input,
      output: null,
      inputDetails: { included: true },
      outputDetails: null,
      error,
      cause,
    },
  };
}

async function running(executions: string[], taskToken?: string): Promise<string> {
  const base = {
    agent: 'random',
    provider: 'baseline',
    maze: { kind: 'generated' as const, spec: { generator: 'light', width: 11, height: 11, seed: 1 } },
  };
  const first = await startExperiment({ ...base, executionArn: executions[0], taskToken }, store);
  // each later execution (continue as new) starts the same experiment again, which records its ARN
  for (const arn of executions.slice(1))
    await startExperiment({ ...base, experimentId: first.experimentId, executionArn: arn }, store);
  return first.experimentId;
}

const row = async (id: string) =>
  (await db.pool.query('SELECT status, stop_reason, failure_reason, completed_at FROM experiments WHERE id = $1', [id]))
    .rows[0];

describe.each(TRANSPORTS)('over %s', (transport) => {
  beforeAll(async () => {
    db = await testDatabase({ transport });
    store = new PgStore(db);
    handler = finalizeExecutionHandler({ store, agents: baselineAgents, now: () => new Date() });
  });
  afterAll(async () => {
    await db.drop();
  });

  describe('finalizer', () => {
    it('finalizes an experiment whose execution timed out, once: a second delivery changes nothing', async () => {
      const id = await running([exec('run-1')]);
      const outcome = await handler(
        statusEvent(exec('run-1'), 'TIMED_OUT', 'States.Timeout', 'The execution reached its TimeoutSeconds'),
      );
      expect(outcome).toEqual({ action: 'finalized', experimentId: id });
      expect(await row(id)).toMatchObject({
        status: 'failed',
        stop_reason: 'execution_timed_out',
        failure_reason: 'TIMED_OUT: States.Timeout: The execution reached its TimeoutSeconds',
      });
      const before = await tableDump(db);
      expect(await handler(statusEvent(exec('run-1'), 'TIMED_OUT', 'States.Timeout'))).toMatchObject({
        action: 'ignored',
        experimentId: id,
      });
      expect(await tableDump(db)).toBe(before);
    });

    it.each([
      ['FAILED', 'execution_failed'],
      ['ABORTED', 'execution_aborted'],
    ])('finalizes on %s', async (status, stopReason) => {
      const id = await running([exec(`run-${status}`)]);
      await handler(statusEvent(exec(`run-${status}`), status, status === 'FAILED' ? 'Lambda.Unknown' : null));
      expect(await row(id)).toMatchObject({ status: 'failed', stop_reason: stopReason });
    });

    it('ignores an execution that continued as new; the latest execution still counts', async () => {
      const id = await running([exec('gen-1'), exec('gen-2'), exec('gen-3')]);
      const ignored = await handler(statusEvent(exec('gen-2'), 'ABORTED'));
      expect(ignored).toMatchObject({ action: 'ignored', experimentId: id });
      expect((await row(id)).status).toBe('running');
      expect(await handler(statusEvent(exec('gen-3'), 'FAILED', 'States.Runtime', 'boom'))).toEqual({
        action: 'finalized',
        experimentId: id,
      });
    });

    it('leaves finished experiments and unknown executions alone, and ignores SUCCEEDED', async () => {
      const id = await running([exec('done-1')]);
      await store.finalizeExperiment(id, { status: 'completed', stopReason: 'goal_found' });
      const before = await tableDump(db);
      expect(await handler(statusEvent(exec('done-1'), 'FAILED'))).toMatchObject({ action: 'ignored' });
      expect(await handler(statusEvent(exec('never-started'), 'FAILED'))).toMatchObject({ action: 'ignored' });
      expect(await handler(statusEvent(exec('done-1'), 'SUCCEEDED'))).toMatchObject({ action: 'ignored' });
      expect(await tableDump(db)).toBe(before);
    });

    it('rejects an event that is not a Step Functions status change, naming the field', async () => {
      const bad = { ...statusEvent(exec('x'), 'FAILED'), source: 'aws.ec2' };
      await expect(handler(bad)).rejects.toMatchObject({ name: 'InvalidInputError', field: 'event.source' });
    });
  });

  describe("the finalizer returns a sweep's task token", () => {
    // As Step Functions answers: the first SendTaskSuccess closes the task, a second fails with TaskTimedOut.
    const sent: Array<{ token: string; output: unknown }> = [];
    const taskTokens: TaskTokenNotifier = {
      succeed(token, output) {
        const closed = sent.some((s) => s.token === token);
        sent.push({ token, output });
        return closed
          ? Promise.reject(Object.assign(new Error('Task Timed Out'), { name: 'TaskTimedOut' }))
          : Promise.resolve();
      },
    };
    const withTokens = () =>
      finalizeExecutionHandler({ store, agents: baselineAgents, now: () => new Date(), taskTokens });
    const startInput = (taskToken: string) =>
      JSON.stringify({ agent: 'random', maze: { generator: 'light' }, taskToken });
    const resumeInput = (taskToken: string) => JSON.stringify({ resume: { experimentId: 'x', taskToken } });

    it('of the latest execution that timed out (the token from its resume input), once in effect', async () => {
      sent.length = 0;
      const id = await running([exec('tok-1'), exec('tok-2')]);
      // the earlier execution continued as new: the experiment, and its token, went on
      await withTokens()(statusEvent(exec('tok-1'), 'ABORTED', null, null, startInput('T1')));
      expect(sent).toEqual([]);
      const event = statusEvent(exec('tok-2'), 'TIMED_OUT', 'States.Timeout', null, resumeInput('T1'));
      expect(await withTokens()(event)).toEqual({ action: 'finalized', experimentId: id });
      expect(sent).toEqual([
        { token: 'T1', output: { experimentId: id, status: 'failed', stopReason: 'execution_timed_out' } },
      ]);
      // EventBridge delivers again: the token is closed, which is no error
      expect(await withTokens()(event)).toMatchObject({ action: 'ignored', experimentId: id });
      expect(sent).toHaveLength(2);
    });

    it('of an execution that failed before any experiment existed (its input refused)', async () => {
      sent.length = 0;
      await withTokens()(statusEvent(exec('refused'), 'FAILED', 'InvalidInputError', 'bad maze', startInput('T2')));
      expect(sent).toEqual([
        { token: 'T2', output: { experimentId: null, status: 'not_created', stopReason: 'execution_failed' } },
      ]);
    });

    it('kept with the run: returned when the event leaves out an input too large to include', async () => {
      sent.length = 0;
      const id = await running([exec('big-input')], 'T3');
      const event = statusEvent(exec('big-input'), 'FAILED', 'States.Runtime', 'boom');
      (event.detail as { inputDetails: { included: boolean } }).inputDetails = { included: false };
      expect(await withTokens()(event)).toEqual({ action: 'finalized', experimentId: id });
      expect(sent).toEqual([
        { token: 'T3', output: { experimentId: id, status: 'failed', stopReason: 'execution_failed' } },
      ]);
    });

    it('none when the input holds none, or is not JSON', async () => {
      sent.length = 0;
      await running([exec('plain')]);
      await withTokens()(statusEvent(exec('plain'), 'FAILED'));
      await withTokens()(statusEvent(exec('garbled'), 'FAILED', null, null, '{not json'));
      expect(sent).toEqual([]);
    });

    it('closed tokens are not errors; every other failure to send is, so the delivery is retried', async () => {
      const failing = (name: string): TaskTokenNotifier => ({
        succeed: () => Promise.reject(Object.assign(new Error(name), { name })),
      });
      for (const name of ['TaskTimedOut', 'InvalidToken', 'TaskDoesNotExist'])
        expect(await returnTaskToken(failing(name), 'T', {})).toBe('closed');
      await expect(returnTaskToken(failing('ThrottlingException'), 'T', {})).rejects.toThrow('ThrottlingException');
      expect(await returnTaskToken(undefined, 'T', {})).toBe('none');
      expect(await returnTaskToken(failing('X'), null, {})).toBe('none');
    });
  });
});
