// A sweep: agents x maze generators x sizes x seeds x settings, each cell run `repeats` times. The file is validated in
// full before anything runs, every problem reported at once by its YAML path and line. Cells and runs are a pure
// function of the spec, so running a sweep again finds the same experiment ids: finished runs are skipped,
// interrupted ones resumed, failed ones tried again as a new attempt.
import { isDeepStrictEqual } from 'node:util';
import { suiteMazes } from '../maze/suites.ts';
import { InvalidInputError } from '../errors.ts';
import { baselineObservationProblem, isLlmAgent } from '../providers/llm-agents.ts';
import { isHuman } from '../providers/human.ts';
import { isForbiddenKey } from '../config/forbidden-keys.ts';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { experimentConfigSchema, mergeConfig, type ExperimentConfigInput } from '../config/experiment-config.ts';
import { readYaml, YamlFileError, type YamlFile, type YamlProblem } from '../config/yaml-paths.ts';
import { checkMazeSpec, GENERATOR_NAMES, MAX_SIZE, MIN_SIZE } from '../maze/generators/index.ts';
import { MazeInputError } from '../maze/errors.ts';
import { mixSeed } from '../maze/rng.ts';
import { AGENTS, SWEEP_ID_PATTERN, type StartExecutionInput } from '../machine/contracts.ts';

/** The agents a sweep runs: all but a person (agent human), who plays one game at a time (ariadne play). */
const SWEEP_AGENTS = AGENTS.filter((a) => !isHuman(a));

