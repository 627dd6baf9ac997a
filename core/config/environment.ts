// Every environment variable the code reads, in one table, and the one reader of them. Code asks for a variable by
// its name here (envString('DATABASE_URL', env)), so a name the table lacks does not compile, and
// test/environment-variables.test.ts fails on any `process.env.X` read elsewhere and on a row nothing reads.
// docs/environment.md is this table, written by `npm run docs`.
import { InvalidInputError } from '../errors.ts';

/** Who reads a variable: the CLI, the Lambda functions, the CDK app (`cdk synth`), the rehearsal, benchmarks, tests. */
type EnvironmentReader = 'cli' | 'lambda' | 'cdk app' | 'rehearsal' | 'bench' | 'tests';

export interface EnvironmentVariable {
  readonly readBy: readonly EnvironmentReader[];
  /** `user`: a setting for whoever runs the code; `platform`: set by AWS, npm, CDK, the OS or the stack itself. */
  readonly setBy: 'user' | 'platform';
  readonly meaning: string;
  /** What applies when it is unset (or empty), as the code decides it. */
  readonly default?: string;
  readonly example?: string;
}

const VARIABLES = {
  DATABASE_URL: {
    readBy: ['cli', 'lambda', 'rehearsal'],
    setBy: 'user',
    meaning: 'The Postgres server to use instead of the embedded one (a Lambda function: instead of the Data API).',
    default: 'the embedded Postgres in ARIADNE_DATA_DIR',
    example: 'postgres://ariadne:secret@localhost:5432/ariadne',
  },
  DATABASE_SCHEMA: {
    readBy: ['cli', 'lambda'],
    setBy: 'user',
    meaning: 'The schema the tables live in (created and migrated on first use).',
    default: 'public',
    example: 'ariadne_test',
  },
  DATABASE_CLUSTER_ARN: {
    readBy: ['lambda'],
    setBy: 'platform',
    meaning: 'Set by the stack on each function that uses the database: the Aurora cluster the RDS Data API reaches.',
    example: 'arn:aws:rds:eu-west-1:123456789012:cluster:ariadne-db',
  },
  DATABASE_SECRET_ARN: {
    readBy: ['lambda'],
    setBy: 'platform',
    meaning: "Set by the stack with DATABASE_CLUSTER_ARN: the Secrets Manager secret of the cluster's credentials.",
    example: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ariadne-db-AbCdEf',
  },
  DATABASE_READER_SECRET_ARN: {
    readBy: ['lambda'],
    setBy: 'platform',
    meaning:
      "Set by the stack on the migrations' function: the secret of the researchers' read-only role, whose password " +
      'the migrations set after every deploy.',
    example: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ariadne-reader-AbCdEf',
  },
  DATABASE_NAME: {
    readBy: ['lambda'],
    setBy: 'platform',
    meaning: 'Set by the stack with DATABASE_CLUSTER_ARN: the database in the cluster.',
    default: 'ariadne',
  },
  MIGRATIONS_DIR: {
    readBy: ['lambda'],
    setBy: 'platform',
    meaning: "Set by the stack on the migrations function: where the bundle's SQL files are.",
    default: 'migrations/ of the checkout',
    example: '/var/task/migrations',
  },
  PARAMETER_PREFIX: {
    readBy: ['lambda'],
    setBy: 'platform',
    meaning: 'Set by the stack: the Parameter Store path the functions read their settings under.',
    default: '/ariadne',
  },
  PARAMETER_TTL_MS: {
    readBy: ['lambda'],
    setBy: 'user',
    meaning: 'How long a function keeps the parameters it read before reading them again, in milliseconds.',
    default: '60000',
  },
  OLLAMA_HOST: {
    readBy: ['cli', 'lambda'],
    setBy: 'user',
    meaning: 'The Ollama server, when neither the experiment nor the parameters name one.',
    default: 'http://127.0.0.1:11434',
    example: 'http://gpu-box:11434',
  },
  OLLAMA_API_KEY: {
    readBy: ['cli', 'lambda'],
    setBy: 'user',
    meaning: 'Sent as a bearer token to Ollama (a hosted or proxied server), unless the experiment carries its own.',
  },
  OPENAI_BASE_URL: {
    readBy: ['cli', 'lambda'],
    setBy: 'user',
    meaning:
      'The OpenAI-compatible server (its /v1 URL), when neither the experiment nor the parameters name one ' +
      '(config.openai.base_url).',
    default: 'http://127.0.0.1:8000/v1',
    example: 'http://gpu-box:8000/v1',
  },
  OPENAI_API_KEY: {
    readBy: ['cli', 'lambda'],
    setBy: 'user',
    meaning:
      'Sent as a bearer token to the OpenAI-compatible server, unless the parameters hold ' +
      '<prefix>-secrets/openai_api_key.',
  },
  ARIADNE_PARAMETERS: {
    readBy: ['cli'],
    setBy: 'user',
    meaning: 'The local stand-in for Parameter Store: a YAML file of settings (it must exist when set).',
    default: 'config/parameters.yaml of the checkout',
    example: './my-parameters.yaml',
  },
  ARIADNE_DATA_DIR: {
    readBy: ['cli', 'rehearsal'],
    setBy: 'user',
    meaning: "The embedded Postgres's data directory, kept across runs.",
    default:
      '$XDG_DATA_HOME/ariadne/postgres, else ~/.local/share/ariadne/postgres (as root /var/lib/ariadne/postgres)',
  },
  ARIADNE_LOG_DIR: {
    readBy: ['cli'],
    setBy: 'user',
    meaning:
      'Where run, resume and sweep append their JSON log lines (ariadne-<UTC date>.jsonl, one line per turn and ' +
      'per experiment event, the fields the Lambda functions log); --verbose also streams them to stderr.',
    default: "logs/ beside the embedded Postgres's data directory (~/.local/share/ariadne/logs)",
    example: './ariadne-logs',
  },
  ARIADNE_OUTPUT_DIR: {
    readBy: ['cli'],
    setBy: 'user',
    meaning: 'Where reports, replays and exports are written, when no --out-dir is given.',
    default: 'ariadne-output',
  },
  ARIADNE_DEBUG: {
    readBy: ['cli'],
    setBy: 'user',
    meaning: 'Any value: an unforeseen error prints its stack too.',
    example: '1',
  },
  ARIADNE_NO_NODE_WARNING: {
    readBy: ['cli'],
    setBy: 'user',
    meaning: 'Any value but 0: no line about an old Node version on stderr.',
    example: '1',
  },
  ARIADNE_SWEEP_BUCKET: {
    readBy: ['cli'],
    setBy: 'user',
    meaning: "The S3 bucket a sweep on AWS is uploaded to, when no --bucket is given (the stack's SweepBucketName).",
  },
  ARIADNE_SWEEP_STATE_MACHINE_ARN: {
    readBy: ['cli'],
    setBy: 'user',
    meaning: 'The sweep state machine to start, when no --state-machine-arn is given (SweepStateMachineArn).',
  },
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: {
    readBy: ['cli', 'rehearsal', 'bench'],
    setBy: 'platform',
    meaning: "The AWS SDK's switch for its Node version warning; set to true unless already set (Node < 22).",
    default: 'true',
  },
  AWS_REGION: {
    readBy: ['cli', 'lambda'],
    setBy: 'platform',
    meaning: 'The Region (set by Lambda in a function): doctor checks it, RegisterSweep sizes sweeps by it.',
    default: 'your AWS profile',
    example: 'eu-west-1',
  },
  AWS_LAMBDA_FUNCTION_NAME: {
    readBy: ['lambda', 'rehearsal'],
    setBy: 'platform',
    meaning: 'Set by Lambda: code runs in a deployment (a loopback Ollama host and an ungranted model are refused).',
  },
  AWS_LAMBDA_FUNCTION_VERSION: {
    readBy: ['rehearsal'],
    setBy: 'platform',
    meaning: "Set by Lambda; the rehearsal's stand-in runtime (lambda-bootstrap.mjs) puts it in the context object.",
  },
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: {
    readBy: ['rehearsal'],
    setBy: 'platform',
    meaning: "Set by Lambda: the context object's memoryLimitInMB, in the rehearsal's stand-in runtime.",
  },
  AWS_LAMBDA_LOG_GROUP_NAME: {
    readBy: ['rehearsal'],
    setBy: 'platform',
    meaning: "Set by Lambda: the context object's logGroupName, in the rehearsal's stand-in runtime.",
  },
  AWS_LAMBDA_LOG_STREAM_NAME: {
    readBy: ['rehearsal'],
    setBy: 'platform',
    meaning: "Set by Lambda: the context object's logStreamName, in the rehearsal's stand-in runtime.",
  },
  LAMBDA_TASK_ROOT: {
    readBy: ['rehearsal'],
    setBy: 'platform',
    meaning: "Set by Lambda: the function's code directory, where the rehearsal's stand-in runtime loads the handler.",
  },
  _HANDLER: {
    readBy: ['rehearsal'],
    setBy: 'platform',
    meaning: "Set by Lambda: the function's handler (module.export), which the rehearsal's stand-in runtime calls.",
  },
  AWS_ACCESS_KEY_ID: {
    readBy: ['bench'],
    setBy: 'platform',
    meaning: "The AWS SDK's credentials; the provider benchmark sets `sim` (its simulators) unless set.",
  },
  AWS_SECRET_ACCESS_KEY: {
    readBy: ['bench'],
    setBy: 'platform',
    meaning: 'With AWS_ACCESS_KEY_ID.',
  },
  CDK_DEFAULT_ACCOUNT: {
    readBy: ['cdk app'],
    setBy: 'platform',
    meaning: "Set by the CDK CLI from your credentials: the stack's account (unset: an environment-agnostic stack).",
  },
  CDK_DEFAULT_REGION: {
    readBy: ['cdk app'],
    setBy: 'platform',
    meaning: "Set by the CDK CLI from your profile: the stack's Region.",
  },
  INIT_CWD: {
    readBy: ['cli'],
    setBy: 'platform',
    meaning: 'Set by npm: the directory `npm run ariadne` was typed in, which relative paths are resolved against.',
    default: 'the current directory',
  },
  npm_lifecycle_event: {
    readBy: ['cli'],
    setBy: 'platform',
    meaning: 'Set by npm: the CLI runs under `npm run` or npx, so the commands its hints print start the same way.',
  },
  npm_lifecycle_script: {
    readBy: ['cli'],
    setBy: 'platform',
    meaning: 'Set by npm: the script it runs (under npx, the command).',
  },
  npm_package_name: {
    readBy: ['cli'],
    setBy: 'platform',
    meaning: "Set by npm: the package whose script runs (this checkout's, or a user's own).",
  },
  XDG_CACHE_HOME: {
    readBy: ['cli'],
    setBy: 'platform',
    meaning: 'Where the note of the last Node version notice is kept (ariadne/node-version-notice).',
    default: '~/.cache',
  },
  XDG_DATA_HOME: {
    readBy: ['cli', 'rehearsal'],
    setBy: 'platform',
    meaning: "Where the embedded Postgres's data directory is, when ARIADNE_DATA_DIR is unset.",
    default: '~/.local/share',
  },
  HOME: {
    readBy: ['rehearsal'],
    setBy: 'platform',
    meaning: "Passed on to the rehearsal's Lambda processes (their environment is otherwise Lambda's own).",
  },
  PATH: {
    readBy: ['rehearsal'],
    setBy: 'platform',
    meaning: "Passed on to the rehearsal's Lambda processes.",
  },
  BENCH_DATABASE_URL: {
    readBy: ['bench'],
    setBy: 'user',
    meaning: 'The Postgres server the benchmarks use instead of a throwaway embedded one.',
    example: 'postgres://ariadne:secret@localhost:5432/ariadne',
  },
  BENCH_ACTIONS: {
    readBy: ['bench'],
    setBy: 'user',
    meaning: 'How many actions the large experiment of the results-over-AWS benchmark has (a whole number >= 1).',
    default: '1000000',
  },
  BENCH_ENGINE_ACTIONS: {
    readBy: ['bench'],
    setBy: 'user',
    meaning: "How many actions the engine benchmark's experiment takes (max_moves; a whole number >= 100).",
    default: '10000',
  },
  BENCH_SOAK_RUNS: {
    readBy: ['bench'],
    setBy: 'user',
    meaning:
      "How many baseline runs the chaos soak's sweep has (a whole number >= 100; rounded to 50 per repeat); its " +
      'model sweep has 40 more.',
    default: '1000',
  },
  BENCH_LOAD_ACTIONS: {
    readBy: ['bench'],
    setBy: 'user',
    meaning: 'How many actions each baseline experiment of the load benchmark takes (a whole number >= 100).',
    default: '2000',
  },
  BENCH_PAIRED_RUNS: {
    readBy: ['bench'],
    setBy: 'user',
    meaning: "How many runs the paired statistics benchmark's sweep of two baselines holds (a whole number >= 200).",
    default: '10000',
  },
  BENCH_SEARCH_ACTIONS: {
    readBy: ['bench'],
    setBy: 'user',
    meaning: 'How many actions the transcript-search benchmark searches (a whole number >= 1000).',
    default: '1000000',
  },
  BENCH_SUMMARY_ACTIONS: {
    readBy: ['bench'],
    setBy: 'user',
    meaning: "How many actions the sweep statistics benchmark's 1,000 runs hold (a whole number >= 10000).",
    default: '1000000',
  },
  BENCH_VIEWER_ACTIONS: {
    readBy: ['bench'],
    setBy: 'user',
    meaning: "How many actions the viewer benchmark's sweep of 1,000 runs holds (a whole number >= 20000).",
    default: '1000000',
  },
  BENCH_RESULTS_AWS_CHILD: {
    readBy: ['bench'],
    setBy: 'platform',
    meaning: 'Set by the results-over-AWS benchmark for its own child processes: the job a child runs.',
  },
  TEST_DATABASE_URL: {
    readBy: ['tests'],
    setBy: 'user',
    meaning: 'Runs the suite against this server instead of an embedded one (the user needs CREATE on the database).',
    example: 'postgres://user:pass@host:5432/db',
  },
  CHROMIUM_PATH: {
    readBy: ['tests'],
    setBy: 'user',
    meaning: 'The Chromium the page tests drive.',
    default: "Debian's chromium package",
    example: '/usr/bin/chromium',
  },
} as const satisfies Record<string, EnvironmentVariable>;

