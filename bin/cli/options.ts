// The CLI's options, defined once: parsers that name the option, the value and
// the valid choices, and the option sets several commands share (the maze, the
// experiment, --json, --endpoint).
import { Command, Option } from 'commander';
import { InvalidInputError } from '../../core/errors.ts';
import { GENERATOR_NAMES, MAX_SIZE, MIN_SIZE } from '../../core/maze/generators/index.ts';
import {
  DEFAULT_CONFIG,
  OBSERVATION_FORMATS,
  STUCK_POLICIES,
  SUCCESS_RULES,
  type ExperimentConfig,
} from '../../core/config/experiment-config.ts';
import { BASELINE_AGENTS, BASELINE_NAMES } from '../../core/providers/baselines.ts';
import { LLM_AGENTS, MODEL_EXAMPLES, type LlmAgent } from '../../core/providers/llm-agents.ts';
import { PROMPTS } from '../../core/config/prompts.ts';

/** commander's collector for a repeatable option (--set a=1 --set b=2). */
export function collectRepeated(raw: string, previous: string[] = []): string[] {
  return [...previous, raw];
}

export function intOption(option: string, min: number, max: number) {
  return (raw: string): number => {
    const text = raw.trim();
    if (!/^-?\d+$/.test(text))
      throw new InvalidInputError(option, raw, `${option} must be a whole number from ${min} to ${max}, got "${raw}"`);
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidInputError(option, raw, `${option} must be a whole number from ${min} to ${max}, got ${text}`);
    return n;
  };
}

function numberOption(option: string, min: number, max: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max)
      throw new InvalidInputError(option, raw, `${option} must be a number from ${min} to ${max}, got "${raw}"`);
    return n;
  };
}

export function choiceOption<T extends string>(option: string, choices: readonly T[]) {
  return (raw: string): T => {
    if (!(choices as readonly string[]).includes(raw)) {
      throw new InvalidInputError(option, raw, `${option} "${raw}" is not one of: ${choices.join(', ')}`);
    }
    return raw as T;
  };
}

const SEED_MAX = 0xffffffff;

/** --json: every command that has it prints one JSON document on stdout instead of text. */
export function jsonOption(description = 'print the result as JSON on stdout'): Option {
  return new Option('--json', description);
}

/** --verbose: the run's JSON log lines (always appended to the log file: bin/cli/run-log.ts) also go to stderr. */
export function verboseOption(): Option {
  return new Option(
    '--verbose',
    'stream the JSON log lines (one per turn, one per experiment event) to stderr as well; they are always appended ' +
      'to ariadne-<UTC date>.jsonl in $ARIADNE_LOG_DIR (default: logs/ beside the embedded database, ' +
      '~/.local/share/ariadne/logs)',
  );
}

/** --endpoint: a Step Functions endpoint instead of the regional one. */
export function endpointOption(
  description = 'Step Functions endpoint override (a simulator or a VPC endpoint)',
): Option {
  return new Option('--endpoint <url>', description);
}

export interface MazeOptions {
  maze: string;
  size: number;
  seed: number;
  mazeFile?: string;
}

/** The options that choose a maze: a generator, its size and seed, or a file. */
export function addMazeOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--maze <generator>', 'maze generator (see `ariadne mazes`)')
        .default('medium')
        .argParser(choiceOption('--maze', GENERATOR_NAMES)),
    )
    .addOption(
      new Option('--size <n>', `square maze side, ${MIN_SIZE}-${MAX_SIZE}`)
        .default(30)
        .argParser(intOption('--size', MIN_SIZE, MAX_SIZE)),
    )
    .addOption(new Option('--seed <n>', 'maze seed').default(7).argParser(intOption('--seed', 0, SEED_MAX)))
    .option(
      '--maze-file <path>',
      'use a maze from a JSON file ({"grid": [[0,1,2,...]], "start": {"x":1,"y":1}}) instead of a generator',
    );
}

export interface ExperimentOptions extends MazeOptions {
  agent: string;
  provider?: LlmAgent;
  model?: string;
  ollamaHost?: string;
  openaiBaseUrl?: string;
  stream?: boolean;
  region?: string;
  bedrockEndpoint?: string;
  promptVersion?: string;
  agentSeed?: number;
  maxMoves?: number;
  maxTurns?: number;
  maxDurationMinutes?: number;
  maxActionsPerTurn?: number;
  visionRange?: number;
  seeThrough?: boolean;
  successRule?: (typeof SUCCESS_RULES)[number];
  recallInterval?: number;
  maxRecallActions?: number;
  stuckPolicy?: (typeof STUCK_POLICIES)[number];
  observation?: (typeof OBSERVATION_FORMATS)[number];
  experimentId?: string;
}

/** The experiment settings with an option of their own (scalars, so their default prints as it is). */
type SettingKey = keyof Pick<
  ExperimentConfig,
  | 'max_moves'
  | 'max_turns'
  | 'max_duration_minutes'
  | 'max_actions_per_turn'
  | 'vision_range'
  | 'success_rule'
  | 'recall_interval'
  | 'max_recall_actions'
  | 'prompt_version'
  | 'stuck_policy'
  | 'observation'
>;

/**
 * The help text's "(default: ...)" for a setting of the experiment config. The option itself gets no default
 * value: a value would always be sent and override the parameters file (or Parameter Store), which wins otherwise.
 */
function fromParameters(key: SettingKey): string {
  const otherwise =
    key === 'max_turns' ? 'derived: max_moves / max_actions_per_turn, at least 5000' : String(DEFAULT_CONFIG[key]);
  return `(default: /ariadne/config/${key}, else ${otherwise})`;
}

