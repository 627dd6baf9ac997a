// The ariadne command as a user runs it: its output and exit codes (a process where the process itself is tested).
import { spawn, spawnSync } from 'node:child_process';
import pg from 'pg';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';
import { parametersFile } from './support/parameters-file.ts';
import { cli, ROOT } from './support/cli.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});
const { ariadne, expectInputError } = cli(() => db);

const dir = tempDir('cli');
const malformed = join(dir, 'malformed.json');
writeFileSync(malformed, '{"grid": [[0, 1], [1');

describe('bad input: exit 2, a message naming option, value and fix, nothing written', () => {
  it.each([
    [['run', '--maze', 'labyrinth'], /--maze "labyrinth" is not one of: sparse, light, medium/],
    [['run', '--size', '4'], /--size must be a whole number from 5 to 201, got 4/],
    [['run', '--maze', 'perfect', '--size', '30'], /"perfect" needs an odd width, got 30; use 29 or 31/],
    [['run', '--seed', '7.5'], /--seed must be a whole number from 0 to 4294967295, got "7.5"/],
    [['run', '--seed', 'seven'], /--seed must be a whole number .* got "seven"/],
    [['run', '--agent', 'gpt-5'], /--agent "gpt-5" is not one of: random, frontier/],
    [['run', '--maze-file', malformed], /malformed\.json is not valid JSON/],
    [
      ['run', '--maze-file', join(dir, 'missing.json')],
      /--maze-file ".*missing\.json" cannot be read: no such file or directory \(ENOENT\)/,
    ],
    [['run', '--max-moves', '0'], /--max-moves must be a whole number from 1 to 1000000, got 0/],
    [['run', '--success-rule', 'touched'], /--success-rule "touched" is not one of: seen, reached/],
    [['run', '--stuck-policy', 'panic'], /--stuck-policy "panic" is not one of: observe, advise, halt/],
    [['run', '--vision-range', '0'], /--vision-range must be a whole number from 1 to 50, got 0/],
    [
      ['run', '--agent', 'frontier', '--observation', 'image'],
      /config\.observation "image" is for model agents \(ollama, bedrock, openai\); the frontier baseline .*: leave/,
    ],
    [
      ['run', '--max-moves', '100000', '--max-turns', '5000'],
      new RegExp(
        'max_moves: 100000 can never be reached: max_turns 5000 x max_actions_per_turn 8 allow at most 40000 ' +
          'actions; raise max_turns to at least 12500 \\(--max-turns\\), leave it out',
      ),
    ],
    [
      ['run', '--maze', 'open_field', '--size', '15', '--vision-range', '40', '--see-through'],
      /vision_range 40 with see_through and success_rule "seen" the goal is already found at the start/,
    ],
  ])('ariadne %j', expectInputError);

  it.each([
    [['--agent', 'random', '--provider', 'ollama', '--model', 'qwen2.5:7b'], '--agent', '--provider'],
    [['--maze-file', malformed, '--maze', 'spiral'], '--maze-file', '--maze'],
    [['--maze-file', malformed, '--size', '21'], '--maze-file', '--size'],
    [['--agent', 'frontier', '--agent-seed', '3'], '--agent-seed', '--agent'],
    [['--provider', 'bedrock', '--model', 'm', '--ollama-host', 'http://127.0.0.1:1'], '--ollama-host', '--provider'],
    [['--agent', 'random', '--region', 'eu-west-1'], '--region', '--agent'],
    [['--agent', 'random', '--prompt-version', 'v1'], '--prompt-version', '--agent'],
  ])('contradicting options %j are refused naming both (exit 2, nothing written)', async (args, a, b) => {
    await expectInputError(['run', ...args], new RegExp(`${a} and ${b} contradict each other: `));
  });

  it('a default never contradicts: --provider without --agent, --maze-file without --maze', async () => {
    // The file is malformed, so the run stops at the file, after the contradiction check passed.
    await expectInputError(['run', '--maze-file', malformed], /malformed\.json is not valid JSON/);
    await expectInputError(
      ['run', '--provider', 'ollama', '--model', 'qwen2.5:7b', '--prompt-version', 'v99'],
      /--prompt-version "v99" is not defined/,
    );
  });

  it('input files are read from where the user ran from (INIT_CWD under npm run), not the package root', async () => {
    const r = await ariadne(['run', '--maze-file', 'malformed.json'], { INIT_CWD: dir });
    expect(r.stderr).toMatch(/malformed\.json is not valid JSON/);
    expect(r.code).toBe(2);
    const sweep = await ariadne(['sweep', 'malformed.json'], { INIT_CWD: dir });
    expect(sweep.stderr).not.toMatch(/cannot be read/);
    expect(sweep.code).toBe(2);
  });

  it('a bad DATABASE_URL names the variable and the expected form', async () => {
    const r = await ariadne(['run'], { DATABASE_URL: 'mysql://root@localhost/db' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'DATABASE_URL "mysql://root@localhost/db" has scheme "mysql:"; ' +
        'expected postgres://user:password@host:5432/database',
    );
  });

  it('an unknown command or option is a usage error', async () => {
    const r = await ariadne(['run', '--colour', 'blue']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--colour'/);
  });
});

describe('stuck policy from the command line', () => {
  it('--stuck-policy halt ends a looping random walk as stuck; the summary shows phases and signal', async () => {
    const r = await ariadne([
      'run',
      '--agent',
      'random',
      '--maze',
      'medium',
      '--size',
      '21',
      '--seed',
      '3',
      '--max-moves',
      '400',
      '--stuck-policy',
      'halt',
      '--quiet',
    ]);
    expect(r.code).toBe(0);
    const status = /^status\s+stuck \((\w+)\): (.+)$/m.exec(r.stdout);
    expect(status).not.toBeNull();
    expect(r.stdout).toMatch(/^phase\s+stuck \(stuck policy: halt\)$/m);
    expect(r.stdout).toMatch(
      new RegExp(`^stuck\\s+1 signal: ${status![1]} 1; first ${status![1]} at action \\d+$`, 'm'),
    );
    expect(r.stdout).toMatch(/actions per phase: exploring \d+ \(\d+%\)/);
    expect(r.stdout).toMatch(/timeline: exploring 1-\d+ > /);
    const id = /^experiment\s+(\S+)$/m.exec(r.stdout)![1];
    const json = JSON.parse((await ariadne(['summary', id, '--json'])).stdout);
    expect(json).toMatchObject({ status: 'stuck', stop_reason: status![1], stuck_policy: 'halt', stuck_signals: 1 });
    expect(json.signals).toMatchObject([{ detector: status![1], policy: 'halt' }]);
    expect(json.phases.at(-1).toStep).toBe(json.actions);
  });
});

describe('commands', () => {
  it('run prints a summary that matches the database', async () => {
    const r = await ariadne(['run', '--agent', 'frontier', '--maze', 'light', '--size', '15', '--seed', '3', '--json']);
    expect(r.stderr).not.toMatch(/ariadne:/);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ status: 'completed', goal_found: true, maze_generator: 'light', maze_width: 15 });
    const { rows } = await db.pool.query(
      'SELECT count(*)::int AS n FROM actions WHERE experiment_id = $1 AND executed',
      [summary.experiment_id],
    );
    expect(rows[0].n).toBe(summary.actions);
  });

  it('run shows progress while it works and a readable summary at the end', async () => {
    const r = await ariadne([
      'run',
      '--agent',
      'random',
      '--agent-seed',
      '2',
      '--maze',
      'dense',
      '--size',
      '21',
      '--max-moves',
      '40',
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^turn 1 \| actions 8\/40 \| tiles seen \d+ \| position \(\d+,\d+\)/m);
    expect(r.stderr).toMatch(/^turn 5 \| actions 40\/40 \|/m);
    expect(r.stdout).toMatch(/^status +timeout \(max_moves\)$/m);
    expect(r.stdout).toMatch(/^actions +40$/m);
  });

  it('run takes its defaults from the parameters file; options still win', async () => {
    const file = parametersFile(['/ariadne/config/max_moves: 24', '/ariadne/config/max_actions_per_turn: 4']);
    const r = await ariadne(
      ['run', '--agent', 'random', '--maze', 'perfect', '--size', '41', '--max-actions-per-turn', '6', '--json'],
      { ARIADNE_PARAMETERS: file },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'timeout', actions: 24, turns: 4 }); // 24 moves, 6 per turn
  });

  it('mazes lists every generator', async () => {
    const r = await ariadne(['mazes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^name +\| sizes +\| description\n/);
    expect(r.stdout).toMatch(/\n\(13 rows\)\n$/);
    expect(r.stdout).toMatch(/^perfect +\| odd only \| recursive-backtracker maze/m);
  });

  it('maze --out exports a file that run --maze-file accepts', async () => {
    const file = join(dir, 'exported.json');
    const shown = await ariadne(['maze', '--maze', 'spiral', '--size', '11', '--seed', '2', '--out', file]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/spiral 11x11 seed 2/);
    const r = await ariadne(['run', '--maze-file', file, '--agent', 'frontier', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ maze_generator: 'imported', goal_found: true });
  });

  it('--help describes run options', async () => {
    const r = await ariadne(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--agent <name>/);
    expect(r.stdout).toMatch(/--maze-file <path>/);
  });

  it('sql prints rows as a table; a broken query exits 2 with the database error', async () => {
    const r = await ariadne(['sql', "SELECT 2 + 3 AS five, 'a' AS letter"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/five \| letter\n-+-\+-+\n5 +\| a\n\(1 row\)/);
    // several statements run in order on one connection (a temporary table lives there); the last one's rows print
    const several = await ariadne([
      'sql',
      '--write',
      'CREATE TEMP TABLE seven AS SELECT 7 AS n; SELECT n FROM seven WHERE false',
    ]);
    expect(several.code).toBe(0);
    expect(several.stdout).toMatch(/^n\n-\n\(0 rows\)/m);
    const bad = await ariadne(['sql', 'SELEC 1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/the query failed: syntax error at or near "SELEC"/);
  });

  it('sql reads only: a write is refused naming --write, and changes nothing; with --write it runs', async () => {
    for (const write of ['CREATE TABLE stray (n int)', "UPDATE experiments SET status = 'failed'"]) {
      const r = await ariadne(['sql', write]);
      expect(r.code, r.stdout).toBe(2);
      expect(r.stderr).toMatch(/ariadne sql reads: cannot execute (CREATE TABLE|UPDATE) in a read-only transaction/);
      expect(r.stderr).toMatch(/add --write/);
    }
    const exists = async () =>
      (await ariadne(['sql', "SELECT to_regclass('stray') IS NOT NULL AS there", '--json'])).stdout;
    expect(JSON.parse(await exists())).toEqual([{ there: false }]);
    expect((await ariadne(['sql', "SELECT count(*)::int AS n FROM experiments WHERE status = 'failed'"])).code).toBe(0);
    // several statements are one read-only transaction too: the write among them is refused
    expect((await ariadne(['sql', 'SELECT 1; CREATE TABLE stray (n int)'])).code).toBe(2);
    expect((await ariadne(['sql', '--write', 'CREATE TABLE stray (n int)'])).code).toBe(0);
    expect(JSON.parse(await exists())).toEqual([{ there: true }]);
    expect((await ariadne(['sql', '--write', 'DROP TABLE stray'])).code).toBe(0);
  });

  it('db serves the database until interrupted', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/ariadne.ts', 'db'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema },
    });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /^DATABASE_URL=(\S+)$/m.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code} before printing the URL`)));
    });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await client.end();
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const ended = await new Promise<{ code: number | null; signal: string | null }>((resolve) => {
      child.on('exit', (code, signal) => resolve({ code, signal }));
      child.kill('SIGINT');
    });
    // the signal and stderr in the message: a process ended by a signal (code null) says which, and what it wrote
    expect(ended, `stderr: ${err}`).toEqual({ code: 0, signal: null });
  });
});

/** Hints as an installed `ariadne` prints them (tests run under `npm test`, which sets npm's variables). */
const INSTALLED = { npm_lifecycle_event: '', npm_package_name: '' };
const VIA_NPM = { npm_lifecycle_event: 'ariadne', npm_package_name: 'ariadne' };

describe('the summary a researcher reads', () => {
  let id = '';

  it("counts a long run's stuck signals by kind in one line, and ends with the next commands to try", async () => {
    const r = await ariadne(
      [
        'run',
        '--agent',
        'random',
        '--agent-seed',
        '5',
        '--maze',
        'medium',
        '--size',
        '21',
        '--seed',
        '3',
        '--max-moves',
        '2000',
        '--stuck-policy',
        'observe',
        '--quiet',
      ],
      INSTALLED,
    );
    expect(r.code).toBe(0);
    id = /^experiment\s+(\S+)$/m.exec(r.stdout)![1];
    const stuck = /^stuck\s+(\d+) signals: (.+); first (\w+) at action (\d+)$/m.exec(r.stdout);
    expect(stuck).not.toBeNull();
    const total = Number(stuck![1]);
    expect(total).toBeGreaterThan(20);
    const kinds = stuck![2].split(', ').map((k) => /^(\w+) (\d+)$/.exec(k)!);
    expect(kinds.length).toBeGreaterThan(1);
    const counts = kinds.map((k) => Number(k[2]));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(total);
    expect([...counts].sort((a, b) => b - a)).toEqual(counts); // most frequent first
    // one line for all of them: no line per signal
    expect(r.stdout).not.toMatch(/signal at action/);
    expect(r.stdout.trim().split('\n').length).toBeLessThan(30);
    expect(r.stdout).toMatch(/^ +actions per phase: exploring \d+ \(\d+%\)/m);
    expect(r.stdout).toMatch(/^ +timeline: exploring 1-/m);
    expect(r.stdout).toMatch(new RegExp(`^next: ariadne replay ${id} +\\(a step-by-step HTML replay\\)$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^ +ariadne summary ${id} --json +\\(`, 'm'));
    expect(r.stdout).toMatch(/^ +ariadne list +\(/m);
    expect(r.stdout).toMatch(/^ +ariadne view +\(every run in a browser/m);

    const viaNpm = await ariadne(['summary', id, '--json'], VIA_NPM);
    expect(viaNpm.stdout).not.toMatch(/next:/);
    const json = JSON.parse(viaNpm.stdout);
    expect(json.stuck_signals).toBe(total);
    expect(json.signals).toHaveLength(total);
    expect(json.signal_counts).toEqual(Object.fromEntries(kinds.map((k) => [k[1], Number(k[2])])));
    for (const [detector, n] of Object.entries(json.signal_counts))
      expect(json.signals.filter((g: { detector: string }) => g.detector === detector)).toHaveLength(n as number);
  });

  it('hints say `npm run ariadne --` under npm and `ariadne` otherwise', async () => {
    const viaNpm = await ariadne(['summary', id], VIA_NPM);
    expect(viaNpm.code).toBe(0);
    expect(viaNpm.stdout).toMatch(new RegExp(`^next: npm run ariadne -- replay ${id} +\\(`, 'm'));
    expect(viaNpm.stdout).toMatch(/^ +npm run ariadne -- list +\(/m);
    const missing = await ariadne(['summary', 'no-such-run'], VIA_NPM);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no experiment with id "no-such-run"; list them with: npm run ariadne -- list');
    const installed = await ariadne(['replay', 'no-such-run'], { ...INSTALLED, INIT_CWD: dir });
    expect(installed.code).toBe(2);
    expect(installed.stderr).toContain('no experiment with id "no-such-run"; list them with: ariadne list');
    expect(installed.stderr).not.toMatch(/npm run/);
  });
});

describe('ariadne list', () => {
  const sweepFile = join(dir, 'list-sweep.yaml');
  writeFileSync(
    sweepFile,
    [
      'sweep: list-test',
      'agents: [{ agent: random }, { agent: frontier }]',
      'mazes: { generators: [medium], sizes: [11], seeds: [1] }',
      'config: { max_moves: 60 }',
      'repeats: 2',
      'max_concurrency: 1',
    ].join('\n'),
  );
  type Row = { experiment_id: string; agent: string; status: string; sweep_id: string; started_at: string };
  const listJson = async (...args: string[]): Promise<Row[]> => {
    const r = await ariadne(['list', ...args, '--json']);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as Row[];
  };

  it('lists experiments newest first, filtered by sweep, status and agent, as a table or JSON', async () => {
    expect((await ariadne(['sweep', sweepFile, '--json'])).code).toBe(0);
    const { rows: stored } = await db.pool.query<{ id: string; status: string; agent: string }>(
      "SELECT id, status, agent FROM experiments WHERE sweep_id = 'list-test' ORDER BY started_at DESC, id",
    );
    expect(stored).toHaveLength(4);

    const all = await listJson('--sweep', 'list-test');
    expect(all.map((r) => r.experiment_id)).toEqual(stored.map((r) => r.id));
    const started = all.map((r) => Date.parse(r.started_at));
    expect([...started].sort((a, b) => b - a)).toEqual(started);
    expect(new Set(all.map((r) => r.sweep_id))).toEqual(new Set(['list-test']));

    const frontier = await listJson('--sweep', 'list-test', '--agent', 'frontier');
    expect(frontier.map((r) => r.experiment_id)).toEqual(stored.filter((r) => r.agent === 'frontier').map((r) => r.id));
    const timeouts = await listJson('--sweep', 'list-test', '--status', 'timeout');
    expect(timeouts.map((r) => r.experiment_id)).toEqual(stored.filter((r) => r.status === 'timeout').map((r) => r.id));

    // --wide: every column whole (the 100-column table may cut the maze; test/cli-tables.test.ts fits it)
    const table = await ariadne(['list', '--sweep', 'list-test', '--limit', '3', '--wide']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0].split('|').map((h) => h.trim())).toEqual([
      'id',
      'agent/model',
      'maze',
      'status',
      'actions',
      'efficiency',
      'started',
    ]);
    expect(lines.slice(2, 5).map((l) => l.split('|')[0].trim())).toEqual(stored.slice(0, 3).map((r) => r.id));
    expect(lines[2]).toMatch(/\| medium 11x11 s1 \|/);
    expect(lines.slice(-2)).toEqual(['(3 rows)', '(showing the newest 3; --limit <n> shows more)']);
    // exactly as many as the limit: nothing more to show
    expect((await ariadne(['list', '--sweep', 'list-test', '--limit', '4'])).stdout).toMatch(/\n\(4 rows\)\n$/);
  });

  it('--sweeps lists the sweeps with their runs done, succeeded, errors and how they ended, apart', async () => {
    const { rows } = await db.pool.query<{ succeeded: number; limited: number }>(
      `SELECT count(*) FILTER (WHERE goal_found)::int AS succeeded,
              count(*) FILTER (WHERE NOT goal_found AND status = 'timeout')::int AS limited
       FROM experiments WHERE sweep_id = 'list-test'`,
    );
    const { succeeded, limited } = rows[0];
    // the random agent meets its move limit: a stop reason, never counted as an error
    expect(limited).toBeGreaterThan(0);
    const sweeps = JSON.parse((await ariadne(['list', '--sweeps', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(sweeps.find((s) => s.sweep === 'list-test')).toMatchObject({
      runs: 4,
      done: 4,
      succeeded,
      errors: 0,
      stop_reasons: expect.objectContaining({ goal: succeeded, move_limit: limited, error: 0, outage: 0 }),
    });
    const table = await ariadne(['list', '--sweeps', '--sweep', 'list-test', '--wide']);
    expect(table.stdout).toMatch(/^sweep +\| runs \| done \| succeeded \| errors \| started +\| ended$/m);
    const ended = [succeeded > 0 ? `goal ${succeeded}` : '', `move limit ${limited}`].filter(Boolean).join(', ');
    expect(table.stdout).toMatch(
      new RegExp(`^list-test \\| +4 \\| +4 \\| +${succeeded} \\| +0 \\| \\d{4}-.* \\| ${ended}$`, 'm'),
    );
    expect(table.stdout).not.toMatch(/failed/);
  });

  it('says plainly when nothing matches and how to make one (exit 0); bad filters exit 2', async () => {
    const none = await ariadne(['list', '--agent', 'nobody-at-all'], INSTALLED);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe(
      'no experiments match --agent nobody-at-all; see them all with: ariadne list, or run one with: ' +
        'ariadne run --agent frontier --maze medium --size 15\n',
    );
    const noSweep = await ariadne(['list', '--sweeps', '--sweep', 'nope'], VIA_NPM);
    expect(noSweep.code).toBe(0);
    expect(noSweep.stdout).toMatch(/^no sweeps match --sweep nope; .* run one with: npm run ariadne -- sweep /);
    const bad = await ariadne(['list', '--status', 'lost']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--status "lost" is not one of: completed, timeout, failed, stuck, running/);
    expect((await ariadne(['list', '--sweeps', '--agent', 'random'])).code).toBe(2);
  });
});

describe('files the CLI writes go to one output directory', () => {
  const id = 'files-demo';
  const user = join(dir, 'user');
  mkdirSync(user, { recursive: true });
  const printedPath = (stdout: string) => /^(\/\S+\.html) \(/m.exec(stdout)?.[1];

  it('replay writes into ariadne-output/ in the directory the user ran from (INIT_CWD), printed absolute', async () => {
    expect(
      (
        await ariadne([
          'run',
          '--agent',
          'frontier',
          '--maze',
          'light',
          '--size',
          '11',
          '--experiment-id',
          id,
          '--json',
        ])
      ).code,
    ).toBe(0);
    const r = await ariadne(['replay', id], { INIT_CWD: user });
    expect(r.code).toBe(0);
    const file = join(user, 'ariadne-output', `replay-${id}.html`);
    expect(printedPath(r.stdout)).toBe(file);
    expect(readFileSync(file, 'utf8')).toMatch(/^<!doctype html>/i);
  });

  it("--out-dir (the command's or the program's) and ARIADNE_OUTPUT_DIR choose it; --out names a file", async () => {
    const cases: Array<[string[], Record<string, string>, string]> = [
      [['replay', id, '--out-dir', 'mine'], {}, join(user, 'mine', `replay-${id}.html`)],
      [['--out-dir', 'global', 'replay', id], {}, join(user, 'global', `replay-${id}.html`)],
      [['--out-dir', 'global', 'replay', id, '--out-dir', 'near'], {}, join(user, 'near', `replay-${id}.html`)],
      [['replay', id], { ARIADNE_OUTPUT_DIR: 'from-env/deep' }, join(user, 'from-env', 'deep', `replay-${id}.html`)],
      [['replay', id, '--out', 'named.html'], {}, join(user, 'named.html')],
    ];
    for (const [args, env, file] of cases) {
      const r = await ariadne(args, { INIT_CWD: user, ...env });
      expect(r.code, args.join(' ')).toBe(0);
      expect(printedPath(r.stdout)).toBe(file);
      expect(statSync(file).size).toBeGreaterThan(1000);
    }
  });

  it('run as an installed bin without npm: files go under the working directory', () => {
    const cwd = join(dir, 'plain');
    mkdirSync(cwd);
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'ariadne.js'), 'maze', '--maze', 'spiral', '--out'], {
      cwd,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, INIT_CWD: '', ARIADNE_OUTPUT_DIR: '' },
    });
    expect(r.status).toBe(0);
    const file = join(cwd, 'ariadne-output', 'maze-spiral-30x30-s7.json');
    expect(r.stdout).toContain(`written to ${file} (`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ generator: 'spiral', width: 30 });
  });

  it('a path that cannot be written exits 2 naming the option and value, in words', async () => {
    const aFile = join(dir, 'a-file');
    writeFileSync(aFile, 'not a directory');
    expect(existsSync('/nonexistent-parent-file')).toBe(false);
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [
        ['maze', '--out', '/nonexistent-parent-file/x.json'],
        {},
        /--out "\/nonexistent-parent-file\/x\.json" cannot be written .*: no such file or directory \(ENOENT\)/,
      ],
      [['maze', '--out', join(aFile, 'x.json')], {}, /--out ".*a-file\/x\.json" cannot be written .*not a directory/],
      [['replay', id, '--out', user], {}, /--out ".*user" cannot be written .*: is a directory \(EISDIR\)/],
      [['replay', id, '--out-dir', join(aFile, 'sub')], {}, /--out-dir ".*a-file\/sub" cannot be used as the output/],
      [['replay', id], { ARIADNE_OUTPUT_DIR: aFile }, /ARIADNE_OUTPUT_DIR ".*a-file" cannot be used/],
    ];
    for (const [args, env, message] of cases) {
      const r = await ariadne(args, env);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr).not.toMatch(/Error: E[A-Z]+/);
      expect(r.code, args.join(' ')).toBe(2);
    }
    expect(existsSync('/nonexistent-parent-file')).toBe(false);
  });
});
