// The scenario "low-concurrency": a sweep wider than a new account's Lambda concurrency (the Lambda server answers as
// a new account, 10 executions). `ariadne sweep --aws` fits the sweep with the researcher's key; the sweep machine is
// then started asking for more than the account has, and RegisterSweep, reading the account with its own grant, caps
// the Map: it completes, and the emulated Map checks its peak in flight against the account's concurrency.
import { researcherPolicy } from '../lib/researcher-policy.ts';
import { fitSweepToAccount } from '../bin/cli/sweep-fit.ts';
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { sweepConcurrencyCap } from '../core/sweeps/sweep-capacity.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { emulateSweep } from './scenario-sweep.ts';
import { stackOutputsOf } from './stack-outputs.ts';
import type { World } from './world.ts';
import { withProcessEnv } from './process-env.ts';

class LowConcurrencyScenarioError extends Error {
  override readonly name = 'LowConcurrencyScenarioError';
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new LowConcurrencyScenarioError(message);
}

/** A new account's Lambda concurrency ("New AWS accounts have reduced concurrency and memory quotas"). */
const NEW_ACCOUNT = { concurrentExecutions: 10, unreservedConcurrentExecutions: 10 };
const REQUESTED = 50;
const MODEL = DEFAULT_BEDROCK_MODELS[0];
/** 3 agents x 2 sizes x 5 seeds = 30 cells, 2 repeats: 60 runs, five times wider than the account allows. */
const SWEEP_YAML = `sweep: rehearsal-narrow
description: a sweep wider than a new account's Lambda concurrency
agents:
  - { agent: frontier }
  - { agent: random }
  - { agent: bedrock, model: ${MODEL} }
mazes: { generators: [medium], sizes: [5, 7], seeds: [1, 2, 3, 4, 5] }
config: { max_moves: 200 }
repeats: 2
max_concurrency: ${REQUESTED}
`;

/** `fn` with this process's AWS environment set as a researcher's laptop would have it, then restored. */
function asResearcher<T>(world: World, accessKeyId: string, fn: () => Promise<T>): Promise<T> {
  return withProcessEnv(
    {
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: 'researcher-secret',
      AWS_SESSION_TOKEN: '',
      AWS_ENDPOINT_URL_LAMBDA: world.endpoints.AWS_ENDPOINT_URL_LAMBDA,
      AWS_ENDPOINT_URL_SSM: world.endpoints.AWS_ENDPOINT_URL_SSM,
      AWS_ENDPOINT_URL_SERVICE_QUOTAS: world.endpoints.AWS_ENDPOINT_URL_SERVICE_QUOTAS,
    },
    fn,
  );
}

export async function lowConcurrencyScenario(world: World): Promise<string> {
  const lambda = world.sims.lambda;
  const before = lambda.account;
  lambda.account = { ...NEW_ACCOUNT };
  try {
    const cap = sweepConcurrencyCap(NEW_ACCOUNT.unreservedConcurrentExecutions);
    const loaded = loadSweep(SWEEP_YAML, 'the low-concurrency sweep');
    const outputs = stackOutputsOf(world.model);
    const researcher = world.model.addPrincipal('NarrowResearcher', researcherPolicy(outputs));
    const fit = await asResearcher(world, researcher, () =>
      fitSweepToAccount(loaded, { region: outputs.region, requested: REQUESTED }),
    );
    check(
      fit.maxConcurrency === cap && fit.concurrency.capped,
      `the CLI's fit: ${fit.maxConcurrency} at a time (${fit.lines[0]}), expected ${cap}`,
    );
    const limit = fit.rateLimits.find((r) => r.model === MODEL)?.limit;
    check(limit?.tokens_per_minute !== undefined, `no rate limit defaulted for ${MODEL}: ${fit.lines.join('; ')}`);
    const bedrockRun = fit.sweep.runs.find((r) => r.cell.agent === 'bedrock')!;
    check(
      JSON.stringify(bedrockRun.cell.config.rate_limits) === JSON.stringify({ [`bedrock:${MODEL}`]: limit }),
      `the Bedrock runs' config does not carry the quota's rate limit: ${JSON.stringify(bedrockRun.cell.config)}`,
    );

    // started asking for 50 anyway: RegisterSweep caps it with the account it reads
    const frontier = fit.sweep.runs.flatMap((r, i) => (r.cell.agent === 'frontier' ? [i] : []));
    const sample = new Set([frontier[0], frontier.at(-1)!]);
    const { report } = await emulateSweep(world, fit.sweep, REQUESTED, sample);
    const registered = report.registered as { maxConcurrency: number; concurrency: { capped: boolean } };
    check(
      registered.maxConcurrency === cap && registered.concurrency.capped,
      `RegisterSweep allowed ${registered.maxConcurrency}, expected ${cap} of the account's 10`,
    );
    check(report.maxConcurrency === cap, `the Map ran at MaxConcurrency ${report.maxConcurrency}, not ${cap}`);
    check(
      report.maxInFlight === cap,
      `${report.maxInFlight} experiments in flight at the peak, expected ${cap} (capped, and used)`,
    );
    check(report.iterations.length === loaded.runs.length, `${report.iterations.length} iterations ran`);
    const registerFn = world.assembly.functions.find((f) => f.logicalId.startsWith('RegisterSweepFn'))!.logicalId;
    const reads = world.authorizer.counts.get(registerFn)?.get('lambda:GetAccountSettings') ?? 0;
    check(reads > 0, 'RegisterSweep never read the account settings');
    return (
      `${loaded.runs.length} runs asked ${REQUESTED} at a time on an account of ${NEW_ACCOUNT.concurrentExecutions}: ` +
      `the CLI and RegisterSweep (GetAccountSettings, its own grant) both capped it to ${cap}, the Map ran at most ` +
      `${report.maxInFlight} in flight and completed; ${MODEL}'s runs got the account's quotas as rate limits ` +
      `(${limit?.tokens_per_minute?.toLocaleString('en-US')} tokens/min; requests per minute are not enforced)`
    );
  } finally {
    lambda.account = before;
  }
}
