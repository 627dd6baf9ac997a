// ariadne plan: the mazes and repeats a comparison of two agents needs to detect a difference with a given power,
// the maze as the cluster (reports/power-plan.ts), its maze model fitted to a pilot sweep or a suite's noise-floor
// runs, else stated defaults; turned around, the smallest difference a number of mazes or runs detects. It can write
// the sweep it recommends (adaptive with stop_when if asked) and estimate what that sweep would spend.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { findSuite } from '../../../core/maze/suites.ts';
import { loadSweep } from '../../../core/sweeps/sweep-spec.ts';
import type { Database } from '../../../core/store/database.ts';
import { DEFAULT_MAZE_SD, fitPilot, logit, type MazeCounts } from '../../../reports/pilot-fit.ts';
import { expit } from '../../../reports/maze-inference.ts';
import { detectableDifference, optionsTable, type MazeModel, type PlanOption } from '../../../reports/power-plan.ts';
import { estimateSweepSpend } from '../../../reports/spend-estimate.ts';
import { pilotCounts } from '../../../results/pilot-counts.ts';
import { requireSweep } from './results.ts';
import { withCliDatabase } from '../database.ts';
import { withExample } from '../help.ts';
import { localParameters } from '../local-parameters.ts';
import { jsonOption } from '../options.ts';
import { userDirectory } from '../output-dir.ts';

interface PlanOptions {
  difference?: string;
  power: string;
  level: string;
  repeats: string;
  pilot?: string;
  baseline?: string;
  candidate?: string;
  suite?: string;
  baseRate?: string;
  mazeSd?: string;
  mazes?: string;
  budgetRuns?: string;
  budgetUsd?: string;
  write?: string;
  compare?: string[];
  generator: string;
  size: string;
  adaptive?: boolean;
  json?: boolean;
}

/** A number of the option in (low, high), refused naming the option, the value and the range. */
function fraction(option: string, raw: string, low = 0, high = 1): number {
  const v = Number(raw);
  if (!(v > low && v < high))
    throw new InvalidInputError(option, raw, `${option} must be a number between ${low} and ${high}, got "${raw}"`);
  return v;
}

function whole(option: string, raw: string, min: number): number {
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min)
    throw new InvalidInputError(option, raw, `${option} must be a whole number from ${min}, got "${raw}"`);
  return v;
}

interface SourcedModel extends MazeModel {
  /** Where base and mazeSd came from, in words. */
  source: string;
}

/** Each maze's counts of one label in a pilot sweep, in maze order; refused naming the labels it has. */
function labelCounts(pilot: Awaited<ReturnType<typeof pilotCounts>>, option: string, label: string): MazeCounts[] {
  if (!pilot.labels.includes(label))
    throw new InvalidInputError(option, label, `${option} ${label}: the pilot's labels are ${pilot.labels.join(', ')}`);
  return [...pilot.mazes.values()].map((m) => m.get(label) ?? { successes: 0, runs: 0 });
}

/** base and mazeSd fitted to a pilot sweep's runs of its baseline label (and the candidate's, if named). */
async function pilotModel(db: Database, o: PlanOptions): Promise<SourcedModel> {
  await requireSweep(db, o.pilot!);
  const pilot = await pilotCounts(db, o.pilot!);
  const baseline = o.baseline ?? (pilot.labels.length === 1 ? pilot.labels[0] : undefined);
  if (baseline === undefined)
    throw new InvalidInputError(
      '--baseline',
      o.baseline,
      `name the pilot's baseline: one of ${pilot.labels.join(', ')}`,
    );
  const candidate = o.candidate === undefined ? undefined : labelCounts(pilot, '--candidate', o.candidate);
  const fit = fitPilot({ baseline: labelCounts(pilot, '--baseline', baseline), candidate });
  const spread = fit.mazeSd ?? fit.assumedMazeSd!;
  return {
    base: fit.base,
    mazeSd: spread,
    source:
      `fitted to pilot sweep ${o.pilot} (${baseline}${o.candidate ? ` and ${o.candidate}` : ''}, ${fit.mazes} ` +
      `mazes; maximum likelihood, as lme4's glmer)` +
      (fit.mazeSd === null ? `; its spread cannot be told from one run a maze: ${spread} assumed` : ''),
  };
}

