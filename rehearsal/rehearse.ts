// The deploy rehearsal: what `cdk deploy` would upload, run the way the template wires it. Each Lambda's bundle runs
// in its own child process with the template's environment (one fake account), signs its AWS calls with its own key,
// and reaches local servers that speak the AWS protocols and authorize every call against its role's policies. The
// synthesized experiment machine drives the Tasks; a denial, a quota violation or wrong database rows fail it.
import { migrate, startWorld, type QuotaViolation, type RehearsalOptions } from './world.ts';
import { SCENARIOS } from './scenarios.ts';
import type { Denial } from '../simulators/authorization.ts';
import { SWEEP_NOTES } from './scenario-sweep.ts';
import { RESEARCHER_NOTES } from './scenario-researcher.ts';
import { FAILED_FIRST_DEPLOY_NOTES } from './scenario-failed-first-deploy.ts';

export { STATE_PAYLOAD_LIMIT, type RehearsalOptions } from './world.ts';

interface ScenarioResult {
  name: string;
  pass: boolean;
  detail: string;
  seconds: number;
}

export interface RehearsalReport {
  /** function logical id -> AWS action -> calls */
  calls: Record<string, Record<string, number>>;
  denials: Denial[];
  /** Denials scenarios provoked on purpose (a researcher's write, a key read by the wrong principal), each checked. */
  expectedDenials: Denial[];
  violations: QuotaViolation[];
  scenarios: ScenarioResult[];
  /** What the rehearsal does not model, said in its output. */
  notes: string[];
  seconds: number;
}

export async function rehearse(opts: RehearsalOptions): Promise<RehearsalReport> {
  const started = Date.now();
  const log = opts.log ?? (() => undefined);
  const world = await startWorld(opts);
  const scenarios: ScenarioResult[] = [];
  try {
    await migrate(world);
    for (const name of opts.scenarios ?? Object.keys(SCENARIOS)) {
      const scenario = SCENARIOS[name];
      if (!scenario) throw new Error(`no scenario "${name}"; the scenarios are ${Object.keys(SCENARIOS).join(', ')}`);
      const began = Date.now();
      const seconds = () => (Date.now() - began) / 1000;
      try {
        const detail = await scenario(world);
        scenarios.push({ name, pass: true, detail, seconds: seconds() });
      } catch (err) {
        const detail = `${(err as Error).name}: ${(err as Error).message}`;
        scenarios.push({ name, pass: false, detail, seconds: seconds() });
      }
      log(`scenario ${name}: ${scenarios.at(-1)!.pass ? 'pass' : 'FAIL'}`);
    }
  } finally {
    await world.close();
  }
  const calls: RehearsalReport['calls'] = {};
  for (const [principal, actions] of world.authorizer.counts) calls[principal] = Object.fromEntries(actions);
  return {
    calls,
    denials: world.authorizer.denials,
    expectedDenials: world.authorizer.expectedDenials,
    violations: [
      ...world.violations,
      ...world.dataApi.limitHits.map((h) => ({
        quota: h.limit,
        where: 'an RDS Data API call',
        measured: h.measured,
        limit: h.allowed,
        unit: h.unit,
      })),
    ],
    scenarios,
    notes: [
      'Lambda runs locally: no cold-start latency, no network between services; its concurrency is counted only as ' +
        "a sweep's experiments in flight (one invocation each) against the Lambda server's account, not per call; " +
        'one container a function: an invocation that comes while one runs waits for it (Lambda would start another)',
      'Express chunks run on the local engine through the Step Functions server (StartSyncExecution, IAM-checked); ' +
        'their 5-minute limit is the wall clock, which no rehearsal chunk nears (test/nested-orchestration.test.ts ' +
        'shortens it)',
      'CloudWatch Logs and X-Ray calls are not made by the bundles and not rehearsed',
      ...(scenarios.some((s) => s.name === 'sweep') ? SWEEP_NOTES : []),
      ...(scenarios.some((s) => s.name === 'researcher') ? RESEARCHER_NOTES : []),
      ...(scenarios.some((s) => s.name === 'failed-first-deploy') ? FAILED_FIRST_DEPLOY_NOTES : []),
    ],
    seconds: (Date.now() - started) / 1000,
  };
}

/** The report as the table `npm run rehearse` prints. */
export function formatReport(r: RehearsalReport): string {
  const lines = ['AWS calls by function (action: count)'];
  for (const [fn, actions] of Object.entries(r.calls).sort())
    lines.push(
      `  ${fn.padEnd(40)} ${Object.entries(actions)
        .map(([a, n]) => `${a}: ${n}`)
        .join(', ')}`,
    );
  lines.push(`denials: ${r.denials.length} (goal 0)`);
  for (const d of r.denials) lines.push(`  ${d.principal} may not ${d.action} on ${d.resource}: ${d.explanation}`);
  lines.push(`denials provoked on purpose and checked by their scenario: ${r.expectedDenials.length}`);
  for (const d of r.expectedDenials) lines.push(`  ${d.principal} may not ${d.action} on ${d.resource}`);
  lines.push(`quota violations: ${r.violations.length} (goal 0)`);
  for (const v of r.violations) lines.push(`  ${v.quota}: ${v.where} is ${v.measured} ${v.unit} (limit ${v.limit})`);
  lines.push('scenarios');
  for (const s of r.scenarios)
    lines.push(
      `  ${s.pass ? 'pass' : 'FAIL'}  ${s.name.padEnd(21)} ${s.seconds.toFixed(1).padStart(5)} s  ${s.detail}`,
    );
  lines.push('not rehearsed:');
  for (const n of r.notes) lines.push(`  ${n}`);
  lines.push(`${r.seconds.toFixed(1)} s`);
  return lines.join('\n');
}

/** Whether the rehearsal passed: no denial, no violation, every scenario right. */
export function passed(r: RehearsalReport): boolean {
  return r.denials.length === 0 && r.violations.length === 0 && r.scenarios.every((s) => s.pass);
}
