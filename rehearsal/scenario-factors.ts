// The scenario "factors": a sweep over the experiment factors a study varies (observation format x
// memory mode) and two Bedrock models, launched and run through the stack's own bundles like any sweep, every run
// to its end; then each run's config snapshot holds its cell's settings and `ariadne stats` (factorStats) groups
// the runs by each factor.
import type { World } from './world.ts';
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { emulateSweep } from './scenario-sweep.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { factorStats } from '../reports/factor-stats.ts';

class FactorsScenarioError extends Error {
  override readonly name = 'FactorsScenarioError';
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new FactorsScenarioError(message);
}

// the deployment's own models: a sweep may only name models the stack grants
const MODELS = [...DEFAULT_BEDROCK_MODELS];
/** The factors and their values: every combination is a cell, with each model. */
const FACTORS: Record<string, string[]> = { observation: ['rays', 'local_grid'], memory: ['fresh', 'history'] };

const SWEEP_YAML = `sweep: rehearsal-factors
description: observation x memory x two models, through the deployed bundles
agents:
${MODELS.map((m) => `  - { agent: bedrock, model: ${m} }`).join('\n')}
mazes: { generators: [medium], sizes: [7], seeds: [5] }
settings:
${Object.entries(FACTORS)
  .map(([k, v]) => `  ${k}: [${v.join(', ')}]`)
  .join('\n')}
config: { max_moves: 150 }
repeats: 1
max_concurrency: 4
`;

export async function factorsScenario(world: World): Promise<string> {
  const loaded = loadSweep(SWEEP_YAML, 'the rehearsal factor sweep');
  const cells = MODELS.length * Object.values(FACTORS).reduce((n, v) => n * v.length, 1);
  check(loaded.runs.length === cells, `the factor sweep has ${loaded.runs.length} runs, not ${cells}`);
  const all = new Set(loaded.runs.map((_, i) => i));
  const { report } = await emulateSweep(world, loaded, 4, all);
  check(
    report.iterations.every((i) => i.sampled),
    'not every run of the factor sweep ran to its end',
  );

  // each run's snapshot holds its cell's settings
  const { rows } = await world.db.pool.query<{
    id: string;
    status: string;
    sweep_cell: number;
    config: Record<string, unknown>;
  }>('SELECT id, status, sweep_cell, config FROM experiments WHERE sweep_id = $1 ORDER BY id', [loaded.spec.sweep]);
  check(rows.length === cells, `${rows.length} experiments stored of ${cells}`);
  for (const row of rows) {
    check(['completed', 'timeout'].includes(row.status), `${row.id}: ${row.status}`);
    for (const [key, value] of Object.entries(loaded.cells[row.sweep_cell].settings))
      check(
        JSON.stringify(row.config[key]) === JSON.stringify(value),
        `${row.id}: config.${key} is ${JSON.stringify(row.config[key])}, its cell says ${JSON.stringify(value)}`,
      );
  }

  // grouped by each factor: one row per value, every run counted once
  for (const factor of ['label', ...Object.keys(FACTORS)]) {
    const groups = await factorStats(world.db, loaded.spec.sweep, [factor]);
    const values = factor === 'label' ? MODELS : FACTORS[factor];
    check(
      JSON.stringify(groups.map((g) => g[factor]).sort()) === JSON.stringify([...values].sort()),
      `stats by ${factor}: groups ${groups.map((g) => g[factor]).join(', ')}`,
    );
    check(
      groups.every((g) => g.n === cells / values.length),
      `stats by ${factor}: ${groups.map((g) => g.n).join(', ')} runs per group, not ${cells / values.length}`,
    );
  }
  const solved = rows.filter((r) => r.status === 'completed').length;
  return (
    `${cells} runs (${Object.keys(FACTORS).join(' x ')} x ${MODELS.length} Bedrock models) through the sweep ` +
    `machine, each to its end (${solved} reached the goal); snapshots hold each cell's settings; stats groups by ` +
    `${['label', ...Object.keys(FACTORS)].join(', ')}`
  );
}
