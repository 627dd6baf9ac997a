// Named, versioned maze suites (suites/*.json): fixed generators, sizes and seeds with every maze's hash and optima,
// the config the suite is played under, and the baselines' reference scores. Two labs' numbers compare only on the
// same mazes under the same rules: verifySuite regenerates every maze and compares hashes. Files are completed by
// bin/make-suite-reference.ts; their mazes never change (a changed generator makes a new version). Imported, not
// read from disk, so the RegisterSweep bundle can look suites up.
import { z } from 'zod';
import ariadneMazesV1 from '../../suites/ariadne-mazes-v1.json' with { type: 'json' };
import { experimentConfigSchema, partialConfigSchema } from '../config/experiment-config.ts';
import { findForbiddenKey } from '../config/forbidden-keys.ts';
import { preview, valueAt } from '../config/zod-errors.ts';
import { InvalidInputError } from '../errors.ts';
import { checkMazeSpec, GENERATOR_NAMES, generateMaze, MAX_SIZE, MIN_SIZE } from './generators/index.ts';
import { MazeInputError } from './errors.ts';
import { mixSeed } from './rng.ts';

/** The suites this installation knows, by their file in the repository. */
const REGISTERED: Array<{ file: string; json: unknown }> = [
  { file: 'suites/ariadne-mazes-v1.json', json: ariadneMazesV1 },
];

const SUITE_FORMAT = 'ariadne-maze-suite';

/** The reference's agents: the baselines, which need no model, so that anyone can make their scores again. */
export const REFERENCE_AGENTS = ['random', 'frontier'] as const;

/**
 * The config keys a suite must fix: every rule a run is played under. One left out would take each lab's own
 * default or parameter, and two labs' runs would no longer be played by the same rules.
 */
const REQUIRED_CONFIG = [
  'max_moves',
  'max_turns',
  'max_actions_per_turn',
  'vision_range',
  'see_through',
  'success_rule',
  'stuck_policy',
] as const;

/**
 * The config keys a suite must not fix: a wall-clock stop depends on the serving stack (a slow server and a fast one
 * would score differently on the same moves), so it is infrastructure, not a rule of the game; a suite caps moves
 * and turns, and a run stopped by max_duration_minutes is counted apart, as an error is.
 */
const INFRASTRUCTURE_CONFIG = ['max_duration_minutes'] as const;

// 24 characters at most, so that the reference sweep's name (`<name>-v<version>-reference`) is a sweep name
const NAME_HELP = 'a suite name: 1-24 lower-case letters, digits, - or _, starting with a letter or digit';
const generator = z.enum(GENERATOR_NAMES as [string, ...string[]]);
const size = z.number().int().min(MIN_SIZE).max(MAX_SIZE);
const seed = z.number().int().min(0).max(0xffffffff);
const proportion = z.number().min(0).max(1);

/** The part of a suite file a person writes; the rest is computed from it. */
const definitionShape = {
  format: z.literal(SUITE_FORMAT, { error: `a suite file starts with "format": "${SUITE_FORMAT}"` }),
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,23}$/, NAME_HELP),
  version: z.number().int().min(1).max(999),
  description: z.string().min(1).max(2_000),
  generators: z.array(generator).min(1).max(20),
  sizes: z.array(size).min(1).max(20),
  seeds: z.array(seed).min(1).max(1_000),
  config: z.record(z.string(), z.unknown()),
};

const mazeSchema = z
  .object({
    generator,
    size,
    seed,
    hash: z.string().regex(/^[0-9a-f]{64}$/, "a maze's content hash: 64 lower-case hex digits (SHA-256)"),
    shortest_path: z.number().int().min(1),
    shortest_path_to_sight: z.number().int().min(0),
  })
  .strict();

/** One agent's scores over a set of mazes, as reports/sweep-statistics.ts counts them. */
const statsShape = {
  n: z.number().int().min(0),
  successes: z.number().int().min(0),
  success_rate: proportion.nullable(),
  wilson95_low: proportion.nullable(),
  wilson95_high: proportion.nullable(),
  /** Optimal moves / actions, over the successes. */
  mean_efficiency: z.number().min(0).nullable(),
  mean_actions: z.number().min(0).nullable(),
};
const agentReferenceSchema = z
  .object({
    overall: z.object(statsShape).strict(),
    groups: z.array(z.object({ generator, size, ...statsShape }).strict()),
  })
  .strict();