/** A setting of the experiment config: parsed here, its default shown in the help, the parameters file wins. */
function setting(flags: string, description: string, key: SettingKey, parse: (raw: string) => unknown): Option {
  return new Option(flags, `${description} ${fromParameters(key)}`).argParser(parse);
}

/** The options each parsed command was given on its command line (not filled in by a default). */
const givenByOptions = new WeakMap<object, ReadonlySet<string>>();

/**
 * The option keys (camelCase, as in the options object) the user gave: two options that contradict each other
 * are refused only when both were given, not when one of them is a default.
 */
export function givenOptions(options: object): ReadonlySet<string> {
  return givenByOptions.get(options) ?? new Set(Object.keys(options));
}

/** The options that describe one experiment, shared by run and launch. */
export function addExperimentOptions(cmd: Command): Command {
  // commander's opts() is the very object the action receives, so it keys what was given.
  cmd.hook('preAction', (_program, action) => {
    const given = action.options
      .map((o) => o.attributeName())
      .filter((key) => action.getOptionValueSource(key) === 'cli');
    givenByOptions.set(action.opts(), new Set(given));
  });
  const agents = BASELINE_NAMES.map((n) => `${n} (${BASELINE_AGENTS[n]})`).join('; ');
  return addMazeOptions(cmd)
    .addOption(
      new Option('--agent <name>', `agent: ${agents}`)
        .default('frontier')
        .argParser(choiceOption('--agent', BASELINE_NAMES)),
    )
    .addOption(
      new Option('--provider <name>', `run an LLM agent: ${LLM_AGENTS.join(', ')} (needs --model)`).argParser(
        choiceOption('--provider', LLM_AGENTS),
      ),
    )
    .option('--model <id>', `model name: e.g. ${LLM_AGENTS.map((p) => `${MODEL_EXAMPLES[p]} (${p})`).join(', ')}`)
    .option(
      '--ollama-host <url>',
      'Ollama server (default: $OLLAMA_HOST or http://127.0.0.1:11434); hosted Ollama reads its key from ' +
        '$OLLAMA_API_KEY',
    )
    .option(
      '--openai-base-url <url>',
      'OpenAI-compatible server, /v1 included (default: $OPENAI_BASE_URL or http://127.0.0.1:8000/v1); its key ' +
        'is read from $OPENAI_API_KEY',
    )
    .option('--stream', 'ask Ollama (NDJSON) or the OpenAI-compatible server (server-sent events) to stream replies')
    .option('--region <region>', 'AWS region for Bedrock (default: /ariadne/config/bedrock/region, else us-east-1)')
    .option('--bedrock-endpoint <url>', 'Bedrock Runtime endpoint override (a simulator or a VPC endpoint)')
    .addOption(
      setting(
        '--prompt-version <name>',
        `system prompt version (${Object.keys(PROMPTS).join(', ')})`,
        'prompt_version',
        (raw) => raw,
      ),
    )
    .addOption(
      new Option('--agent-seed <n>', 'seed of the random agent (default: derived from the experiment id)').argParser(
        intOption('--agent-seed', 0, SEED_MAX),
      ),
    )
    .addOption(
      setting('--max-moves <n>', 'stop after this many actions', 'max_moves', intOption('--max-moves', 1, 1_000_000)),
    )
    .addOption(
      setting(
        '--max-turns <n>',
        'stop after this many turns (stops an agent that replies without acting; max_moves must fit: ' +
          'at most max_turns x max_actions_per_turn)',
        'max_turns',
        intOption('--max-turns', 1, 1_000_000),
      ),
    )
    .addOption(
      setting(
        '--max-duration-minutes <n>',
        'stop after this long',
        'max_duration_minutes',
        numberOption('--max-duration-minutes', 0.01, 10080),
      ),
    )
    .addOption(
      setting(
        '--max-actions-per-turn <n>',
        'tool actions per turn',
        'max_actions_per_turn',
        intOption('--max-actions-per-turn', 1, 64),
      ),
    )
    .addOption(
      setting('--vision-range <n>', 'how far the agent sees', 'vision_range', intOption('--vision-range', 1, 50)),
    )
    .option('--see-through', 'see every tile within vision range, walls do not block')
    .addOption(
      setting(
        '--success-rule <rule>',
        'seen: the goal is in view; reached: the agent stands on it',
        'success_rule',
        choiceOption('--success-rule', SUCCESS_RULES),
      ),
    )
    .addOption(
      setting(
        '--recall-interval <n>',
        'actions between two recall_all calls',
        'recall_interval',
        intOption('--recall-interval', 0, 100_000),
      ),
    )
    .addOption(
      setting(
        '--max-recall-actions <n>',
        'how many recent actions recall_all covers',
        'max_recall_actions',
        intOption('--max-recall-actions', 1, 100_000),
      ),
    )
    .addOption(
      setting(
        '--stuck-policy <policy>',
        'observe: record stuck signals only; advise: tell the agent in its next prompt; halt: end the run as stuck',
        'stuck_policy',
        choiceOption('--stuck-policy', STUCK_POLICIES),
      ),
    )
    .addOption(
      setting(
        '--observation <format>',
        `what the model is shown: ${OBSERVATION_FORMATS.join(', ')} (image: a picture, for models that see)`,
        'observation',
        choiceOption('--observation', OBSERVATION_FORMATS),
      ),
    )
    .option('--experiment-id <id>', 'experiment id (default: derived from the execution)');
}
