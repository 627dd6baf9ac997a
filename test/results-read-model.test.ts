// The results read model (results/): every read the CLI, the viewer and the reports share,
// through its public functions on a real database over both transports; each run's settings (a sweep's varied
// ones, else those that differ from the defaults); and the rules that keep it the one home of those reads.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalExperiment } from '../state-machine/local-experiment.ts';
import { loadSweep, sweepRunInput } from '../core/sweeps/sweep-spec.ts';
import { registerSweep } from '../core/sweeps/sweep-registry.ts';
import { agentStoryOf } from '../results/agent-story.ts';
import { comparedSummaries } from '../results/compared-runs.ts';
import { experimentRecord } from '../results/experiment-record.ts';
import { experimentTable, type ExperimentTableQuery } from '../results/experiment-table.ts';
import { loadTurns } from '../results/experiment-turns.ts';
import { experimentsChangedSince } from '../results/live-changes.ts';
import { runningExperiments, sweepTotals } from '../results/live-status.ts';
import { modelCallDetails } from '../results/model-calls.ts';
import { newestExperiments } from '../results/newest-experiments.ts';
import { executedPath, replayLogs } from '../results/replay-logs.ts';
import { behaviourRunRows, finishedCellRuns, mazesById, runTraces, xOf, yOf } from '../results/run-moves.ts';
import { differingSettings, settingsOfRuns, settingsText } from '../results/run-settings.ts';
import { summaryOf } from '../results/summary-row.ts';
import { sweepRunConditions } from '../results/sweep-conditions.ts';
import { exportCounts, exportedActions, exportedExperiments } from '../results/sweep-export.ts';
import { newestSweeps } from '../results/sweep-list.ts';
import { sweepCellRows, sweepProgress, sweepProgressList } from '../results/sweep-progress.ts';
import { sweepRecord, sweepRunRows } from '../results/sweep-runs.ts';
import { searchTranscripts } from '../results/transcript-search.ts';
import { DEFAULT_CONFIG, experimentConfigSchema } from '../core/config/experiment-config.ts';
import { startViewer } from '../viewer/server.ts';
import { TRANSPORTS, testDatabase, type TestDatabase } from './support/db.ts';
import { cli } from './support/cli.ts';

const ROOT = join(import.meta.dirname, '..');

// two cells that differ in vision_range only; see_through has one value, so the sweep does not vary it
const SWEEP = `sweep: read-model
agents: [{ agent: frontier }]
mazes: { generators: [medium], sizes: [9], seeds: [1] }
settings: { vision_range: [2, 3], see_through: [false] }
repeats: 1
max_concurrency: 1
`;

const TABLE: ExperimentTableQuery = { sort: 'started', dir: 'desc', limit: 50, offset: 0 };

const collect = async (pages: AsyncIterable<Array<Record<string, unknown>>>) => {
  const out: Array<Record<string, unknown>> = [];
  for await (const page of pages) out.push(...page);
  return out;
};

