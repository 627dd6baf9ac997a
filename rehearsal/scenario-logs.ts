// The scenario "logs": an experiment through the stack's bundled functions, and what they wrote to stdout, which is
// what Lambda sends to CloudWatch Logs. It proves one turn line per committed turn, each with the experiment id (and
// the fields the metrics are made of), the start and finalize lines, and the embedded metric format records
// CloudWatch would turn into metrics: one Turns per turn under the Provider dimension, the tokens and cost equal to
// what the database holds, and no experiment id among any record's dimensions. Its result line gives the figures.
import { DEFAULT_BEDROCK_MODELS } from '../lib/ariadne-stack.ts';
import { distinctMetrics, emfMetrics } from '../core/telemetry/emf-records.ts';
import { METRIC_NAMESPACE } from '../core/telemetry/metrics.ts';
import { experiment, toGoal } from './run-experiment.ts';
import type { World } from './world.ts';

class LogsScenarioError extends Error {
  override readonly name = 'LogsScenarioError';
}

type Line = Record<string, unknown> & { message?: string; experimentId?: string };

export async function logsScenario(world: World): Promise<string> {
  const written: string[] = [];
  const unsubscribe = [...world.processes.values()].map((p) => p.onLine((line) => written.push(line)));
  let row;
  try {
    row = await experiment(world, 'logs', {
      agent: 'bedrock',
      model: DEFAULT_BEDROCK_MODELS[0],
      maze: { generator: 'medium', size: 9, seed: 3 },
      config: { max_moves: 200 },
    });
  } finally {
    for (const off of unsubscribe) off();
  }
  toGoal(row);
  const id = row.id;
  const { rows } = await world.db.pool.query<{ turns: number; input: string; output: string; cost: string | null }>(
    `SELECT e.turns_completed AS turns, sum(t.input_tokens) AS input, sum(t.output_tokens) AS output,
            sum(t.cost_usd) AS cost
     FROM experiments e JOIN turns t ON t.experiment_id = e.id WHERE e.id = $1 GROUP BY e.turns_completed`,
    [id],
  );
  const db = rows[0];
  const lines = written
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l.experimentId === id);
  const fail = (what: string) => {
    throw new LogsScenarioError(`${id}: ${what}`);
  };

  const turnLines = lines.filter((l) => l.message === 'turn');
  const numbers = turnLines.map((l) => l.turn as number).sort((a, b) => a - b);
  if (numbers.join() !== Array.from({ length: db.turns }, (_, i) => i + 1).join())
    fail(`turn lines for turns [${numbers.join(', ')}], but the database has ${db.turns} turns`);
  for (const l of turnLines)
    for (const field of ['level', 'timestamp', 'state', 'provider', 'model', 'durationMs', 'inputTokens', 'costUsd'])
      if (!(field in l)) fail(`turn ${String(l.turn)}'s line has no ${field}`);
  for (const message of ['experiment started', 'experiment finalized'])
    if (!lines.some((l) => l.message === message)) fail(`no "${message}" line`);

  const records = emfMetrics(written).filter((m) => m.properties.experimentId === id);
  const sum = (name: string) => records.filter((m) => m.name === name).reduce((n, m) => n + m.value, 0);
  const turnsMetric = records.filter((m) => m.name === 'Turns');
  if (turnsMetric.length !== db.turns) fail(`${turnsMetric.length} Turns values for ${db.turns} turns`);
  if (turnsMetric.some((m) => !m.dimensions.includes('Provider=bedrock') || m.namespace !== METRIC_NAMESPACE))
    fail(`a Turns value outside ${METRIC_NAMESPACE} / Provider=bedrock`);
  if (sum('InputTokens') !== Number(db.input) || sum('OutputTokens') !== Number(db.output))
    fail(`metrics say ${sum('InputTokens')}/${sum('OutputTokens')} tokens, the database ${db.input}/${db.output}`);
  if (db.cost !== null && Math.abs(sum('CostUSD') - Number(db.cost)) > 1e-6)
    fail(`metrics say $${sum('CostUSD')}, the database $${db.cost}`);
  const leaked = emfMetrics(written).filter((m) => m.dimensions.some((d) => d.startsWith('experimentId=')));
  if (leaked.length > 0) fail(`${leaked.length} metric values carry the experiment id as a dimension`);

  const bytes = turnLines.reduce((n, l) => n + Buffer.byteLength(JSON.stringify(l)), 0);
  const metrics = distinctMetrics(records);
  const perLine = Math.round(bytes / turnLines.length);
  return (
    `${turnLines.length} turn lines for ${db.turns} turns of ${id} (one each, ${perLine} bytes a line), ` +
    `start and finalize lines; ${records.length} metric values: Turns ${sum('Turns')}, InputTokens ` +
    `${sum('InputTokens')}, OutputTokens ${sum('OutputTokens')}, CostUSD ${sum('CostUSD').toFixed(6)}; ` +
    `${metrics.length} custom metrics (${metrics.map((m) => m.replace(`${METRIC_NAMESPACE}/`, '')).join(' ')})`
  );
}
