// A sweep: agents x maze generators x sizes x seeds x settings, each cell run
// `repeats` times. The file is validated in full (every maze spec, every
// config value) before anything runs, each problem named by its YAML path.
// Cells and runs are a pure function of the spec, so running a sweep again
// finds the same experiment ids: finished runs are skipped, interrupted ones
// resumed, failed ones tried again as a new attempt.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  experimentConfigSchema,
  mergeConfig,
  type ExperimentConfigInput,
} from '../lambdas/config/experiment-config.ts';
import { readYaml, YamlFileError, type YamlProblem } from '../lambdas/config/yaml-paths.ts';
import { checkMazeSpec, GENERATOR_NAMES } from '../lambdas/maze/generators/index.ts';
import { MazeInputError } from '../lambdas/maze/errors.ts';
import { mixSeed } from '../lambdas/maze/rng.ts';
import { AGENTS, type StartExecutionInput } from './contracts.ts';

const agentSchema = z
  .object({
    agent: z.enum(AGENTS as unknown as [string, ...string[]]),
    model: z.string().min(1).max(200).optional(),
    /** A label for tables and charts; default the model, else the agent. */
    label: z
      .string()
      .regex(/^[A-Za-z0-9._:/-]{1,60}$/)
      .optional(),
    config: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine((a) => !['ollama', 'bedrock'].includes(a.agent) || a.model !== undefined, {
    message: 'agent "ollama" and "bedrock" need a "model"',
    path: ['model'],
  });

const sweepSchema = z
  .object({
    sweep: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'a sweep name: 1-40 lower-case letters, digits, - or _'),
    description: z.string().max(2_000).optional(),
    agents: z.array(agentSchema).min(1).max(50),
    mazes: z
      .object({
        generators: z
          .array(z.enum(GENERATOR_NAMES as [string, ...string[]]))
          .min(1)
          .max(20),
        sizes: z.array(z.number().int()).min(1).max(20),
        seeds: z.array(z.number().int().min(0).max(0xffffffff)).min(1).max(1_000),
      })
      .strict(),
    /** Config keys, each with a list of values: every combination is a cell. */
    settings: z.record(z.string(), z.array(z.unknown()).min(1).max(20)).default({}),
    /** Config every run shares. */
    config: z.record(z.string(), z.unknown()).default({}),
    repeats: z.number().int().min(1).max(100).default(1),
    max_concurrency: z.number().int().min(1).max(1_000).default(4),
  })
  .strict();

type SweepSpec = z.output<typeof sweepSchema>;

/** A sweep file that cannot be used. */
export class SweepDefinitionError extends YamlFileError {
  override readonly name = 'SweepDefinitionError';
  constructor(p: YamlProblem, source: string) {
    super('sweep', p.path, p.line, p.problem, source);
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

export function loadSweep(text: string, source = 'file'): LoadedSweep {
  const { value: spec, fail } = readYaml(text, sweepSchema, (p) => new SweepDefinitionError(p, source));
  spec.mazes.generators.forEach((generator, g) =>
    spec.mazes.sizes.forEach((size, s) => {
      try {
        checkMazeSpec({ generator, width: size, height: size, seed: 0 });
      } catch (e) {
        if (e instanceof MazeInputError)
          fail(
            e.field === 'maze' ? ['mazes', 'generators', g] : ['mazes', 'sizes', s],
            `${generator} ${size}: ${e.message}`,
          );
        throw e;
      }
    }),
  );
  const combos = product(spec.settings);
  const cells: SweepCell[] = [];
  const labels = new Set<string>();
  spec.agents.forEach((a, ai) => {
    const label = a.label ?? a.model ?? a.agent;
    if (labels.has(label)) fail(['agents', ai], `two agents share the label "${label}"; give one a "label"`);
    labels.add(label);
    for (const generator of spec.mazes.generators)
      for (const size of spec.mazes.sizes)
        for (const seed of spec.mazes.seeds) {
          for (const settings of combos) {
            const config = mergeConfig(spec.config, a.config, settings);
            const checked = experimentConfigSchema.safeParse(config);
            if (!checked.success) {
              const key = String(checked.error.issues[0].path[0] ?? '');
              const where = Object.hasOwn(settings, key)
                ? ['settings', key]
                : a.config && Object.hasOwn(a.config, key)
                  ? ['agents', ai, 'config', key]
                  : ['config', key];
              fail(where, `${checked.error.issues[0].path.join('.')}: ${checked.error.issues[0].message}`);
            }
            const settingText = Object.entries(settings)
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
              settings,
              config,
            });
          }
        }
  });
  if (cells.length * spec.repeats > 100_000)
    fail(['repeats'], `${cells.length} cells x ${spec.repeats} repeats is more than 100,000 runs`);
  const runs = cells.flatMap((cell) =>
    Array.from({ length: spec.repeats }, (_, repeat) => ({ cell, repeat: repeat + 1 })),
  );
  return { spec, text, hash: createHash('sha256').update(JSON.stringify(spec)).digest('hex'), cells, runs };
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
