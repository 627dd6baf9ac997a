// The local runs' log (bin/cli/run-log.ts) through the command a user types: `ariadne run` appends one JSON line per
// turn and one per experiment event to ariadne-<UTC date>.jsonl in ARIADNE_LOG_DIR, with the fields the Lambda
// functions log (core/telemetry); --verbose streams the same lines to stderr; a directory that cannot be written is
// refused before anything runs.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './support/cli.ts';
import { tableCounts, testDatabase, type TestDatabase } from './support/db.ts';
import { tempDir } from './support/temp-dir.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});
afterAll(async () => {
  await db.drop();
});
const { ariadne } = cli(() => db);

type Line = Record<string, unknown> & { level: string; message: string; experimentId?: string };
const linesOf = (text: string): Line[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
/** Every line the day files in `dir` hold (a run across midnight UTC writes two). */
const logged = (dir: string): Line[] =>
  readdirSync(dir)
    .filter((f) => /^ariadne-\d{4}-\d{2}-\d{2}\.jsonl$/.test(f))
    .sort()
    .flatMap((f) => linesOf(readFileSync(join(dir, f), 'utf8')));
const RUN = ['run', '--agent', 'frontier', '--maze', 'medium', '--size', '11', '--seed', '3', '--json'];

describe('the log of a local run', () => {
  it('appends a line per turn and per experiment event to the log file, with the Lambda lines fields', async () => {
    const dir = tempDir('run-log');
    const r = await ariadne([...RUN, '--experiment-id', 'log-run'], { ARIADNE_LOG_DIR: dir });
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { turns: number; actions: number };
    const lines = logged(dir);
    const turns = lines.filter((l) => l.message === 'turn');
    expect(turns).toHaveLength(summary.turns);
    expect(turns.map((t) => t.turn)).toEqual([...Array(summary.turns).keys()].map((i) => i + 1));
    for (const t of turns)
      expect(t).toMatchObject({
        level: 'INFO',
        service: 'ariadne',
        experimentId: 'log-run',
        state: 'InvokeBaselineAgent',
        provider: 'baseline',
        agent: 'frontier',
        replayed: false,
      });
    // null fields are left out, as Powertools leaves them out of the Lambda lines: a baseline has no model, no tokens
    expect(turns[0]).not.toHaveProperty('model');
    expect(turns[0]).not.toHaveProperty('inputTokens');
    expect(turns.reduce((n, t) => n + (t.actions as number), 0)).toBe(summary.actions);
    expect(typeof turns[0].durationMs).toBe('number');
    expect(Date.parse(turns[0].timestamp as string)).not.toBeNaN();
    expect(lines[0]).toMatchObject({
      message: 'experiment started',
      experimentId: 'log-run',
      state: 'StartExperiment',
    });
    expect(lines.at(-1)).toMatchObject({
      message: 'experiment finalized',
      experimentId: 'log-run',
      status: 'completed',
      state: 'FinalizeSuccess',
    });
    // not streamed without --verbose: stderr keeps its own lines, and says where the file is
    expect(linesOf(r.stderr)).toEqual([]);
  });

  it('--verbose streams the same lines to stderr as they are written to the file', async () => {
    const dir = tempDir('run-log-verbose');
    const r = await ariadne([...RUN, '--experiment-id', 'log-verbose', '--verbose'], { ARIADNE_LOG_DIR: dir });
    expect(r.code, r.stderr).toBe(0);
    const streamed = linesOf(r.stderr);
    expect(streamed.filter((l) => l.message === 'turn').length).toBe((JSON.parse(r.stdout) as { turns: number }).turns);
    expect(streamed).toEqual(logged(dir));
  });

  it('a second run appends to the same day file; --json keeps stdout the summary alone', async () => {
    const dir = tempDir('run-log-append');
    for (const id of ['append-1', 'append-2'])
      expect((await ariadne([...RUN, '--experiment-id', id], { ARIADNE_LOG_DIR: dir })).code).toBe(0);
    const ids = new Set(logged(dir).map((l) => l.experimentId));
    expect([...ids].sort()).toEqual(['append-1', 'append-2']);
  });

  it('a log directory that cannot be written: an environment error naming ARIADNE_LOG_DIR, nothing run', async () => {
    const file = join(tempDir('run-log-bad'), 'not-a-dir');
    writeFileSync(file, '');
    const before = await tableCounts(db);
    const r = await ariadne([...RUN, '--experiment-id', 'log-bad'], { ARIADNE_LOG_DIR: file });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/ARIADNE_LOG_DIR/);
    expect(await tableCounts(db)).toEqual(before);
  });
});