const madeWithSchema = z
  .object({
    ariadne_version: z.string().min(1).max(40),
    /** The commit checked out when the scores were made, and whether the code below differed from it. */
    commit: z.string().min(1).max(100),
    code_changed_since_commit: z.boolean(),
    /**
     * SHA-256 over the code that decides the scores (bin/suite-code.ts: its files, each as path, length, bytes):
     * test/maze-suites.test.ts checks it is this code's.
     */
    code_hash: z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256: 64 lower-case hex digits'),
    /** The files it is over. */
    code_files: z.array(z.string().min(1)).min(1),
    /** The sweep that made the scores: its name seeds the random agent, so it is part of the recipe. */
    sweep_name: z.string(),
    /** The sweep file, line by line. */
    sweep: z.array(z.string()).min(1),
    command: z.string().min(1),
  })
  .strict();

const floorShape = {
  mazes: z.number().int().min(1),
  success_rate: proportion,
  sd: z.number().min(0),
  low: proportion,
  high: proportion,
  gap95: proportion,
};
/**
 * How far the random baseline's success moves between sets of runs on these mazes (reports/noise-floor.ts): made
 * from `repeats` runs of every maze, each seeded by the suite, the maze and the repeat (noiseRunSeed).
 */
const noiseFloorSchema = z
  .object({
    agent: z.literal('random'),
    repeats: z.number().int().min(2),
    resamples: z.number().int().min(100),
    seed: z.number().int(),
    overall: z.object(floorShape).strict(),
    groups: z.array(z.object({ generator, size, ...floorShape }).strict()),
    /** Each maze's successes of its `repeats` runs, in the order of `mazes`: a pilot for `ariadne plan`. */
    successes: z.array(z.number().int().min(0)),
  })
  .strict();

/**
 * People's scores on the suite's mazes (reports/human-reference.ts), shipped in the file by `ariadne suite
 * record-humans`: a row per player and for all players, by observation format, overall (generator and size 'all')
 * and by generator and size. `interval` says what low95/high95 are: Wilson's where each maze was played once in the
 * row, the maze-level interval (Korn-Graubard, reports/maze-inference.ts) where a maze was played by several players.
 */
const humanRowSchema = z
  .object({
    player: z.string().nullable(),
    observation: z.string().min(1),
    generator: z.union([generator, z.literal('all')]),
    size: z.union([size, z.literal('all')]),
    mazes: z.number().int().min(0),
    n: z.number().int().min(0),
    successes: z.number().int().min(0),
    success_rate: proportion.nullable(),
    low95: proportion.nullable(),
    high95: proportion.nullable(),
    interval: z.enum(['wilson', 'maze']),
    mean_efficiency: z.number().min(0).nullable(),
    mean_actions: z.number().min(0).nullable(),
  })
  .strict();
const humanReferenceSchema = z
  .object({
    rows: z.array(humanRowSchema),
    /** Games not counted: a maze played again (practice), ended by an error or the wall clock, another maze. */
    left_out: z
      .object({ replayed: z.number().int(), not_by_the_rules: z.number().int(), not_the_suites_maze: z.number().int() })
      .strict(),
    recorded_at: z.iso.datetime(),
    ariadne_version: z.string().min(1).max(40),
    command: z.string().min(1),
  })
  .strict();

const contentsShape = {
  mazes: z.array(mazeSchema),
  reference: z.object({ random: agentReferenceSchema, frontier: agentReferenceSchema }).strict(),
  noise_floor: noiseFloorSchema,
  reference_made_with: madeWithSchema,
  human_reference: humanReferenceSchema.optional(),
};

export type SuiteDefinition = z.output<z.ZodObject<typeof definitionShape>>;
type Ctx = z.core.$RefinementCtx;

const listed = (what: string, value: unknown) => `${what} ${JSON.stringify(value)} is listed twice`;

