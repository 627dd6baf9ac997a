// The CLI's options, defined once: parsers that name the option, the value and
// the valid choices, and the option sets several commands share (the maze, the
// experiment, --json, --endpoint).
import { Command, Option } from 'commander';
import { InvalidInputError } from '../../core/errors.ts';
import { GENERATOR_NAMES, MAX_SIZE, MIN_SIZE } from '../../core/maze/generators/index.ts';
import { defaultText, expectedText, FLAGGED_SETTINGS, type SettingRow } from '../../core/config/settings-table.ts';
import { BASELINE_AGENTS, BASELINE_NAMES } from '../../core/providers/baselines.ts';
import { LLM_AGENTS, MODEL_EXAMPLES, type LlmAgent } from '../../core/providers/llm-agents.ts';

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

export function numberOption(option: string, min: number, max: number) {
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
  agentSeed?: number;
  experimentId?: string;
  /** The settings with a flag of their own (FLAGGED_SETTINGS), by their option key (--max-moves: maxMoves). */
  [setting: string]: unknown;
}

/** How commander keys a flag's value in the options object: --max-moves -> maxMoves. */
export const optionKey = (flag: string) => new Option(flag).attributeName();

/** The setting rows behind one flag (--stream sets ollama.stream or openai.stream, by provider). */
const rowsOfFlag = (flag: string) => FLAGGED_SETTINGS.filter((r) => r.flag === flag);

/**
 * The help text's "(default: ...)": the option itself gets no default value, since a value would always be sent and
 * override the parameters file (or Parameter Store), which wins otherwise.
 */
function defaultHelp(rows: readonly SettingRow[]): string {
  const [row] = rows;
  const parameter = rows.map((r) => `/ariadne/config/${r.path.replace('.', '/')}`).join(' or ');
  return `(default: ${parameter}, else ${row.env ? `$${row.env}, else ` : ''}${defaultText(row)})`;
}

/** How a setting's flag text is read: the shared number and choice parsers, which name the flag and the range. */
function flagReader(row: SettingRow): (raw: string) => unknown {
  const flag = row.flag!;
  if (row.kind === 'integer') return intOption(flag, row.min!, row.max!);
  if (row.kind === 'number') return numberOption(flag, row.min!, row.max!);
  if (row.kind === 'choice') {
    const read = choiceOption(flag, row.choices!.map(String));
    return (raw) => row.choices!.find((c) => String(c) === read(raw));
  }
  return (raw) => (row.fromFlag ? row.fromFlag(raw) : raw);
}

/** A setting's flag parser: the text read as its kind reads it, then checked by the setting's own schema. */
function settingParser(row: SettingRow) {
  const read = flagReader(row);
  return (raw: string): unknown => {
    const value = read(raw);
    const parsed = row.schema.safeParse(value);
    if (parsed.success) return value;
    const flag = row.flag!;
    throw new InvalidInputError(flag, raw, `${flag} "${raw}": ${parsed.error.issues[0]?.message ?? expectedText(row)}`);
  };
}

/** The option of one flagged setting, its help made from the setting's description, range and default. */
function settingOption(flag: string): Option {
  const rows = rowsOfFlag(flag);
  const [row] = rows;
  const range =
    row.kind === 'integer' || row.kind === 'number' || row.kind === 'choice' ? `; ${expectedText(row)}` : '';
  const help = `${row.description}${range} ${defaultHelp(rows)}`;
  if (row.kind === 'boolean') return new Option(flag, help);
  const placeholder = row.placeholder ?? (row.kind === 'integer' || row.kind === 'number' ? 'n' : 'value');
  return new Option(`${flag} <${placeholder}>`, help).argParser(settingParser(row));
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

/** Records which options the command line gave (givenOptions). */
function trackGivenOptions(cmd: Command): Command {
  // commander's opts() is the very object the action receives, so it keys what was given.
  return cmd.hook('preAction', (_program, action) => {
    const given = action.options
      .map((o) => o.attributeName())
      .filter((key) => action.getOptionValueSource(key) === 'cli');
    givenByOptions.set(action.opts(), new Set(given));
  });
}

/**
 * The setting flags a person's game takes (ariadne play): every flagged setting that reaches no model provider's
 * section alone, less `skip` (settings that change nothing for a person, such as --cache).
 */
export function addPlaySettingOptions(cmd: Command, rows: readonly SettingRow[]): Command {
  trackGivenOptions(cmd);
  for (const flag of new Set(rows.map((r) => r.flag!))) cmd.addOption(settingOption(flag));
  return cmd;
}

/** The options that describe one experiment, shared by run and launch. */
export function addExperimentOptions(cmd: Command): Command {
  trackGivenOptions(cmd);
  const agents = BASELINE_NAMES.map((n) => `${n} (${BASELINE_AGENTS[n]})`).join('; ');
  addMazeOptions(cmd)
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
    .addOption(
      new Option('--agent-seed <n>', 'seed of the random agent (default: derived from the experiment id)').argParser(
        intOption('--agent-seed', 0, SEED_MAX),
      ),
    );
  for (const flag of new Set(FLAGGED_SETTINGS.map((r) => r.flag!))) cmd.addOption(settingOption(flag));
  return cmd.option('--experiment-id <id>', 'experiment id (default: derived from the execution)');
}
