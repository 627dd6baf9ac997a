// Published protocols as data (examples/protocols/): NAME.yaml is a sweep of the switches closest to a paper's
// protocol, NAME.published.yaml beside it the paper's numbers, each with its source and the group of the sweep it is
// compared with, what the paper fixed, what differs here and what the sources read did not give. Loaded whole and
// checked, every problem at once by YAML path and line. `ariadne replicate` reads them.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { experimentConfigSchema } from '../core/config/experiment-config.ts';
import { readYaml, YamlFileError, type YamlProblem } from '../core/config/yaml-paths.ts';
import { InvalidInputError } from '../core/errors.ts';
import { loadSweep, SweepDefinitionError, type LoadedSweep } from '../core/sweeps/sweep-spec.ts';
import { checkFactors } from './factors.ts';

/** Where the protocols this installation ships live. */
export const PROTOCOLS_DIR = resolve(import.meta.dirname, '..', 'examples', 'protocols');
const PUBLISHED_SUFFIX = '.published.yaml';
const NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

const sourceSchema = z
  .object({
    title: z.string().min(1),
    authors: z.array(z.string().min(1)).min(1),
    year: z.number().int().min(1900).max(2100),
    arxiv: z
      .string()
      .regex(/^\d{4}\.\d{4,5}$/, 'an arXiv id such as 2507.20395')
      .optional(),
    url: z.string().url(),
    venue: z.string().min(1).optional(),
    /** What of the source was read for this file (the abstract only, the full text, the code's config...). */
    read: z.string().min(1),
  })
  .strict();

/** A selector value: a factor's value as the statistics group by it (reports/factors.ts). */
const factorValue = z.union([z.string(), z.number(), z.boolean()]);

const numberSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'an id: lower-case letters, digits and -'),
    /** The published number in words: who, on what, under which condition. */
    claim: z.string().min(1),
    /** The model as the source names it. */
    model: z.string().min(1),
    /** A success rate, as a proportion. */
    value: z.number().min(0).max(1),
    successes: z.number().int().min(0).optional(),
    n: z.number().int().min(1).optional(),
    /** Where n comes from, when not from where the value is. */
    n_source: z.string().min(1).optional(),
    /** A key of `sources`. */
    source: z.string().min(1),
    /** Where in the source: table, figure, section, abstract. */
    where: z.string().min(1),
    /** The group of our sweep it is compared with: factor -> value (label, observation, maze_size, ...). */
    ours: z.record(z.string(), factorValue).refine((o) => Object.keys(o).length > 0, 'name at least one factor'),
    /** What differs for this number in particular (the protocol's differences apply to every number). */
    differs: z.array(z.string().min(1)).default([]),
  })
  .strict();

const protocolSchema = z
  .object({
    protocol: z.string().regex(NAME, 'a protocol name: lower-case letters, digits, - or _'),
    title: z.string().min(1),
    sources: z.record(z.string(), sourceSchema).refine((s) => Object.keys(s).length > 0, 'name at least one source'),
    /** What the paper fixed: mazes, representation, step cap, success rule, models..., each in words. */
    fixed: z.record(z.string(), z.string().min(1)),
    published: z.array(numberSchema).min(1),
    /** What differs in Ariadne's protocol from the paper's. */
    differences: z.array(z.string().min(1)).min(1),
    /** What the sources read did not give (numbers left out, protocol facts not found). */
    gaps: z.array(z.string().min(1)).default([]),
  })
  .strict();

export type PublishedNumber = z.output<typeof numberSchema>;
type ProtocolFile = z.output<typeof protocolSchema>;

export interface Protocol extends ProtocolFile {
  /** The protocol file and its sweep file. */
  file: string;
  sweepFile: string;
  sweep: LoadedSweep;
}

/** A protocol file that cannot be used. */
export class ProtocolDefinitionError extends YamlFileError {
  override readonly name = 'ProtocolDefinitionError';
  constructor(problems: YamlProblem[], source: string) {
    super('protocol', problems, source);
  }
}

type Cell = LoadedSweep['cells'][number];

/** A cell's value of a factor: a run column (label, agent, model, maze_generator, maze_size) or a config setting. */
function cellValue(cell: Cell, factor: string): unknown {
  const columns: Record<string, unknown> = {
    label: cell.label,
    agent: cell.agent,
    model: cell.model,
    maze_generator: cell.generator,
    maze_size: cell.size,
  };
  if (factor in columns) return columns[factor];
  const config = experimentConfigSchema.parse(cell.config) as unknown;
  return factor
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | null)?.[key] ?? null, config);
}