/** Each generator builds each size, nothing is listed twice, and the config is a valid config fixing every rule. */
function checkDefinition(s: SuiteDefinition, ctx: Ctx): void {
  for (const key of ['generators', 'sizes', 'seeds'] as const)
    (s[key] as unknown[]).forEach((v, i) => {
      if ((s[key] as unknown[]).indexOf(v) !== i)
        ctx.addIssue({ code: 'custom', path: [key, i], input: v, message: listed(key.slice(0, -1), v) });
    });
  for (const g of s.generators)
    s.sizes.forEach((n, i) => {
      try {
        checkMazeSpec({ generator: g, width: n, height: n, seed: 0 });
      } catch (e) {
        if (!(e instanceof MazeInputError)) throw e;
        ctx.addIssue({ code: 'custom', path: ['sizes', i], input: n, message: `${g} ${n}: ${e.message}` });
      }
    });
  const forbidden = findForbiddenKey(s.config);
  const given = partialConfigSchema.safeParse(s.config);
  const whole = given.success ? experimentConfigSchema.safeParse(s.config) : given;
  if (forbidden) ctx.addIssue({ code: 'custom', path: ['config', ...forbidden], message: 'a forbidden key' });
  else if (!whole.success)
    for (const issue of whole.error.issues)
      ctx.addIssue({ code: 'custom', path: ['config', ...issue.path], message: issue.message });
  for (const key of REQUIRED_CONFIG)
    if (!Object.hasOwn(s.config, key))
      ctx.addIssue({
        code: 'custom',
        path: ['config', key],
        message: `a suite fixes ${key}: left out, each lab's own default or parameter would apply`,
      });
  for (const key of INFRASTRUCTURE_CONFIG)
    if (Object.hasOwn(s.config, key))
      ctx.addIssue({
        code: 'custom',
        path: ['config', key],
        message:
          `a suite does not fix ${key}: a wall-clock stop depends on the serving stack, not the game; ` +
          'remove it (a suite caps moves and turns)',
      });
}

const mazeKey = (m: { generator: string; size: number; seed?: number }) =>
  m.seed === undefined ? `${m.generator} ${m.size}` : `${m.generator} ${m.size} seed ${m.seed}`;

/** Every maze of generators x sizes x seeds once, each a different maze; the reference over exactly them. */
function checkContents(s: SuiteDefinition & z.output<z.ZodObject<typeof contentsShape>>, ctx: Ctx): void {
  const wanted = new Set(
    s.generators.flatMap((g) =>
      s.sizes.flatMap((n) => s.seeds.map((d) => mazeKey({ generator: g, size: n, seed: d }))),
    ),
  );
  const seen = new Map<string, number>();
  const hashes = new Map<string, number>();
  s.mazes.forEach((m, i) => {
    const key = mazeKey(m);
    if (!wanted.has(key))
      ctx.addIssue({ code: 'custom', path: ['mazes', i], message: `${key} is not one of generators x sizes x seeds` });
    else if (seen.has(key))
      ctx.addIssue({ code: 'custom', path: ['mazes', i], message: `${key} is listed twice (mazes.${seen.get(key)})` });
    if (hashes.has(m.hash))
      ctx.addIssue({
        code: 'custom',
        path: ['mazes', i, 'hash'],
        message: `${key} is the same maze as mazes.${hashes.get(m.hash)}: a suite's mazes differ`,
      });
    seen.set(key, i);
    hashes.set(m.hash, i);
  });
  const missing = [...wanted].filter((k) => !seen.has(k));
  if (missing.length > 0)
    ctx.addIssue({
      code: 'custom',
      path: ['mazes'],
      message: `${missing.length} mazes of generators x sizes x seeds are missing: ${missing.slice(0, 5).join(', ')}`,
    });
  for (const agent of REFERENCE_AGENTS) {
    const ref = s.reference[agent];
    const groups = new Set(s.generators.flatMap((g) => s.sizes.map((n) => mazeKey({ generator: g, size: n }))));
    ref.groups.forEach((g, i) => {
      const path = ['reference', agent, 'groups', i];
      if (!groups.delete(mazeKey(g)))
        ctx.addIssue({
          code: 'custom',
          path,
          message: `${mazeKey(g)}: not a generator and size of the suite, or twice`,
        });
      else if (g.n !== s.seeds.length)
        ctx.addIssue({ code: 'custom', path: [...path, 'n'], message: `one run per seed: n is ${s.seeds.length}` });
      if (g.successes > g.n) ctx.addIssue({ code: 'custom', path: [...path, 'successes'], message: 'more than n' });
    });
    if (groups.size > 0)
      ctx.addIssue({
        code: 'custom',
        path: ['reference', agent, 'groups'],
        message: `no scores for ${[...groups].join(', ')}`,
      });
    const sum = ref.groups.reduce((k, g) => k + g.successes, 0);
    if (ref.overall.n !== s.mazes.length || ref.overall.successes !== sum)
      ctx.addIssue({
        code: 'custom',
        path: ['reference', agent, 'overall'],
        message: `the groups add up to n ${s.mazes.length} with ${sum} successes`,
      });
  }
  if (s.reference_made_with.sweep_name !== referenceSweepName(s))
    ctx.addIssue({
      code: 'custom',
      path: ['reference_made_with', 'sweep_name'],
      message: `the reference sweep of ${suiteRef(s)} is named ${referenceSweepName(s)}`,
    });
}