describe.each(TRANSPORTS)('the results read model over %s', (transport) => {
  let db: TestDatabase;
  let swept: string[];
  let solo: string;
  beforeAll(async () => {
    ({ db, swept, solo } = await seeded(transport));
  }, 120_000);
  afterAll(async () => {
    await db.drop();
  });

  it("reads one experiment's summary row: the view's columns, abandoned and probe calls; null for none", async () => {
    const s = (await summaryOf(db, solo))!;
    expect(s).toMatchObject({ experiment_id: solo, agent: 'random', provider: 'baseline', maze_width: 9 });
    expect(s.actions).toBeGreaterThan(0);
    expect(s.actions).toBeLessThanOrEqual(50);
    const { rows } = await db.pool.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns
       WHERE table_name = 'experiment_summary' AND table_schema = current_schema() ORDER BY ordinal_position`,
    );
    expect(Object.keys(s)).toEqual([...rows.map((r) => r.column_name), 'abandoned_calls', 'probe_calls']);
    expect([s.abandoned_calls, s.probe_calls]).toEqual([0, 0]);
    expect(await summaryOf(db, 'no-such-run')).toBeNull();
  });

  it('lists the newest experiments, filtered, and the sweeps with their runs done', async () => {
    const all = await newestExperiments(db, {}, 10);
    expect(all.map((r) => r.experiment_id)).toEqual([solo, ...swept.slice().reverse()]);
    expect((await newestExperiments(db, { sweep: 'read-model' }, 10)).map((r) => r.experiment_id).sort()).toEqual(
      [...swept].sort(),
    );
    expect((await newestExperiments(db, { agent: 'random' }, 10)).map((r) => r.experiment_id)).toEqual([solo]);
    expect(await newestExperiments(db, {}, 1)).toHaveLength(1);
    expect(await newestSweeps(db, undefined, 10)).toEqual([
      expect.objectContaining({ sweep: 'read-model', runs: 2, done: 2, errors: 0 }),
    ]);
    expect(await newestSweeps(db, 'nope', 10)).toEqual([]);
  });

  it("gives each run's settings: a sweep's varied ones, else those that differ from the defaults", async () => {
    const inSweep = await settingsOfRuns(db, [...swept, solo], 'read-model');
    expect([...inSweep.values()].sort((a, b) => settingsText(a).localeCompare(settingsText(b)))).toEqual([
      { vision_range: 2 },
      { vision_range: 3 },
    ]);
    expect(inSweep.has(solo)).toBe(false); // not one of the sweep's runs
    const ownSettings = await settingsOfRuns(db, [...swept, solo]);
    expect(settingsText(ownSettings.get(solo)!)).toBe('max_moves=50 see_through=true');
    expect(swept.map((id) => settingsText(ownSettings.get(id)!)).sort()).toEqual(['', 'vision_range=2']);
    expect(await settingsOfRuns(db, [])).toEqual(new Map());
  });

  it('fills the viewer table, with each row its settings, and the sweep grid with the varied settings', async () => {
    const table = await experimentTable(db, TABLE, new Date());
    expect(table.total).toBe(3);
    expect(table.rows.find((r) => r.experiment_id === solo)).toMatchObject({
      settings: { max_moves: 50, see_through: true },
      settings_text: 'max_moves=50 see_through=true',
      stale: null,
    });
    const bySweep = await experimentTable(db, { ...TABLE, sweep: 'read-model', sort: 'id', dir: 'asc' }, new Date());
    expect(bySweep.rows.map((r) => r.settings_text).sort()).toEqual(['vision_range=2', 'vision_range=3']);
    expect(table.choices.sweeps).toEqual(['read-model']);

    expect(await sweepProgressList(db)).toEqual([expect.objectContaining({ sweep_id: 'read-model', runs: 2 })]);
    expect(await sweepProgress(db, 'read-model')).toMatchObject({ started: 2, running: 0, errors: 0, unpriced: 0 });
    expect(await sweepProgress(db, 'nope')).toBeNull();
    const cells = await sweepCellRows(db, 'read-model');
    expect(cells.map((c) => [c.cell_index, c.settings_text])).toEqual([
      [0, 'vision_range=2'],
      [1, 'vision_range=3'],
    ]);
    expect(cells[0].settings).toEqual({ vision_range: 2, see_through: false }); // as the sweep file gave them
  });

  it('reads what runs now, what changed, and a sweep’s totals', async () => {
    expect(await runningExperiments(db)).toEqual([]);
    expect(await sweepTotals(db, 'read-model')).toMatchObject({ runs: 2, started: 2, running: 0, failed: 0 });
    expect(await sweepTotals(db, 'nope')).toBeNull();
    const changes = await experimentsChangedSince(db, new Date(0));
    expect(changes.map((c) => c.experiment_id).sort()).toEqual([...swept, solo].sort());
    expect(await experimentsChangedSince(db, new Date(Date.now() + 3_600_000))).toEqual([]);
  });

  it("reads an experiment's record, turns, logs, path, story and model details", async () => {
    const s = (await summaryOf(db, solo))!;
    expect(await experimentRecord(db, solo)).toMatchObject({ sweep_id: null, label: null, status: s.status });
    expect(await experimentRecord(db, swept[0])).toMatchObject({ sweep_id: 'read-model', label: 'frontier' });
    expect(await experimentRecord(db, 'no-such-run')).toBeNull();
    const turns = await loadTurns(db, solo, 1, 2);
    expect(turns.map((t) => t.turn.turn_number)).toEqual([1, 2].slice(0, Math.min(2, s.turns)));
    expect(turns[0].actions.length).toBeGreaterThan(0);
    const logs = await replayLogs(db, solo, 7);
    expect(logs.actions.map((a) => a.step_number)).toEqual(Array.from({ length: s.actions }, (_, i) => i + 1));
    expect(logs.turns).toHaveLength(s.turns);
    const path = await executedPath(db, solo, 5);
    expect(path.map((p) => [p.to_x, p.to_y])).toEqual(logs.actions.map((a) => [a.to_x, a.to_y]));
    const story = await agentStoryOf(db, solo, s.actions);
    expect(story.phases.at(-1)!.toStep).toBe(s.actions);
    // what the behaviour analytics read: the run's packed moves, its maze and vision, a sweep cell's finished runs
    const traces = await runTraces(db, [solo, 'no-such-run']);
    expect(Array.from(traces.get(solo)!.codes, (c) => [xOf(c), yOf(c)])).toEqual(path.map((p) => [p.to_x, p.to_y]));
    expect(traces.get('no-such-run')).toEqual({ codes: new Int32Array(0), tiles: new Int32Array(0) });
    expect(await behaviourRunRows(db, [solo, 'no-such-run'])).toEqual([
      expect.objectContaining({ experiment_id: solo, ended: true, vision_range: 3, see_through: true }),
    ]);
    const [row] = await behaviourRunRows(db, [solo]);
    expect((await mazesById(db, [row.maze_id, row.maze_id])).get(row.maze_id)).toMatchObject({ width: 9 });
    const cells = (await sweepCellRows(db, 'read-model')).map((c) => c.cell_index);
    expect(await finishedCellRuns(db, 'read-model', cells[0])).toEqual([
      { experiment_id: expect.any(String), repeat: 1 },
    ]);
    expect(await modelCallDetails(db, 'no-such-run')).toBeNull();
  });

  it('searches transcripts, compares runs, and reads a sweep for its report, statistics and export', async () => {
    const found = await searchTranscripts(db, { q: 'move_', kind: 'tool', limit: 2 });
    expect(found.hits).toHaveLength(2);
    expect(found.more).toBe(true);
    expect(found.hits.every((h) => h.kind === 'tool' && h.snippet.startsWith('move_'))).toBe(true);

    const compared = await comparedSummaries(db, [...swept, 'no-such-run']);
    expect(compared.map((r) => r.experiment_id).sort()).toEqual([...swept].sort());
    expect(compared.map((r) => r.settings)).toContainEqual({ vision_range: 2, see_through: false });

    expect(await sweepRecord(db, 'read-model')).toMatchObject({ id: 'read-model', cells: 2, repeats: 1 });
    expect(await sweepRecord(db, 'nope')).toBeNull();
    const runs = await sweepRunRows(db, 'read-model');
    expect(runs.map((r) => r.cell_index)).toEqual([0, 1]);
    expect(
      (await sweepRunConditions(db, 'read-model'))
        .map((c) => (c.config as { vision_range: number }).vision_range)
        .sort(),
    ).toEqual([2, 3]);

    const counts = await exportCounts(db, 'read-model');
    expect(counts.experiments).toBe(2);
    expect((await collect(exportedExperiments(db, 'read-model'))).map((r) => r.experiment_id)).toEqual(
      runs.map((r) => r.experiment_id),
    );
    expect(await collect(exportedActions(db, 'read-model'))).toHaveLength(counts.actions);
  });
});

/** The read-model sweep's two runs and the solo random run, on a database of their own. */
async function seeded(transport: (typeof TRANSPORTS)[number]) {
  const db = await testDatabase({ transport });
  const sweep = loadSweep(SWEEP, 'test');
  await registerSweep(db, sweep);
  const swept: string[] = [];
  for (const run of sweep.runs)
    swept.push((await runLocalExperiment(sweepRunInput(sweep.spec.sweep, run, 1), { db })).experimentId!);
  const solo = (
    await runLocalExperiment(
      {
        agent: 'random',
        agentSeed: 1,
        maze: { generator: 'medium', size: 9, seed: 1 },
        config: { max_moves: 50, see_through: true },
      },
      { db },
    )
  ).experimentId!;
  return { db, swept, solo };
}

describe('the settings column of ariadne list and of the viewer', () => {
  let db: TestDatabase;
  let swept: string[];
  let solo: string;
  const { ariadne } = cli(() => db);
  beforeAll(async () => {
    ({ db, swept, solo } = await seeded('pg'));
  }, 120_000);
  afterAll(async () => {
    await db.drop();
  });

  it("list --sweep shows the settings the sweep varies, in 100 columns; --json each run's whole", async () => {
    const table = await ariadne(['list', '--sweep', 'read-model']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0].split('|').map((h) => h.trim())).toContain('settings');
    const at = lines[0].split('|').findIndex((h) => h.trim() === 'settings');
    expect(
      lines
        .slice(2, 4)
        .map((l) => l.split('|')[at].trim())
        .sort(),
    ).toEqual(['vision_range=2', 'vision_range=3']);
    expect(lines.every((l) => l.length <= 100)).toBe(true);
    const rows = JSON.parse((await ariadne(['list', '--sweep', 'read-model', '--json'])).stdout) as Array<
      Record<string, unknown>
    >;
    expect(rows.map((r) => [r.experiment_id, r.settings_text]).sort()).toEqual(
      swept.map((id, i) => [id, `vision_range=${i + 2}`]).sort(),
    );
  });

  it('list of runs from anywhere shows what differs from the defaults, cut short to fit, whole in JSON', async () => {
    const rows = JSON.parse((await ariadne(['list', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(rows.find((r) => r.experiment_id === solo)).toMatchObject({
      settings: { max_moves: 50, see_through: true },
      settings_text: 'max_moves=50 see_through=true',
    });
    const table = (await ariadne(['list', '--agent', 'random'])).stdout.trimEnd().split('\n');
    const at = table[0].split('|').findIndex((h) => h.trim() === 'settings');
    expect(at).toBeGreaterThan(0);
    // its start and an ellipsis (24 characters at most, 16 at least, as the other columns leave room); --wide: whole
    const cell = table[2].split('|')[at].trim();
    expect(cell).toMatch(/^max_moves=50 se[a-z_]*…$/);
    expect(cell.length).toBeGreaterThanOrEqual(16);
    const wide = (await ariadne(['list', '--agent', 'random', '--wide'])).stdout.split('\n');
    expect(wide[2]).toContain('| max_moves=50 see_through=true |');
    expect(table.every((l) => l.length <= 100)).toBe(true);
    // the newest frontier run is the sweep's vision_range 3 cell: the defaults, so no settings column at all
    const defaults = (await ariadne(['list', '--agent', 'frontier', '--limit', '1'])).stdout.split('\n');
    expect(defaults[0]).toMatch(/^id /);
    expect(defaults[0]).not.toContain('settings');
  });

  it('the viewer API gives each experiment row its settings, and each sweep cell the varied ones', async () => {
    const viewer = await startViewer({ db, source: 'test database', pollMs: 60_000 });
    try {
      const all = (await (await fetch(`${viewer.url}api/experiments`)).json()) as {
        rows: Array<{ experiment_id: string; settings_text: string }>;
      };
      expect(all.rows.find((r) => r.experiment_id === solo)?.settings_text).toBe('max_moves=50 see_through=true');
      const bySweep = (await (await fetch(`${viewer.url}api/experiments?sweep=read-model`)).json()) as typeof all;
      expect(bySweep.rows.map((r) => r.settings_text).sort()).toEqual(['vision_range=2', 'vision_range=3']);
      const grid = (await (await fetch(`${viewer.url}api/sweeps/read-model`)).json()) as {
        cells: Array<{ settings_text: string }>;
      };
      expect(grid.cells.map((c) => c.settings_text)).toEqual(['vision_range=2', 'vision_range=3']);
    } finally {
      await viewer.close();
    }
  });
});

describe('the settings that differ from the defaults', () => {
  const snapshot = (given: Record<string, unknown>) =>
    JSON.parse(JSON.stringify(experimentConfigSchema.parse(given))) as Record<string, unknown>;

  it('are none for the defaults, and each changed leaf by its dotted path', () => {
    expect(differingSettings(snapshot({}))).toEqual({});
    expect(differingSettings(snapshot({ observation: 'local_grid', ollama: { num_ctx: 4096 }, top_p: 0.9 }))).toEqual({
      observation: 'local_grid',
      'ollama.num_ctx': 4096,
      top_p: 0.9,
    });
  });

  it('leave out what the config derives from the run’s own settings, but not a value given against it', () => {
    // max_turns follows max_moves, recall_tool follows the observation: neither is a choice of its own here
    expect(
      differingSettings(snapshot({ max_moves: 100_000, observation: 'full_map', success_rule: 'reached' })),
    ).toEqual({ max_moves: 100_000, observation: 'full_map', success_rule: 'reached' });
    expect(differingSettings(snapshot({ max_turns: 9_000, recall_tool: false }))).toEqual({
      max_turns: 9_000,
      recall_tool: false,
    });
    expect(DEFAULT_CONFIG.recall_tool).toBe(true);
  });

  it('read as one line of key=value, quoted where a value is not one word', () => {
    expect(settingsText({ b: 'two words', a: 1, c: { x: [1] } })).toBe('a=1 b="two words" c={"x":[1]}');
    expect(settingsText({})).toBe('');
  });
});

/** Every source file of the project outside test/ (and the generated dist/ and node_modules/). */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const path = dir ? `${dir}/${name}` : name;
      if (['node_modules', 'dist', 'test', 'cdk.out', 'coverage', '.git'].includes(name) || name.startsWith('.'))
        continue;
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (/\.(ts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
    }
  };
  walk('');
  return out;
}

/**
 * The relations that hold results: every table and view the migrations create, less the providers' shared
 * rate-limit buckets (state of the running agents, not a result anyone reads back).
 */
const RESULTS_RELATIONS = readdirSync(join(ROOT, 'migrations'))
  .filter((f) => f.endsWith('.sql'))
  .flatMap((f) => [
    ...readFileSync(join(ROOT, 'migrations', f), 'utf8').matchAll(
      /\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/gi,
    ),
  ])
  .map((m) => m[1].toLowerCase())
  .filter((name, i, all) => name !== 'rate_limit_buckets' && all.indexOf(name) === i);

const READS_RESULTS = new RegExp(`\\b(?:FROM|JOIN)\\s+(?:${RESULTS_RELATIONS.join('|')})\\b`, 'i');
const WRITES = /\b(?:INSERT|UPDATE|DELETE|TRUNCATE)\b/i;

/**
 * Reads of the results that stay outside results/, core/store (the write side's own reads) and the rehearsal
 * (its assertion queries), each with why.
 */
const READS_ELSEWHERE: Record<string, string> = {
  'bin/cli/commands/database.ts': "examples in `ariadne sql`'s help: the researcher's own free-form read",
  'bin/cli/commands/sweep.ts': 'the `ariadne sql` command a finished sweep prints for the researcher to run',
  'bench/engine.ts': "copies a recorded experiment's turns and actions, the fixture whose writes it times",
  'bench/results-aws.ts': 'counts the rows it seeded, to size the export it times',
  'bench/viewer.ts': 'counts the rows it seeded, to report the scale it measured',
  'bench/search.ts': 'counts the rows it seeded and those naming its rare word, to report the scale it measured',
  'bench/summaries.ts': 'counts the rows it seeded, to report the scale it measured',
  'bench/sweep-pairs.ts':
    'reads the pairs as compare read them before (sweep_run_pairs in pages), to time the read that replaced it ' +
    'and check that both give the same pairs; counts the rows it seeded',
  'bench/soak.ts':
    'compares each run of the chaotic sweep with the undisturbed one, and watches runs finish to time its faults',
};

/** Statements that write the results and read them in the same statement, outside the store, each with why. */
const WRITES_ELSEWHERE: Record<string, string> = {
  'state-machine/local-experiment.ts':
    "resumeInput settles the clock from the last turn as it updates the experiment: one statement, as the Data API's " +
    "calls share no transaction (and returns the provider waits its turns recorded, left out of the run's duration)",
  'bench/seed-sweep.ts': "seeds a large sweep's cells from a recorded experiment's maze",
  'bench/viewer.ts': "seeds the viewer's sweep cells from its experiments' mazes",
};

/** The text of each string and template literal of a source file (a template's substitutions as `?`). */
function literals(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text);
    else if (ts.isTemplateExpression(node))
      out.push([node.head.text, ...node.templateSpans.map((span) => `?${span.literal.text}`)].join(''));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('the read model is the one home of the reads of results', () => {
  const files = sources();
  // each file outside the read model's home with its SQL that names a results table or view, reads and writes apart
  const statements = files
    .filter((f) => !/^(results|core\/store|rehearsal)\//.test(f))
    .map((f) => ({ f, sql: literals(f).filter((l) => READS_RESULTS.test(l)) }))
    .filter(({ sql }) => sql.length > 0)
    .map(({ f, sql }) => ({ f, reads: sql.some((l) => !WRITES.test(l)), writes: sql.some((l) => WRITES.test(l)) }));

  it('finds the results tables and views in the migrations', () => {
    const expected = ['experiments', 'turns', 'actions', 'llm_calls', 'experiment_summary', 'sweeps', 'sweep_runs'];
    expect(RESULTS_RELATIONS).toEqual(expect.arrayContaining([...expected, 'sweep_stats', 'sweep_run_pairs']));
  });

  it('reads the results in results/ only: a SELECT elsewhere fails here, naming its file', () => {
    const readers = statements.filter((s) => s.reads && !READS_ELSEWHERE[s.f]).map((s) => s.f);
    expect(readers, 'move these reads into results/ (results/summary-row.ts has the row type)').toEqual([]);
    const writers = statements.filter((s) => s.writes && !WRITES_ELSEWHERE[s.f]).map((s) => s.f);
    expect(writers, 'a write belongs to the store (core/store), the registry or the migrations').toEqual([]);
  });

  it('keeps no exception that is no longer needed', () => {
    const stale = [
      ...Object.keys(READS_ELSEWHERE).filter((f) => !statements.some((s) => s.f === f && s.reads)),
      ...Object.keys(WRITES_ELSEWHERE).filter((f) => !statements.some((s) => s.f === f && s.writes)),
    ];
    expect(stale).toEqual([]);
  });

  it('declares the summary row type once, in results/summary-row.ts', () => {
    // first_stuck_detector is a column of the summary row only: a type that declares it declares the row again
    const declaring = files.filter((f) => /\bfirst_stuck_detector\??:/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(declaring).toEqual(['results/summary-row.ts']);
  });

  it('imports only core/ and aws-facts/ from the project: the reports, viewer and CLI stand on it', () => {
    const upward = files
      .filter((f) => f.startsWith('results/'))
      .flatMap((f) =>
        [...readFileSync(join(ROOT, f), 'utf8').matchAll(/from '(\.[^']+)'/g)]
          .map((m) => relative(ROOT, resolve(dirname(join(ROOT, f)), m[1])))
          .filter((target) => !/^(results|core|aws-facts)\//.test(target))
          .map((target) => `${f} -> ${target}`),
      );
    expect(upward).toEqual([]);
  });
});