/** Whether a value as the statistics give it (a setting's text from a snapshot) is the selector's value. */
export const sameValue = (a: unknown, b: unknown): boolean => String(a) === String(b);

const matchesCell = (cell: Cell, ours: Record<string, unknown>) =>
  Object.entries(ours).every(([factor, value]) => sameValue(cellValue(cell, factor), value));

/** The sweep beside a protocol file (NAME.yaml beside NAME.published.yaml), loaded, or its problem reported. */
function sweepBeside(file: string, report: (path: Array<string | number>, problem: string) => void) {
  const sweepFile = file.slice(0, -PUBLISHED_SUFFIX.length) + '.yaml';
  try {
    return { sweepFile, sweep: loadSweep(readFileSync(sweepFile, 'utf8'), sweepFile) };
  } catch (e) {
    if (e instanceof SweepDefinitionError) report([], `its sweep ${basename(sweepFile)} is not valid: ${e.message}`);
    else if ((e as NodeJS.ErrnoException).code === 'ENOENT') report([], `no sweep file beside it: ${sweepFile}`);
    else throw e;
    return { sweepFile, sweep: null };
  }
}

/** Every number names a listed source, has an id of its own, agrees with its successes/n, and matches our sweep. */
function checkNumbers(
  { items, piece, report }: ReturnType<typeof readYaml<typeof protocolSchema>>,
  sweep: LoadedSweep | null,
): void {
  const sources = piece(['sources'], z.record(z.string(), z.unknown())) ?? {};
  const ids = new Set<string>();
  for (const [i, p] of items(['published'], numberSchema)) {
    if (!Object.hasOwn(sources, p.source))
      report(['published', i, 'source'], `"${p.source}" is not one of the sources: ${Object.keys(sources).join(', ')}`);
    if (ids.has(p.id)) report(['published', i, 'id'], `two numbers share the id "${p.id}"`);
    ids.add(p.id);
    if (p.successes !== undefined && p.n === undefined)
      report(['published', i, 'successes'], 'successes without n: give the n they are of');
    if (p.successes !== undefined && p.n !== undefined && Math.abs(p.successes / p.n - p.value) > 0.005)
      report(['published', i, 'value'], `${p.value} is not ${p.successes}/${p.n}`);
    try {
      checkFactors(Object.keys(p.ours));
    } catch (e) {
      if (!(e instanceof InvalidInputError)) throw e;
      report(['published', i, 'ours'], e.message.replace(/^--by /, ''));
      continue;
    }
    if (sweep && !sweep.cells.some((c) => matchesCell(c, p.ours)))
      report(['published', i, 'ours'], `matches no cell of the sweep ${sweep.spec.sweep}: ${JSON.stringify(p.ours)}`);
  }
}

/** A protocol file (NAME.published.yaml) and the sweep beside it, checked whole. */
export function loadProtocolFile(file: string): Protocol {
  const text = readFileSync(file, 'utf8');
  const yaml = readYaml(text, protocolSchema, (problems) => new ProtocolDefinitionError(problems, file));
  const name = yaml.piece(['protocol'], z.string());
  if (name !== undefined && `${name}${PUBLISHED_SUFFIX}` !== basename(file))
    yaml.report(
      ['protocol'],
      `"${name}" is not the file's name: ${basename(file)} holds protocol "${basename(file, PUBLISHED_SUFFIX)}"`,
    );
  const { sweepFile, sweep } = sweepBeside(file, yaml.report);
  checkNumbers(yaml, sweep);
  return { ...yaml.done(), file, sweepFile, sweep: sweep! };
}

/** The protocols shipped in examples/protocols/, by name. */
export function protocolNames(dir = PROTOCOLS_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(PUBLISHED_SUFFIX))
    .map((f) => f.slice(0, -PUBLISHED_SUFFIX.length))
    .sort();
}

/** A protocol by name: examples/protocols/NAME.published.yaml and the sweep NAME.yaml beside it. */
export function findProtocol(name: string, dir = PROTOCOLS_DIR): Protocol {
  const names = protocolNames(dir);
  if (!NAME.test(name) || !names.includes(name))
    throw new InvalidInputError(
      'protocol',
      name,
      `no protocol named "${name}"; known: ${names.join(', ')} (or give the path of a file ending ${PUBLISHED_SUFFIX})`,
    );
  return loadProtocolFile(join(dir, `${name}${PUBLISHED_SUFFIX}`));
}

/** Whether a command-line argument is a protocol file's path rather than a name. */
export const isProtocolPath = (arg: string): boolean => arg.endsWith(PUBLISHED_SUFFIX);
