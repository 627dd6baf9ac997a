// The ariadne command as a user runs it: a real process, real exit codes.
import { spawn } from 'node:child_process';
import pg from 'pg';
import { writeFileSync } from 'node:fs';
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
    [['run', '--maze-file', join(dir, 'missing.json')], /--maze-file ".*missing\.json" cannot be read: ENOENT/],
    [['run', '--max-moves', '0'], /--max-moves must be a whole number from 1 to 1000000, got 0/],
    [['run', '--success-rule', 'touched'], /--success-rule "touched" is not one of: seen, reached/],
    [['run', '--stuck-policy', 'panic'], /--stuck-policy "panic" is not one of: observe, advise, halt/],
    [['run', '--vision-range', '0'], /--vision-range must be a whole number from 1 to 50, got 0/],
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

  it('a bad DATABASE_URL names the variable and the expected form', () => {
    const r = ariadne(['run'], { DATABASE_URL: 'mysql://root@localhost/db' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'DATABASE_URL "mysql://root@localhost/db" has scheme "mysql:"; ' +
        'expected postgres://user:password@host:5432/database',
    );
  });

  it('an unknown command or option is a usage error', () => {
    const r = ariadne(['run', '--colour', 'blue']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--colour'/);
  });
});

describe('stuck policy from the command line', () => {
  it('--stuck-policy halt ends a looping random walk as stuck; the summary shows the phases and the signal', () => {
    const r = ariadne([
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
    expect(r.stdout).toMatch(new RegExp(`^stuck\\s+1 signal\\(s\\), first ${status![1]} at action \\d+$`, 'm'));
    expect(r.stdout).toMatch(/actions per phase: exploring \d+ \(\d+%\)/);
    expect(r.stdout).toMatch(/timeline: exploring 1-\d+ > /);
    const id = /^experiment\s+(\S+)$/m.exec(r.stdout)![1];
    const json = JSON.parse(ariadne(['summary', id, '--json']).stdout);
    expect(json).toMatchObject({ status: 'stuck', stop_reason: status![1], stuck_policy: 'halt', stuck_signals: 1 });
    expect(json.signals).toMatchObject([{ detector: status![1], policy: 'halt' }]);
    expect(json.phases.at(-1).toStep).toBe(json.actions);
  });
});

describe('commands', () => {
  it('run prints a summary that matches the database', async () => {
    const r = ariadne(['run', '--agent', 'frontier', '--maze', 'light', '--size', '15', '--seed', '3', '--json']);
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

  it('run shows progress while it works and a readable summary at the end', () => {
    const r = ariadne([
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

  it('run takes its defaults from the parameters file; options still win', () => {
    const file = parametersFile(['/ariadne/config/max_moves: 24', '/ariadne/config/max_actions_per_turn: 4']);
    const r = ariadne(
      ['run', '--agent', 'random', '--maze', 'perfect', '--size', '41', '--max-actions-per-turn', '6', '--json'],
      { ARIADNE_PARAMETERS: file },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'timeout', actions: 24, turns: 4 }); // 24 moves, 6 per turn
  });

  it('mazes lists every generator', () => {
    const r = ariadne(['mazes']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(13);
    expect(r.stdout).toMatch(/^perfect .*odd sizes only/m);
  });

  it('maze --out exports a file that run --maze-file accepts', () => {
    const file = join(dir, 'exported.json');
    const shown = ariadne(['maze', '--maze', 'spiral', '--size', '11', '--seed', '2', '--out', file]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/spiral 11x11 seed 2/);
    const r = ariadne(['run', '--maze-file', file, '--agent', 'frontier', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ maze_generator: 'imported', goal_found: true });
  });

  it('--help describes run options', () => {
    const r = ariadne(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--agent <name>/);
    expect(r.stdout).toMatch(/--maze-file <path>/);
  });

  it('sql prints rows as a table; a broken query exits 2 with the database error', () => {
    const r = ariadne(['sql', "SELECT 2 + 3 AS five, 'a' AS letter"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/five \| letter\n-+-\+-+\n5 +\| a\n\(1 row\)/);
    const bad = ariadne(['sql', 'SELEC 1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/the query failed: syntax error at or near "SELEC"/);
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
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', resolve);
      child.kill('SIGINT');
    });
    expect(code).toBe(0);
  });
});