const draftSchema = z
  .object({
    ...definitionShape,
    mazes: contentsShape.mazes.optional(),
    reference: z.unknown().optional(),
    noise_floor: z.unknown().optional(),
    reference_made_with: z.unknown().optional(),
    human_reference: humanReferenceSchema.optional(),
  })
  .strict()
  .superRefine(checkDefinition);

const suiteSchema = z
  .object({ ...definitionShape, ...contentsShape })
  .strict()
  .superRefine((s, ctx) => {
    checkDefinition(s, ctx);
    checkContents(s, ctx);
  });

export type MazeSuite = z.output<typeof suiteSchema>;
type SuiteDraft = z.output<typeof draftSchema>;
export type SuiteMaze = MazeSuite['mazes'][number];
export type AgentReference = MazeSuite['reference']['random'];
export type ReferenceStats = AgentReference['overall'];
export type ShippedHumanReference = NonNullable<MazeSuite['human_reference']>;
export type HumanReferenceRow = ShippedHumanReference['rows'][number];

/** Every problem zod found, each with its field's path and the value given there, in one InvalidInputError. */
function parseWith<S extends z.ZodType>(schema: S, input: unknown, source: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const field = (path: readonly PropertyKey[]) => path.map(String).join('.') || '(the whole file)';
  const lines = issues
    .slice(0, 12)
    .map((i) => `  ${field(i.path)}: ${i.message} (got ${preview(valueAt(input, i.path))})`);
  if (issues.length > 12) lines.push(`  ... and ${issues.length - 12} more`);
  throw new InvalidInputError(
    field(issues[0].path),
    valueAt(input, issues[0].path),
    `${source} is not a valid maze suite:\n${lines.join('\n')}`,
  );
}

/** A whole suite file's content, checked: every problem is named by its field (InvalidInputError). */
export function parseSuite(input: unknown, source: string): MazeSuite {
  return parseWith(suiteSchema, input, source);
}

/** The hand-written part of a suite file, whatever else it holds yet (bin/make-suite-reference.ts fills it in). */
export function parseSuiteDraft(input: unknown, source: string): SuiteDraft {
  return parseWith(draftSchema, input, source);
}

/**
 * A number as a suite file keeps it, to six decimals: the sums behind a mean may add up in another order on another
 * day, never this far apart. Null stays null.
 */
export function suiteNumber<T extends number | null>(x: T): T {
  return (x === null ? null : Math.round(x * 1e6) / 1e6) as T;
}

/** How a suite is named: `<name>/v<version>`, e.g. ariadne-mazes/v1. */
export const suiteRef = (s: { name: string; version: number }) => `${s.name}/v${s.version}`;

/** The sweep that makes a suite's reference scores: its name seeds the random agent's runs. */
export const referenceSweepName = (s: { name: string; version: number }) => `${s.name}-v${s.version}-reference`;

/** The random agent's seed for run `repeat` of a maze in the noise floor: the suite, the maze and the repeat alone. */
export const noiseRunSeed = (s: { name: string; version: number }, maze: SuiteMaze, repeat: number) =>
  mixSeed(`${s.name}-v${s.version}-noise`, maze.generator, maze.size, maze.seed, repeat);

/**
 * The sweep file that makes a suite's reference scores: each baseline once on every maze, under the suite's config.
 * Run with runLocalSweep (or `ariadne sweep`), it gives the same runs anywhere: the agent seeds derive from its name.
 */
