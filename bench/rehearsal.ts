// The deploy rehearsal's time: `cdk synth` with bundling, every
// function's cold start in its own process, the migrations through the Data
// API and each scenario. Goal: the whole scenario set in under 60 s on 2 cores.
import { fileURLToPath } from 'node:url';
import { formatReport, passed, rehearse } from '../rehearsal/rehearse.ts';
import { benchPostgres, fmt, timed } from './support.ts';

const GOAL_SECONDS = 60;

export async function rehearsalBench(): Promise<{ seconds: number; passed: boolean }> {
  const pg = await benchPostgres();
  try {
    const run = await timed(() => rehearse({ databaseUrl: pg.url }));
    console.log('rehearsal: the synthesized stack against IAM-checking AWS servers (npm run rehearse)');
    console.log(
      `  ${fmt(run.seconds, 1)} s in all, synth included (goal < ${GOAL_SECONDS} s: ` +
        `${fmt(run.seconds / GOAL_SECONDS, 2)}x of it); ${run.value.scenarios.length} scenarios, ` +
        `${passed(run.value) ? 'passed' : 'FAILED'}`,
    );
    const scenarios = run.value.scenarios;
    const inScenarios = scenarios.reduce((n, sc) => n + sc.seconds, 0);
    console.log(
      `  scenarios ${fmt(inScenarios, 1)} s (${fmt(inScenarios / run.seconds, 2)} of the whole; the rest is synth, ` +
        `cold starts and migrations): ${scenarios.map((sc) => `${sc.name} ${fmt(sc.seconds, 1)} s`).join(', ')}`,
    );
    if (!passed(run.value)) console.log(formatReport(run.value));
    return { seconds: run.seconds, passed: passed(run.value) };
  } finally {
    await pg.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await rehearsalBench();