export type EnvironmentVariableName = keyof typeof VARIABLES;

/** The table, in its order: the docs page and the test read it. */
export function environmentVariables(): Array<EnvironmentVariable & { name: EnvironmentVariableName }> {
  return Object.entries(VARIABLES).map(([name, row]) => ({ name: name as EnvironmentVariableName, ...row }));
}

type Environment = NodeJS.ProcessEnv;

/** The variable's value; an empty one counts as unset (as `X= command` in a shell means). */
export function envString(name: EnvironmentVariableName, env: Environment = process.env): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The variable as a whole number of at least `min`, or undefined when unset; anything else is refused naming the
 * variable, its value and the fix.
 */
export function envInteger(name: EnvironmentVariableName, env: Environment = process.env, min = 0): number | undefined {
  const text = envString(name, env);
  if (text === undefined) return undefined;
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isSafeInteger(value) || value < min)
    throw new InvalidInputError(
      name,
      text,
      `${name} is "${text}"; it must be a whole number of at least ${min}: set it to one, or unset it ` +
        `for the default (${(VARIABLES[name] as EnvironmentVariable).default ?? 'none'})`,
    );
  return value;
}

/** Sets the variable (for code that reads it later: the AWS SDK, child processes) unless it is set already. */
export function envDefault(name: EnvironmentVariableName, value: string, env: Environment = process.env): void {
  env[name] ??= value;
}