export function referenceSweepText(s: SuiteDefinition): string {
  const list = (xs: unknown[]) => `[${xs.join(', ')}]`;
  return [
    `sweep: ${referenceSweepName(s)}`,
    `description: ${JSON.stringify(`the reference scores of the maze suite ${suiteRef(s)}`)}`,
    'agents:',
    ...REFERENCE_AGENTS.map((a) => `  - { agent: ${a} }`),
    'mazes:',
    `  generators: ${list(s.generators)}`,
    `  sizes: ${list(s.sizes)}`,
    `  seeds: ${list(s.seeds)}`,
    'config:',
    ...Object.entries(s.config).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`),
    'repeats: 1',
    'max_concurrency: 8',
    '',
  ].join('\n');
}

/** The reference sweep's file as the suite records it (line by line, so that the suite file keeps to 120 columns). */
export const recordedSweepText = (s: MazeSuite) => `${s.reference_made_with.sweep.join('\n')}\n`;

/** Every maze of a suite's generators x sizes x seeds, generated here, in that order. */
export function suiteMazeEntries(s: Pick<SuiteDefinition, 'generators' | 'sizes' | 'seeds'>): SuiteMaze[] {
  return s.generators.flatMap((g) =>
    s.sizes.flatMap((n) =>
      s.seeds.map((d) => {
        const maze = generateMaze({ generator: g, width: n, height: n, seed: d });
        return {
          generator: g,
          size: n,
          seed: d,
          hash: maze.hash,
          shortest_path: maze.shortestPath,
          shortest_path_to_sight: maze.shortestPathToSight,
        };
      }),
    ),
  );
}

export interface SuiteMismatch {
  /** "perfect 21 seed 3" */
  maze: string;
  field: 'maze' | 'hash' | 'shortest_path' | 'shortest_path_to_sight';
  /** What the suite file says, and what this installation generates (null: it generates no maze). */
  suite: string | number;
  here: string | number | null;
  message: string;
}

/** Every maze of the suite generated again and compared with the file: each difference (none: identical). */
export function verifySuite(s: Pick<MazeSuite, 'mazes'>): SuiteMismatch[] {
  const out: SuiteMismatch[] = [];
  for (const m of s.mazes) {
    const maze = mazeKey(m);
    let here: SuiteMaze;
    try {
      [here] = suiteMazeEntries({ generators: [m.generator], sizes: [m.size], seeds: [m.seed] });
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      out.push({ maze, field: 'maze', suite: m.hash, here: null, message: `${maze}: not generated here: ${why}` });
      continue;
    }
    for (const field of ['hash', 'shortest_path', 'shortest_path_to_sight'] as const)
      if (here[field] !== m[field])
        out.push({
          maze,
          field,
          suite: m[field],
          here: here[field],
          message: `${maze}: ${field} is ${here[field]} here, the suite has ${m[field]}`,
        });
  }
  return out;
}

export interface RegisteredSuite {
  ref: string;
  /** Its file in the repository. */
  file: string;
  suite: MazeSuite;
}

let registry: RegisteredSuite[] | undefined;

/** The suites this installation knows, each checked once (a broken file is an error naming it and its field). */
export function listSuites(): RegisteredSuite[] {
  registry ??= REGISTERED.map(({ file, json }) => {
    const suite = parseSuite(json, file);
    const name = `${suite.name}-v${suite.version}.json`;
    if (!file.endsWith(`/${name}`))
      throw new InvalidInputError('file', file, `${file} holds the suite ${suiteRef(suite)}: name it ${name}`);
    return { ref: suiteRef(suite), file, suite };
  });
  return registry;
}

/** A suite by its `<name>/v<version>`; InvalidInputError naming the suites there are when there is none. */
export function findSuite(ref: string): RegisteredSuite {
  const suites = listSuites();
  const found = suites.find((s) => s.ref === ref);
  if (found) return found;
  const known = suites.map((s) => s.ref).join(', ');
  const form = /^[a-z0-9][a-z0-9_-]*\/v\d+$/.test(ref) ? '' : ' (a suite is named <name>/v<version>)';
  throw new InvalidInputError('suite', ref, `unknown maze suite "${ref}"${form}; known suites: ${known}`);
}

/** What a sweep takes from a suite: its mazes (each with its hash, to check) and the config its runs are played by. */
export function suiteMazes(ref: string): {
  generators: string[];
  sizes: number[];
  seeds: number[];
  config: Record<string, unknown>;
  mazes: Array<{ generator: string; size: number; seed: number; hash: string }>;
} {
  const { suite } = findSuite(ref);
  return {
    generators: [...suite.generators],
    sizes: [...suite.sizes],
    seeds: [...suite.seeds],
    config: structuredClone(suite.config),
    mazes: suite.mazes.map(({ generator: g, size: n, seed: d, hash }) => ({ generator: g, size: n, seed: d, hash })),
  };
}
