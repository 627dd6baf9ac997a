// What the Bedrock simulator knows of models and of the account calling them, written from AWS's pages apart from the
// project's model table (core/config/model-table.ts), so that a mistake there meets AWS's behaviour here: each model's
// lifecycle (aws-facts: bedrock.model-lifecycle-states; third-party reports where its tables are not stored), which
// models are served only through inference profiles, and the first call's Marketplace subscription
// (aws-facts: bedrock.first-call-subscribes); the messages are those core/providers/llm/bedrock-access.ts cites.
import { fact } from '../aws-facts/facts.ts';

const LIFECYCLE_STATES = fact('bedrock.model-lifecycle-states').value;
export type SimLifecycle = Lowercase<(typeof LIFECYCLE_STATES)[number]>;
const [ACTIVE] = LIFECYCLE_STATES.map((state) => state.toLowerCase() as SimLifecycle);
const SUBSCRIPTION = fact('bedrock.first-call-subscribes').value;
const LEGACY_INACTIVE_DAYS = fact('bedrock.legacy-inactivity-days').value;

const PROFILE = /^(us|us-gov|eu|apac|jp|au|ca|global)\./;

/** The model id behind an inference profile id (or the id itself). */
export const simBaseModel = (id: string): string => id.replace(PROFILE, '');

// Claude 3.5 Sonnet (20240620) and Claude 3 Haiku are past end of life, Claude 3.7 Sonnet since 2026-04-28 (reported
// third-party: github.com/awslabs/startups/pull/9; the stored copies of the lifecycle pages end before their tables);
// Sonnet 4.5 is Legacy since 2026-10-08; Opus 5.5 is Active (its model card: launched 2026-09-22).
const LIFECYCLE: Record<string, SimLifecycle> = {
  'anthropic.claude-3-5-sonnet-20240620-v1:0': 'end-of-life',
  'anthropic.claude-3-haiku-20240307-v1:0': 'end-of-life',
  'anthropic.claude-3-7-sonnet-20250219-v1:0': 'end-of-life',
  'anthropic.claude-sonnet-4-5-20250929-v1:0': 'legacy',
};

/** When a model turned Legacy and reaches (or reached) its end of life, where known (YYYY-MM-DD). */
const LIFECYCLE_DATES: Record<string, { legacy?: string; endOfLife?: string }> = {
  'anthropic.claude-3-7-sonnet-20250219-v1:0': { endOfLife: '2026-04-28' },
  'anthropic.claude-sonnet-4-5-20250929-v1:0': { legacy: '2026-10-08' },
};

const simLifecycle = (id: string): SimLifecycle => LIFECYCLE[simBaseModel(id)] ?? ACTIVE;

/** A model's lifecycle as GetFoundationModel reports it: its state, and its dates where known (YYYY-MM-DD). */
export interface SimModelLifecycle {
  status: SimLifecycle;
  legacy?: string;
  endOfLife?: string;
}

export const simModelLifecycle = (id: string): SimModelLifecycle => ({
  status: simLifecycle(id),
  ...LIFECYCLE_DATES[simBaseModel(id)],
});

/**
 * Claude 4 and later: on demand through an inference profile only (inference profiles: the page of
 * aws-facts: bedrock.profile-destinations-us); a base id answers "Invocation of model ID ... with on-demand throughput
 * isn't supported" (reported wording).
 */
export const needsProfile = (id: string): boolean =>
  !PROFILE.test(id) && /^anthropic\.claude-(sonnet|opus|haiku|fable|mythos)-\d/.test(id);

/** What the simulator serves by default: today's models, their profiles, and the retired ones (to refuse them). */
export const SIM_DEFAULT_MODELS = [
  'anthropic.claude-sonnet-4-6',
  'anthropic.claude-haiku-4-5-20251001-v1:0',
  'anthropic.claude-opus-4-7',
  'anthropic.claude-sonnet-5-5',
  'anthropic.claude-opus-5-5',
  'anthropic.claude-haiku-5-5',
  ...['us', 'eu', 'apac', 'global'].flatMap((p) => [
    `${p}.anthropic.claude-sonnet-4-6`,
    `${p}.anthropic.claude-haiku-4-5-20251001-v1:0`,
  ]),
  'global.anthropic.claude-opus-4-7',
  'us.anthropic.claude-opus-4-7',
  'global.anthropic.claude-sonnet-5-5',
  'us.anthropic.claude-sonnet-5-5',
  'global.anthropic.claude-opus-5-5',
  'jp.anthropic.claude-opus-5-5',
  'us.anthropic.claude-haiku-5-5',
  'amazon.nova-lite-v1:0',
  'amazon.nova-pro-v1:0',
  'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'us.anthropic.claude-3-7-sonnet-20250219-v1:0',
  'anthropic.claude-3-5-sonnet-20240620-v1:0',
  'anthropic.claude-3-haiku-20240307-v1:0',
];