/** mazeSd from a suite's noise-floor runs (its mazes' spread); base from --base-rate, else those runs'. */
function suiteModel(o: PlanOptions): SourcedModel {
  const { suite, ref } = findSuite(o.suite!);
  const floor = suite.noise_floor;
  const fit = fitPilot({ baseline: floor.successes.map((s) => ({ successes: s, runs: floor.repeats })) });
  const spread = fit.mazeSd ?? DEFAULT_MAZE_SD;
  const base = o.baseRate === undefined ? fit.base : logit(fraction('--base-rate', o.baseRate));
  return {
    base,
    mazeSd: spread,
    source:
      `the spread of suite ${ref}'s mazes, fitted to its noise-floor runs (random, ${floor.repeats} a maze)` +
      (o.baseRate === undefined ? ", and the random walk's rate (give --base-rate for your agents')" : ''),
  };
}

async function mazeModel(db: () => Promise<Database>, o: PlanOptions): Promise<SourcedModel> {
  const model = o.pilot ? await pilotModel(await db(), o) : o.suite ? suiteModel(o) : null;
  const base = o.baseRate === undefined ? (model?.base ?? 0) : logit(fraction('--base-rate', o.baseRate));
  const mazeSd =
    o.mazeSd === undefined ? (model?.mazeSd ?? DEFAULT_MAZE_SD) : fraction('--maze-sd', o.mazeSd, -1e-9, 10);
  const stated = [o.baseRate !== undefined && '--base-rate', o.mazeSd !== undefined && '--maze-sd'].filter(Boolean);
  const source = model
    ? `${model.source}${stated.length ? `; ${stated.join(' and ')} as given` : ''}`
    : `stated: ${o.baseRate === undefined ? 'b at 50% on an average maze (default)' : '--base-rate'}, ` +
      `${o.mazeSd === undefined ? `maze spread ${DEFAULT_MAZE_SD} logit sd (default)` : '--maze-sd'}; ` +
      'a pilot sweep (--pilot) or a suite (--suite) gives both from runs';
  return { base, mazeSd, source };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const points = (x: number) => `${(x * 100).toFixed(1)} points`;

function modelLine(m: SourcedModel): string {
  return (
    `maze model: b succeeds on an average maze ${pct(expit(m.base))} of the time (logit ${m.base.toFixed(2)}), ` +
    `maze difficulty spread ${m.mazeSd.toFixed(2)} logit sd; ${m.source}`
  );
}

const TEST_LINE =
  'the test: the exact sign-flip test on per-maze differences (ariadne compare); power by the paired t ' +
  'approximation with a lattice correction, within 2.8 points of the simulated power over 16 settings ' +
  '(npm run bench -- power)';

/** The mazes each number of repeats needs, and the recommended one (the repeats asked). */
function planLines(o: PlanOptions, m: SourcedModel, options: PlanOption[], repeats: number): string[] {
  const chosen = options.find((x) => x.repeats === repeats)!;
  return [
    `plan: detect a difference of ${points(Number(o.difference))} in success (a - b) with ${pct(Number(o.power))} ` +
      `power at the ${pct(Number(o.level))} level, the maze as the unit of replication`,
    modelLine(m),
    'repeats | mazes | runs (2 agents) | planned power',
    ...options.map(
      (x) =>
        `${String(x.repeats).padStart(7)} | ${String(x.mazes).padStart(5)}${x.capped ? '+' : ' '}| ` +
        `${String(x.runs).padStart(15)} | ${pct(x.power)}`,
    ),
    `recommended: ${chosen.mazes} mazes x ${repeats} repeat(s) = ${chosen.runs} runs` +
      (chosen.capped ? ' (capped: even that many fall short of the power)' : ''),
    ...suiteFit(o, options),
    TEST_LINE,
  ];
}

/** With a suite: whether the recommendation fits its mazes, else the fewest repeats that do. */
function suiteFit(o: PlanOptions, options: PlanOption[]): string[] {
  if (!o.suite) return [];
  const { suite, ref } = findSuite(o.suite);
  const chosen = options.find((x) => x.repeats === Number(o.repeats))!;
  if (chosen.mazes <= suite.mazes.length) return [];
  const fits = options.find((x) => x.mazes <= suite.mazes.length);
  return [
    `suite ${ref} has ${suite.mazes.length} mazes: ` +
      (fits
        ? `on it, run ${fits.repeats} repeats (${fits.mazes} mazes needed)`
        : 'none of these fits it; plan on generated mazes (a sweep of one generator and size, as --write writes)'),
  ];
}

/** An agent of the sweep file from `provider/model` or a baseline's name. */
function agentEntry(spec: string): string {
  const slash = spec.indexOf('/');
  if (slash < 0) return `{ agent: ${spec} }`;
  return `{ agent: ${spec.slice(0, slash)}, model: ${JSON.stringify(spec.slice(slash + 1))} }`;
}

const labelOf = (spec: string) => (spec.includes('/') ? spec.slice(spec.indexOf('/') + 1) : spec);

/** The sweep file the plan recommends: the two agents on `mazes` mazes of one generator and size, `repeats` each. */
function sweepText(o: PlanOptions, name: string, mazes: number, repeats: number): string {
  const [a, b] = o.compare!;
  const seeds = Array.from({ length: mazes }, (_, i) => i + 1).join(', ');
  return [
    `sweep: ${name}`,
    `description: ${JSON.stringify(`planned by ariadne plan: ${labelOf(a)} against ${labelOf(b)}, ${mazes} mazes`)}`,
    `agents: [${agentEntry(a)}, ${agentEntry(b)}]`,
    `mazes: { generators: [${o.generator}], sizes: [${o.size}], seeds: [${seeds}] }`,
    `repeats: ${repeats}`,
    ...(o.adaptive ? [`stop_when: { compare: [${JSON.stringify(labelOf(a))}, ${JSON.stringify(labelOf(b))}] }`] : []),
    '',
  ].join('\n');
}

/** Writes the recommended sweep and says what it would spend (as sweep --estimate does). */
async function writeSweep(db: Database, o: PlanOptions, mazes: number, repeats: number) {
  if (o.compare?.length !== 2)
    throw new InvalidInputError('--compare', o.compare, '--write needs --compare A B: the two agents of the sweep');
  const file = resolve(userDirectory(), o.write!);
  const name = file
    .replace(/^.*\//, '')
    .replace(/\.ya?ml$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '-')
    .slice(0, 40);
  const text = sweepText(o, name, mazes, repeats);
  const loaded = loadSweep(text, o.write);
  writeFileSync(file, text);
  const e = await estimateSweepSpend(db, loaded, (await localParameters()?.get())?.prompts ?? {});
  return { file, sweep: name, estimate: e.total };
}

/**
 * The mazes a budget buys: --mazes as given, --budget-runs over 2 agents x repeats, or --budget-usd over what the
 * two --compare agents' runs would cost at the high end of `sweep --estimate`'s range (so the budget covers them).
 */
async function budgetMazes(db: () => Database, o: PlanOptions, repeats: number) {
  if (o.mazes !== undefined) return { mazes: whole('--mazes', o.mazes, 2), basis: '' };
  if (o.budgetRuns !== undefined)
    return { mazes: Math.floor(whole('--budget-runs', o.budgetRuns, 4) / (2 * repeats)), basis: '' };
  const usd = fraction('--budget-usd', o.budgetUsd!, 0, 1e9);
  if (o.compare?.length !== 2)
    throw new InvalidInputError('--compare', o.compare, '--budget-usd needs --compare A B: the agents it pays for');
  const sample = loadSweep(sweepText(o, 'plan-budget', 1, 1), 'the plan');
  const high = (await estimateSweepSpend(db(), sample, (await localParameters()?.get())?.prompts ?? {})).total.costUsd
    ?.high;
  if (!high)
    throw new InvalidInputError(
      '--budget-usd',
      o.budgetUsd,
      `the runs of ${o.compare.join(' and ')} have no price to spend a budget on (baselines cost nothing, or a ` +
        "model's price is unknown): plan with --budget-runs",
    );
  // the sample is one maze, one repeat: both agents' runs, at the high end
  const mazes = Math.floor(usd / (high * repeats));
  if (mazes < 2)
    throw new InvalidInputError(
      '--budget-usd',
      o.budgetUsd,
      `$${usd} buys ${mazes} maze(s) of ${repeats} repeat(s) at $${high.toFixed(4)} a maze and repeat (both ` +
        "agents' runs, the high end of sweep --estimate): a test needs 2 mazes at the least; raise the budget",
    );
  return {
    mazes,
    basis: `, $${high.toFixed(4)} a maze and repeat for both agents at the high end of sweep --estimate's range`,
  };
}

/** `fn` with the CLI's database when the plan reads a pilot or estimates a sweep, else without opening one. */
const withDatabaseIfNeeded = (o: PlanOptions, fn: (db: () => Database) => Promise<void>) =>
  o.pilot || o.write || o.budgetUsd
    ? withCliDatabase((db) => fn(() => db))
    : fn(() => {
        throw new Error('no database is opened for this plan');
      });

async function plan(o: PlanOptions): Promise<void> {
  const [power, alpha] = [fraction('--power', o.power), fraction('--level', o.level, 0, 0.5)];
  const repeats = whole('--repeats', o.repeats, 1);
  if (o.difference === undefined && o.mazes === undefined && o.budgetRuns === undefined && o.budgetUsd === undefined)
    throw new InvalidInputError('--difference', undefined, 'give --difference D, or --mazes M or --budget-runs N');
  await withDatabaseIfNeeded(o, async (db) => {
    const model = await mazeModel(() => Promise.resolve(db()), o);
    const lines: string[] = [];
    const out: Record<string, unknown> = { model };
    if (o.mazes !== undefined || o.budgetRuns !== undefined || o.budgetUsd !== undefined) {
      const budget = await budgetMazes(db, o, repeats);
      const d = detectableDifference({ ...model, mazes: budget.mazes, repeats, power, alpha });
      out.detectable = { ...budget, repeats, runs: 2 * budget.mazes * repeats, difference: d };
      lines.push(
        modelLine(model),
        `with ${budget.mazes} mazes x ${repeats} repeat(s) (${2 * budget.mazes * repeats} runs${budget.basis}), the ` +
          `smallest difference in success detectable with ${pct(power)} power at the ${pct(alpha)} level: ` +
          (d === null ? 'none (too few mazes)' : points(d)),
        TEST_LINE,
      );
    }
    if (o.difference !== undefined) {
      const difference = fraction('--difference', o.difference);
      const options = optionsTable({
        ...model,
        difference,
        power,
        alpha,
        repeats: [...new Set([1, 2, 3, 5, repeats])].sort((x, y) => x - y),
      });
      out.options = options;
      lines.push(...planLines(o, model, options, repeats));
      const chosen = options.find((x) => x.repeats === repeats)!;
      if (o.write) {
        const written = await writeSweep(db(), o, chosen.mazes, repeats);
        out.written = written;
        const cost = written.estimate.costUsd;
        lines.push(
          `wrote ${written.file} (sweep ${written.sweep}${o.adaptive ? ', with stop_when: it may stop early' : ''}); ` +
            `it would spend ${written.estimate.tokens.low.toLocaleString('en-US')} to ` +
            `${written.estimate.tokens.high.toLocaleString('en-US')} tokens` +
            (cost ? `, $${cost.low.toFixed(2)} to $${cost.high.toFixed(2)}` : '') +
            ` (ariadne sweep ${o.write} --estimate has it by agent)`,
        );
      }
    }
    process.stdout.write(o.json ? `${JSON.stringify(out)}\n` : `${lines.join('\n')}\n`);
  });
}

export function registerPlanCommand(program: Command): void {
  const command = program
    .command('plan')
    .description(
      'how many mazes and repeats a comparison of two agents needs to detect a difference in success with a given ' +
        'power (the maze as the cluster), from a pilot sweep, a suite or stated defaults; or, given mazes or runs, ' +
        'the smallest difference they detect; --write writes the sweep it recommends and estimates its spend',
    )
    .option('--difference <d>', 'the difference in success rate to detect, a fraction (0.10: 10 points)')
    .option('--power <p>', 'the power to reach', '0.8')
    .option('--level <alpha>', "the two-sided test's level", '0.05')
    .option('--repeats <n>', 'runs of each agent on each maze', '1')
    .option('--pilot <sweep>', 'fit the maze model to this sweep: its baseline label (and candidate) per maze')
    .option('--baseline <label>', "the pilot's label of agent b (the one to beat)")
    .option('--candidate <label>', "the pilot's label of agent a, when it ran too")
    .option('--suite <name>', "the maze spread of a suite's mazes, from its noise-floor runs (ariadne-mazes/v1)")
    .option('--base-rate <p>', "b's success on an average maze (default: the pilot's or suite's, else 0.5)")
    .option('--maze-sd <s>', `the spread of maze difficulty, logit sd (default: fitted, else ${DEFAULT_MAZE_SD})`)
    .option('--mazes <m>', 'turned around: the smallest difference this many mazes detect')
    .option('--budget-runs <n>', 'turned around: the smallest difference this many runs (2 agents) detect')
    .option('--budget-usd <usd>', 'turned around: the smallest difference this many dollars of --compare runs detect')
    .option('--compare <agents...>', 'the two agents of the sweep to write: baselines or provider/model')
    .option('--generator <name>', 'the maze generator of the sweep to write', 'perfect')
    .option('--size <n>', 'the maze size of the sweep to write', '21')
    .option('--write <file>', 'write the recommended sweep file and estimate what it would spend')
    .option('--adaptive', 'the written sweep stops when its comparison is decided (stop_when)')
    .addOption(jsonOption())
    .action(plan);
  withExample(command, 'ariadne plan --difference 0.10 --suite ariadne-mazes/v1 --base-rate 0.5');
}
