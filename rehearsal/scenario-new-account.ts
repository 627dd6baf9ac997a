// The scenarios of a new AWS account: the deployed stack's first Claude call, and a Legacy model.
// The Bedrock simulator answers as its account state says (simulators/bedrock-catalog.ts): a new account has no
// Anthropic use case details and no Marketplace subscription, and only an identity allowed aws-marketplace:Subscribe
// (the administrator below, not the stack's Bedrock role) starts one with its first call. The administrator's
// activation is `ariadne doctor --aws --bedrock`'s Bedrock check (bin/cli/doctor-bedrock.ts), run as that identity.
import { newSimAccount, setUpSimAccount } from '../simulators/bedrock-catalog.ts';
import { bedrockChecks } from '../bin/cli/doctor/bedrock.ts';
import { experiment, runExperimentMachine, toGoal, type Scenario } from './run-experiment.ts';
import type { World } from './world.ts';
import { withProcessEnv } from './process-env.ts';
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { FAKE_ENVIRONMENT } from '../lib/template-values.ts';

class NewAccountScenarioError extends Error {
  override readonly name = 'NewAccountScenarioError';
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new NewAccountScenarioError(message);
}

/** Who deploys and activates: Bedrock's and the Marketplace's actions the model-access page lists, and quotas. */
const ADMINISTRATOR_POLICY = {
  Version: '2012-10-17',
  Statement: [
    {
      Effect: 'Allow',
      Action: [
        'bedrock:InvokeModel',
        'bedrock:GetFoundationModel',
        'aws-marketplace:Subscribe',
        'aws-marketplace:ViewSubscriptions',
        'aws-marketplace:Unsubscribe',
        // doctor --bedrock also prints the account's Bedrock quotas
        'servicequotas:ListServiceQuotas',
      ],
      Resource: '*',
    },
  ],
};

/** The doctor's Bedrock checks, signed with `accessKeyId` against the world's Bedrock simulator. */
function doctorAs(world: World, accessKeyId: string, models: string[]) {
  const env = {
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: 'administrator-secret',
    AWS_SESSION_TOKEN: '',
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: world.endpoints.AWS_ENDPOINT_URL_BEDROCK_RUNTIME,
    AWS_ENDPOINT_URL_BEDROCK: world.endpoints.AWS_ENDPOINT_URL_BEDROCK,
    AWS_ENDPOINT_URL_SERVICE_QUOTAS: world.endpoints.AWS_ENDPOINT_URL_SERVICE_QUOTAS,
  };
  return withProcessEnv(env, () => bedrockChecks(models, FAKE_ENVIRONMENT.region, '/ariadne'));
}

const request = (model: string) => ({
  agent: 'bedrock',
  model,
  maze: { generator: 'medium', size: 9, seed: 3 },
  config: { max_moves: 200 },
});

export const NEW_ACCOUNT_SCENARIOS: Record<string, Scenario> = {
  async 'new-account'(world) {
    const bedrock = world.sims.bedrock;
    const model = DEFAULT_BEDROCK_MODELS[0];
    const admin = world.model.addPrincipal('Administrator', ADMINISTRATOR_POLICY);
    bedrock.account = newSimAccount((key) => key === admin);
    try {
      const form = await experiment(world, 'no-use-case', request(model));
      check(
        form.status === 'failed' && /use-case; fix: .*submit the form/.test(form.failure_reason ?? ''),
        `before the use case form: ${form.status} (${form.failure_reason}), expected failed naming the form`,
      );
      bedrock.account.useCaseSubmitted = true; // the administrator submits Anthropic's form in the console
      const sent = bedrock.requests.length;
      const market = await experiment(world, 'no-subscription', request(model));
      check(
        market.status === 'failed' && /\(marketplace; fix: .*doctor --aws --bedrock/.test(market.failure_reason ?? ''),
        `before activation: ${market.status} (${market.failure_reason}), expected failed naming the activation`,
      );
      // an access problem is not retried: one model call, however many retries a provider fault would get
      check(bedrock.requests.length - sent === 1, `${bedrock.requests.length - sent} model calls, expected 1`);
      const checks = await doctorAs(world, admin, DEFAULT_BEDROCK_MODELS);
      const failing = checks.filter((c) => !c.ok).map((c) => `${c.check}: ${c.detail}`);
      check(failing.length === 0, `the administrator's doctor --bedrock failed: ${failing.join('; ')}`);
      const after = await experiment(world, 'activated', request(model));
      toGoal(after);
      return (
        `a new account: the first run failed naming Anthropic's use case form, the next naming the activation ` +
        `(one call, not retried); the administrator's doctor --bedrock subscribed ${DEFAULT_BEDROCK_MODELS.length} ` +
        `models; then the stack's role reached the goal in ${after.actions_taken} actions with no Marketplace grant`
      );
    } finally {
      bedrock.account = setUpSimAccount();
    }
  },

  async 'legacy-model'(world) {
    const bedrock = world.sims.bedrock;
    const legacy = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0';
    const admin = world.model.addPrincipal('LegacyAdministrator', ADMINISTRATOR_POLICY);
    bedrock.models.push(legacy);
    bedrock.account = { ...setUpSimAccount(), inactiveOnLegacy: true };
    try {
      const checks = await doctorAs(world, admin, [legacy]);
      const lifecycle = checks.find((c) => c.check.endsWith('lifecycle'));
      check(lifecycle?.warning === true && /LEGACY/.test(lifecycle.detail), 'the doctor did not warn of Legacy');
      check(
        /deploy global\.anthropic\.claude-sonnet-5-5, its replacement/.test(lifecycle?.fix ?? ''),
        `the doctor did not name the replacement: ${lifecycle?.fix ?? ''}`,
      );
      const call = checks.find((c) => c.check === `Bedrock ${legacy}`);
      check(call?.ok === false && /choose an Active model/.test(call.fix ?? ''), 'the doctor did not refuse it');
      // the stack does not grant it: StartExperiment refuses before anything is written, naming the grant
      const name = `rehearsal-legacy-${Date.now()}`;
      const run = await runExperimentMachine(world, { ...request(legacy), experimentId: name }, name).then(
        () => null,
        (err: Error) => err,
      );
      const refusal = `${run?.message ?? 'it ran'} ${String((run?.cause as Error | undefined)?.message ?? '')}`;
      const { rows } = await world.db.pool.query('SELECT 1 FROM experiments WHERE id = $1', [name]);
      check(rows.length === 0, 'the refused run wrote an experiment');
      check(
        /not granted by this deployment.*-c bedrockModelIds=/.test(refusal),
        `not refused as ungranted: ${refusal}`,
      );
      return (
        'a Legacy model: doctor --bedrock warned (GetFoundationModel LEGACY), naming its replacement, and its call ' +
        'failed with the fix; ' +
        'a run on it was refused as not granted'
      );
    } finally {
      bedrock.models.splice(bedrock.models.indexOf(legacy), 1);
      bedrock.account = setUpSimAccount();
    }
  },
};