const agentSchema = z
  .object({
    agent: z.enum(SWEEP_AGENTS as unknown as [string, ...string[]]),
    model: z.string().min(1).max(200).optional(),
    /** A label for tables and charts; default the model, else the agent. */
    label: z
      .string()
      .regex(/^[A-Za-z0-9._:/-]{1,60}$/)
      .optional(),
    config: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine((a) => !isLlmAgent(a.agent) || a.model !== undefined, {
    message: 'agent "ollama", "bedrock" and "openai" need a "model"',
    path: ['model'],
  });

// the pieces the checks on top of the shape read on their own (see loadSweep)
const generatorSchema = z.enum(GENERATOR_NAMES as [string, ...string[]]);
// the range here, so that a size out of range is one problem, not one per generator
const SIZE_RANGE = `a maze size is a whole number from ${MIN_SIZE} to ${MAX_SIZE}`;
const sizeSchema = z.number().int(SIZE_RANGE).min(MIN_SIZE, SIZE_RANGE).max(MAX_SIZE, SIZE_RANGE);
/** A setting's key: a config key, or section.key (a dotted key sets one key of a section); none reaching prototypes. */
const settingKey = z
  .string()
  .refine((k) => !k.split('.').some(isForbiddenKey), 'a part of this key could reach object prototypes; rename it');
const settingsSchema = z.record(settingKey, z.array(z.unknown()).min(1).max(20)).default({});
const configSchema = z.record(z.string(), z.unknown()).default({});
const repeatsSchema = z.number().int().min(1).max(100).default(1);

const sweepSchema = z
  .object({
    sweep: z.string().regex(SWEEP_ID_PATTERN, 'a sweep name: 1-40 lower-case letters, digits, - or _'),
    description: z.string().max(2_000).optional(),
    agents: z.array(agentSchema).min(1).max(50),
    mazes: z
      .object({
        generators: z.array(generatorSchema).min(1).max(20),
        sizes: z.array(sizeSchema).min(1).max(20),
        seeds: z.array(z.number().int().min(0).max(0xffffffff)).min(1).max(1_000),
      })
      .strict()
      .optional(),
    /**
     * A versioned maze suite (suites/, core/maze/suites.ts: "ariadne-mazes/v1") instead of mazes: its mazes, and
     * the config its reference scores were made under, which the sweep may add to but not change.
     */
    suite: z.string().max(100).optional(),
    /** Config keys, each with a list of values: every combination is a cell. */
    settings: settingsSchema,
    /** Config every run shares. */
    config: configSchema,
    repeats: repeatsSchema,
    max_concurrency: z.number().int().min(1).max(1_000).default(4),
    /**
     * What the sweep's runs may spend in all (state-machine/local-sweep.ts): once their spend reached it, no further
     * run starts and the runs in flight stop before their next model call (stop reason max_cost_usd or max_tokens),
     * so it is passed by at most one model call per run in flight. A cost budget needs every model's price (refused
     * at start otherwise). Enforced by the local runner only: on AWS it is not. Not part of the sweep's identity:
     * raising it goes on.
     */
    /**
     * A sweep of forks (ariadne fork, state-machine runs it locally): each run continues the run of sweep `from` on
     * its maze and repeat after step `at` (each step listed is a cell setting, fork_at, so the statistics and
     * compare split and pair by it); `label` picks the source cell where `from` ran several agents on a maze;
     * `repeats`, the runs of each cell on each maze (the sweep's repeats, given here or there).
     */
    forks: z
      .object({
        from: z.string().regex(SWEEP_ID_PATTERN, 'the name of a sweep run before'),
        at: z.array(z.number().int().min(1).max(1_000_000)).min(1).max(20),
        label: z.string().max(200).optional(),
        repeats: repeatsSchema.optional(),
      })
      .strict()
      .optional(),
    /**
     * Stop starting runs once two agents' comparison is decided (reports/sequential-stop.ts): an anytime-valid
     * confidence sequence for success(a) - success(b), over the mazes in the order the sweep runs them (each maze's
     * runs together), looked at after every maze. The mazes listed are the most it runs. Local runner only.
     */
    stop_when: z
      .object({
        compare: z.tuple([z.string().min(1).max(200), z.string().min(1).max(200)]),
        confidence: z.number().min(0.5).max(0.999).default(0.95),
        min_mazes: z.number().int().min(1).max(100_000).default(6),
      })
      .strict()
      .optional(),
    budget: z
      .object({
        max_cost_usd: z.number().positive().max(10_000_000).optional(),
        max_tokens: z.number().int().positive().max(1e13).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** A sweep as loaded: its mazes always listed (a suite's filled in), the suite it named kept in `suite`. */
type SweepSpec = z.output<typeof sweepSchema> & { mazes: NonNullable<z.output<typeof sweepSchema>['mazes']> };

/** A sweep file that cannot be used. */
export class SweepDefinitionError extends YamlFileError {
  override readonly name = 'SweepDefinitionError';
  constructor(problems: YamlProblem[], source: string) {
    super('sweep', problems, source);
  }
}

interface SweepCell {
  index: number;
  /** Human-readable and stable, e.g. "frontier | medium 21 seed 1 | vision_range=3". */
  key: string;
  label: string;
  agent: string;
  model: string | null;
  generator: string;
  size: number;
  seed: number;
  /** The cell's settings as registered: its config's combination, and fork_at for a sweep of forks. */
  settings: Record<string, unknown>;
  config: ExperimentConfigInput;
}

export interface SweepRun {
  cell: SweepCell;
  repeat: number;
}

export interface LoadedSweep {
  spec: SweepSpec;
  text: string;
  hash: string;
  cells: SweepCell[];
  runs: SweepRun[];
}

function product(settings: Record<string, unknown[]>): Array<Record<string, unknown>> {
  return Object.entries(settings).reduce<Array<Record<string, unknown>>>(
    (combos, [key, values]) => combos.flatMap((c) => values.map((v) => ({ ...c, [key]: v }))),
    [{}],
  );
}

const MAX_RUNS = 100_000;

/**
 * A combination of settings as config: a dotted key (openai.reasoning_effort) sets that key of its section, which
 * mergeConfig then merges key by key with the section the sweep's and the agent's config give.
 */
function settingsConfig(combo: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(combo)) {
    const [section, ...rest] = key.split('.');
    if (rest.length === 0) out[key] = value;
    else out[section] = { ...(out[section] as Record<string, unknown> | undefined), [rest.join('.')]: value };
  }
  return out;
}

/** The config keys a config issue is about: each unknown key, else the key its path starts with. */
const issueKeys = (issue: z.core.$ZodIssue): string[] =>
  issue.code === 'unrecognized_keys' && issue.path.length === 0 ? issue.keys : [String(issue.path[0] ?? '')];

type SweepFile = YamlFile<z.output<typeof sweepSchema>>;
type Suite = ReturnType<typeof suiteMazes>;
type Settings = z.output<typeof settingsSchema>;

/**
 * Validates the whole file, reporting every problem at once (SweepDefinitionError), then lists its cells and runs.
 * Each check on top of the shape reads only the pieces it needs, so a problem in one piece does not hide one in
 * another; a check whose pieces are invalid is skipped (their problems are already reported).
 */
export function loadSweep(text: string, source = 'file'): LoadedSweep {
  const file = readYaml(text, sweepSchema, (problems) => new SweepDefinitionError(problems, source));
  const suite = checkSuite(file);
  checkMazes(file);
  const agents = checkAgents(file);
  checkStopRule(file, agents);
  const settings = file.piece(['settings'], settingsSchema);
  const comboCount = settings ? Object.values(settings).reduce((n, values) => n * values.length, 1) : null;
  checkSize(file, suite, comboCount);
  checkForkRepeats(file);
  const config = file.piece(['config'], configSchema);
  if (suite) checkSuiteConfig(file, suite, { config, agents, settings });
  if (settings && config && agents.length * (comboCount ?? 0) <= MAX_RUNS)
    checkConfigs(file, suite, { config, agents, settings });
  const read = file.done();
  const spec: SweepSpec = suite
    ? {
        ...read,
        mazes: { generators: suite.generators, sizes: suite.sizes, seeds: suite.seeds },
        config: { ...suite.config, ...read.config },
      }
    : { ...read, mazes: read.mazes! };
  spec.repeats = read.forks?.repeats ?? read.repeats;
  const cells = listCells(spec);
  return {
    spec,
    text,
    // the budget is how far to go, not what is measured: a sweep keeps its name when it is raised
    hash: createHash('sha256')
      .update(JSON.stringify({ ...spec, budget: undefined }))
      .digest('hex'),
    cells,
    runs: cells.flatMap((cell) => Array.from({ length: spec.repeats }, (_, repeat) => ({ cell, repeat: repeat + 1 }))),
  };
}

/** A sweep of forks gives its repeats once: in forks, or at the top. */
function checkForkRepeats({ piece, report }: SweepFile): void {
  const inForks = piece(['forks', 'repeats'], z.unknown());
  const top = piece(['repeats'], z.unknown());
  if (inForks !== undefined && top !== undefined)
    report(
      ['forks', 'repeats'],
      `give repeats once: forks.repeats ${JSON.stringify(inForks)} or repeats ${JSON.stringify(top)}`,
    );
}

/** A suite gives the mazes and the config its reference was made under; the file may add to that config only. */
function checkSuite({ piece, report }: SweepFile): Suite | null {
  const suiteRef = piece(['suite'], z.string().optional());
  if (suiteRef === undefined) {
    if (piece(['mazes'], z.unknown()) === undefined)
      report(['mazes'], 'required: the mazes (generators, sizes, seeds), or a suite (suite: ariadne-mazes/v1)');
    return null;
  }
  if (piece(['mazes'], z.unknown()) !== undefined)
    report(['mazes'], `give mazes or suite, not both: suite ${suiteRef} lists its own mazes`);
  try {
    return suiteMazes(suiteRef);
  } catch (e) {
    if (!(e instanceof InvalidInputError)) throw e;
    report(['suite'], e.message);
    return null;
  }
}

/** Every generator can build every size (each valid generator with each valid size). */
function checkMazes({ items, report }: SweepFile): void {
  const sizes = items(['mazes', 'sizes'], sizeSchema);
  for (const [g, generator] of items(['mazes', 'generators'], generatorSchema))
    for (const [s, size] of sizes) {
      try {
        checkMazeSpec({ generator, width: size, height: size, seed: 0 });
      } catch (e) {
        if (!(e instanceof MazeInputError)) throw e;
        report(
          e.field === 'maze' ? ['mazes', 'generators', g] : ['mazes', 'sizes', s],
          `${generator} ${size}: ${e.message}`,
        );
      }
    }
}

/** The valid agents, each label once. */
function checkAgents({ items, report }: SweepFile): Array<[number, z.output<typeof agentSchema>]> {
  const agents = items(['agents'], agentSchema);
  const labels = new Set<string>();
  for (const [ai, a] of agents) {
    const label = a.label ?? a.model ?? a.agent;
    if (labels.has(label)) report(['agents', ai], `two agents share the label "${label}"; give one a "label"`);
    labels.add(label);
  }
  return agents;
}

/** stop_when compares two of the sweep's agents on the same mazes, and the sweep varies nothing else. */
function checkStopRule({ piece, report }: SweepFile, agents: Array<[number, z.output<typeof agentSchema>]>): void {
  const compare = piece(['stop_when', 'compare'], z.array(z.string()).optional());
  if (!compare) return;
  const labels = agents.map(([, a]) => a.label ?? a.model ?? a.agent);
  compare.forEach((label, i) => {
    if (!labels.includes(label))
      report(['stop_when', 'compare', i], `"${label}" is not an agent of the sweep: one of ${labels.join(', ')}`);
  });
  if (compare[0] === compare[1]) report(['stop_when', 'compare'], 'compare two different agents');
  const settings = piece(['settings'], z.record(z.string(), z.array(z.unknown())).optional()) ?? {};
  const varied = Object.entries(settings).filter(([, values]) => values.length > 1);
  if (varied.length > 0 || piece(['forks'], z.unknown()) !== undefined)
    report(
      ['stop_when'],
      `stop_when compares two agents over mazes: the sweep may vary nothing else (it varies ` +
        `${[...varied.map(([k]) => k), ...(piece(['forks'], z.unknown()) ? ['fork_at'] : [])].join(', ')})`,
    );
}

/** The size: counted, not listed, so that a huge product of settings is refused without being built. */
function checkSize({ piece, report }: SweepFile, suite: Suite | null, comboCount: number | null): void {
  const runs = [
    piece(['agents'], z.array(z.unknown())),
    suite?.generators ?? piece(['mazes', 'generators'], z.array(z.unknown())),
    suite?.sizes ?? piece(['mazes', 'sizes'], z.array(z.unknown())),
    suite?.seeds ?? piece(['mazes', 'seeds'], z.array(z.unknown())),
    piece(['forks', 'at'], z.array(z.unknown())) ?? [null],
  ].reduce<number | null>((n, list) => (n === null || !list ? null : n * list.length), comboCount);
  const repeats = piece(['forks', 'repeats'], repeatsSchema.optional()) ?? piece(['repeats'], repeatsSchema);
  if (runs !== null && repeats !== undefined && runs * repeats > MAX_RUNS)
    report(['repeats'], `${runs} cells x ${repeats} repeats is more than 100,000 runs`);
}

interface ConfigLayers {
  config: z.output<typeof configSchema> | undefined;
  agents: Array<[number, z.output<typeof agentSchema>]>;
  settings: Settings | undefined;
}

/** A suite's config is fixed: the file, an agent or a swept setting may not change one of its values. */
function checkSuiteConfig({ piece, report }: SweepFile, suite: Suite, { config, agents, settings }: ConfigLayers) {
  const fixed = suite.config;
  const suiteRef = piece(['suite'], z.string().optional());
  const refuse = (where: Array<string | number>, key: string) =>
    report(
      [...where, key],
      `suite ${suiteRef} fixes ${key} ${JSON.stringify(fixed[key])} (its reference scores were made under it); ` +
        `remove ${key}, or run the mazes without the suite`,
    );
  for (const key of Object.keys(config ?? {}))
    if (Object.hasOwn(fixed, key) && !isDeepStrictEqual(config![key], fixed[key])) refuse(['config'], key);
  for (const [ai, a] of agents)
    for (const key of Object.keys(a.config ?? {}))
      if (Object.hasOwn(fixed, key) && !isDeepStrictEqual(a.config![key], fixed[key]))
        refuse(['agents', ai, 'config'], key);
  // a setting the sweep varies is never the suite's one value
  for (const key of Object.keys(settings ?? {})) if (Object.hasOwn(fixed, key.split('.')[0])) refuse(['settings'], key);
}

/**
 * Every config a run would get is valid: once per agent and combination of settings (not per cell: the maze does
 * not change the config); each problem reported in the layer that set the key.
 */
function checkConfigs({ report }: SweepFile, suite: Suite | null, { config, agents, settings }: ConfigLayers): void {
  for (const [ai, a] of agents)
    for (const combo of product(settings!)) {
      const checked = experimentConfigSchema.safeParse(
        mergeConfig(suite?.config, config, a.config, settingsConfig(combo)),
      );
      if (checked.success) {
        const problem = baselineObservationProblem(a.agent, checked.data.observation);
        const where = 'observation' in combo ? ['settings', 'observation'] : ['agents', ai, 'agent'];
        if (problem) report(where, problem);
        continue;
      }
      for (const issue of checked.error.issues)
        for (const key of issueKeys(issue)) {
          const swept = Object.keys(combo).find((k) => k === key || k.startsWith(`${key}.`));
          const where = swept
            ? ['settings', swept]
            : a.config && Object.hasOwn(a.config, key)
              ? ['agents', ai, 'config', key]
              : ['config', key];
          report(
            where,
            issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : `${key}: not a config key`,
          );
        }
    }
}

/** Every cell: agent x generator x size x seed x combination of settings (x fork point), in that order. */
function listCells(spec: SweepSpec): SweepCell[] {
  const forkPoints: Array<number | null> = spec.forks ? spec.forks.at : [null];
  const combos = product(spec.settings).flatMap((settings) =>
    forkPoints.map((at) => ({ settings, registered: at === null ? settings : { ...settings, fork_at: at } })),
  );
  const cells: SweepCell[] = [];
  for (const a of spec.agents) {
    const label = a.label ?? a.model ?? a.agent;
    for (const generator of spec.mazes.generators)
      for (const size of spec.mazes.sizes)
        for (const seed of spec.mazes.seeds)
          for (const { settings, registered } of combos) {
            const settingText = Object.entries(registered)
              .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
              .join(' ');
            cells.push({
              index: cells.length,
              key: [label, `${generator} ${size} seed ${seed}`, settingText].filter(Boolean).join(' | '),
              label,
              agent: a.agent,
              model: a.model ?? null,
              generator,
              size,
              seed,
              settings: registered,
              config: mergeConfig(spec.config, a.config, settingsConfig(settings)),
            });
          }
  }
  return cells;
}

/** The experiment id of a run's attempt: stable, so a rerun finds it (at most 64 characters). */
export function sweepExperimentId(sweep: string, run: SweepRun, attempt: number): string {
  return `${sweep}-c${run.cell.index}-r${run.repeat}${attempt > 1 ? `-a${attempt}` : ''}`;
}

/** The StartExecution input of one run: the same on a laptop and in the AWS sweep machine. */
export function sweepRunInput(sweep: string, run: SweepRun, attempt: number): StartExecutionInput {
  const { cell } = run;
  return {
    experimentId: sweepExperimentId(sweep, run, attempt),
    agent: cell.agent,
    ...(cell.model ? { model: cell.model } : {}),
    // repeats of a random agent differ; everything else about a cell is fixed
    agentSeed: mixSeed(sweep, cell.index, run.repeat),
    maze: { generator: cell.generator, size: cell.size, seed: cell.seed },
    config: cell.config,
    sweep: { id: sweep, cell: cell.index, repeat: run.repeat, attempt },
  };
}