/**
 * The calling account's state. The default is an account already set up (use case submitted, subscribed to
 * everything, active on its Legacy models); a new account is `newSimAccount()`.
 */
export interface SimAccount {
  /** Anthropic's first-time use case form submitted. */
  useCaseSubmitted: boolean;
  /** Base model ids with a Marketplace subscription; 'all' for every model. */
  subscribed: Set<string> | 'all';
  /** Whether the caller of a request may create a subscription (aws-marketplace:Subscribe and the others). */
  maySubscribe: (callerAccessKeyId: string | undefined) => boolean;
  /** Legacy models the account has not used within Bedrock's window: refused. */
  inactiveOnLegacy: boolean;
}

export const setUpSimAccount = (): SimAccount => ({
  useCaseSubmitted: true,
  subscribed: 'all',
  maySubscribe: () => true,
  inactiveOnLegacy: false,
});

/** A new account: no use case, no subscription, no history; `maySubscribe` decides who can activate a model. */
export const newSimAccount = (maySubscribe: SimAccount['maySubscribe']): SimAccount => ({
  useCaseSubmitted: false,
  subscribed: new Set(),
  maySubscribe,
  inactiveOnLegacy: true,
});

const THIRD_PARTY = /^(anthropic|meta|mistral|cohere|ai21|deepseek|writer|openai|qwen)\./;

/**
 * The refusal a call meets before the model runs, as [status, error type, message], or null. `subscribes`: the
 * call may start the subscription (then recorded in the account).
 */
export function accountRefusal(
  account: SimAccount,
  modelId: string,
  callerAccessKeyId: string | undefined,
  lifecycle: SimLifecycle = simLifecycle(modelId),
): [number, string, string] | null {
  const base = simBaseModel(modelId);
  if (lifecycle === 'end-of-life')
    return [
      404,
      'ResourceNotFoundException',
      'This model version has reached the end of its life. Please refer to the AWS documentation for more details.',
    ];
  if (lifecycle === 'legacy' && account.inactiveOnLegacy)
    return [
      404,
      'ResourceNotFoundException',
      'Access denied. This Model is marked by provider as Legacy and you have not been actively using the model in ' +
        `the last ${LEGACY_INACTIVE_DAYS} days. Please upgrade to an active model on Amazon Bedrock`,
    ];
  if (needsProfile(modelId))
    return [
      400,
      'ValidationException',
      `Invocation of model ID ${modelId} with on-demand throughput isn\u2019t supported. Retry your request with the ` +
        'ID or ARN of an inference profile that contains this model.',
    ];
  if (!THIRD_PARTY.test(base)) return null;
  if (base.startsWith('anthropic.') && !account.useCaseSubmitted)
    return [
      404,
      'ResourceNotFoundException',
      'Model use case details have not been submitted for this account. Fill out the Anthropic use case details ' +
        'form before using the model. If you have already filled out the form, try again in 15 minutes.',
    ];
  if (account.subscribed === 'all' || account.subscribed.has(base)) return null;
  if (account.maySubscribe(callerAccessKeyId)) {
    account.subscribed.add(base);
    return null;
  }
  return [
    403,
    SUBSCRIPTION.missingPrerequisites,
    'Model access is denied due to IAM user or service role is not authorized to perform the required AWS ' +
      'Marketplace actions (aws-marketplace:ViewSubscriptions, aws-marketplace:Subscribe) to enable access to this ' +
      'model. Refer to the Amazon Bedrock documentation for further details. Your AWS Marketplace subscription for ' +
      'this model cannot be completed at this time. If you recently fixed this issue, try again after 15 minutes.',
  ];
}
