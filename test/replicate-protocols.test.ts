// Each published protocol (examples/protocols/) run end to end in a tiny version: its agents, labels and settings on
// six small mazes, every model call answered by the Bedrock or OpenAI simulator (never a real model: that is the
// researchers' part). `ariadne replicate NAME --sweep` must find each number's group, count ours as the statistics
// do, give the pure rule's verdict, and say where the sweep differs from the protocol and that its runs were simulated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProtocol, protocolNames, type Protocol } from '../reports/protocols.ts';
import { replicationVerdict, type ComparisonRow } from '../reports/replication.ts';
import { sweepStatistics } from '../reports/sweep-statistics.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { runLocalSweep } from '../state-machine/local-sweep.ts';
import { STATES } from '../core/machine/states.ts';
import { BedrockSim } from '../simulators/bedrock-sim.ts';
import { OpenAISim } from '../simulators/openai-sim.ts';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { FAST_RETRY } from './support/provider-sims.ts';
import { ariadneInProcess } from './support/cli-in-process.ts';

const models = (provider: string) =>
  protocolNames().flatMap((name) =>
    findProtocol(name)
      .sweep.spec.agents.filter((a) => a.agent === provider)
      .map((a) => a.model!),
  );
const bedrock = new BedrockSim({ models: [...new Set(models('bedrock'))] });
const openai = new OpenAISim({ models: [...new Set(models('openai'))] });
let db: TestDatabase;
const urls = { bedrock: '', openai: '' };

beforeAll(async () => {
  [db, urls.bedrock, urls.openai] = await Promise.all([testDatabase(), bedrock.listen(), openai.listen()]);
  process.env.AWS_ACCESS_KEY_ID = 'sim';
  process.env.AWS_SECRET_ACCESS_KEY = 'sim';
  process.env.OPENAI_API_KEY = 'sk-sim';
});
afterAll(async () => {
  await Promise.all([db.drop(), bedrock.close(), openai.close()]);
  delete process.env.OPENAI_API_KEY;
});

/**
 * The protocol's sweep made tiny: the same agents, labels, settings and config, on its first generator at its
 * smallest size with six seeds (enough mazes for a maze-level interval that can exclude a published rate), a short
 * move cap, each provider pointed at its simulator.
 */
function tinySweep(p: Protocol) {
  const { spec } = p.sweep;
  const tiny = {
    sweep: `tiny-${p.protocol}`,
    agents: spec.agents,
    mazes: {
      generators: spec.mazes.generators.slice(0, 1),
      sizes: [Math.min(...spec.mazes.sizes)],
      seeds: [1, 2, 3, 4, 5, 6],
    },
    settings: spec.settings,
    config: {
      ...spec.config,
      max_moves: 60,
      retry: FAST_RETRY,
      bedrock: { endpoint: urls.bedrock, region: 'us-west-2', prompt_caching: false },
      openai: { base_url: `${urls.openai}/v1` },
    },
    repeats: 1,
    max_concurrency: 4,
  };
  // JSON is YAML: the file a researcher would write, loaded the way `ariadne sweep` loads it
  return loadSweep(JSON.stringify(tiny), `tiny ${p.protocol}`);
}

const env = () => ({ DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema, npm_lifecycle_event: '' });

describe.each(protocolNames())('protocol %s, tiny, on the simulators', (name) => {
  const p = findProtocol(name);
  let sweep: ReturnType<typeof tinySweep>;

  beforeAll(async () => {
    sweep = tinySweep(p);
    const result = await runLocalSweep(sweep, {
      db,
      retryIntervals: { [STATES.InvokeBedrockAgent]: 0, [STATES.InvokeOpenAIAgent]: 0 },
    });
    expect(result).toMatchObject({ failed: 0 });
  }, 240_000);

  it('replicate --sweep: each published number beside its group, with the verdict of the pure rule', async () => {
    const { code, stdout, stderr } = await ariadneInProcess(
      ['replicate', name, '--sweep', sweep.spec.sweep, '--json'],
      env(),
    );
    expect(code, stderr).toBe(0);
    const json = JSON.parse(stdout) as {
      comparison: { sweep: string; differs_from_protocol: string[]; rows: ComparisonRow[] };
    };
    const { rows, differs_from_protocol: differs } = json.comparison;
    expect(rows.map((r) => r.id)).toEqual(p.published.map((n) => n.id));
    for (const [i, n] of p.published.entries()) {
      const row = rows[i];
      // the group the selector names, counted by the statistics every results command shares
      const stats = await sweepStatistics(db, sweep.spec.sweep, { by: Object.keys(n.ours) });
      const group = stats.groups.find((g) =>
        Object.entries(n.ours).every(([f, v]) => String(g.factors[f]) === String(v)),
      )!;
      expect(group, `${n.id}: a group of the sweep`).toBeDefined();
      expect(row.group).toEqual(group.factors);
      expect(row.ours).toEqual({
        rate: group.success.rate,
        low: group.success.maze.low,
        high: group.success.maze.high,
        mazes: 6,
        runs: group.independent,
        successes: group.independentSuccesses,
        simulatedRuns: group.simulatedRuns,
      });
      // six mazes: an interval, so a verdict, and the one the rule gives on these numbers
      expect(row.ours.low).not.toBeNull();
      const theirs = { value: n.value, successes: n.successes, n: n.n, nSource: n.n_source };
      expect(row.verdict).toEqual(replicationVerdict(theirs, row.ours));
      expect(row.verdict.verdict).not.toBe('no verdict');
      expect(row.verdict.test).toBe(n.n === undefined ? 'no n of theirs' : 'difference of proportions');
      expect(row.ours.simulatedRuns).toBe(group.runs);
    }
    // the simulated model, shown the whole maze, solves every one: 100% over six mazes differs from 6 or 2 of 100,
    // and against 80 of 100 its interval holds 0 but six mazes are too few to call it consistent
    if (name === 'mazebench') {
      expect(rows.map((r) => r.ours.rate)).toEqual([1, 1, 1]);
      expect(rows.map((r) => r.verdict.verdict)).toEqual(['inconclusive', 'differs', 'differs']);
    }
    // the tiny sweep is not the protocol: said, by what differs
    expect(differs).toEqual(expect.arrayContaining(['mazes.seeds', 'config.max_moves', 'config.retry']));
  });

  it('the table: ours beside theirs, the verdicts, the simulated runs and the differences said', async () => {
    const { code, stdout } = await ariadneInProcess(['replicate', name, '--sweep', sweep.spec.sweep], env());
    expect(code).toBe(0);
    expect(stdout).toContain(`published numbers against sweep ${sweep.spec.sweep}:`);
    for (const n of p.published)
      expect(stdout).toMatch(new RegExp(`^${n.id} +\\|.*\\| (consistent|inconclusive|differs)( |$)`, 'm'));
    // the notes wrap at the terminal's width: read as one line
    const flat = stdout.replace(/\s+/g, ' ');
    expect(flat).toMatch(/answered by a bundled simulator, not a model: a check of the machinery/);
    expect(flat).toMatch(/this sweep differs from the protocol's file in .*mazes\.seeds/);
    expect(stdout).toMatch(/^what differs in Ariadne's protocol:$/m);
  });
});

describe('replicate --sweep on a sweep that is not there', () => {
  it('is refused naming it, as every results command refuses it', async () => {
    const { code, stderr } = await ariadneInProcess(['replicate', 'mazeeval', '--sweep', 'nosuch'], env());
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/no sweep named "nosuch"/);
  });
});
