// One Postgres for the whole run: TEST_DATABASE_URL when given (any server),
// else an embedded server in a fresh temp directory, removed afterwards.
// Test files isolate themselves in schemas of their own (see db.ts).
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../core/store/embedded.ts';
import { compileCli, isCliChunk } from '../../bin/compile-cli.ts';
import { compiledPart } from '../../bin/compiled.js';
import { RUN_DIR } from './run-dir.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The CLI tests run bin/ariadne.js, the installed entry (support/cli.ts): the CLI compiled as npm install builds it,
 * unless it is there and current. Built beside dist/ (the same depth, so the same relative paths to the sources)
 * and renamed in: its chunks, then the entry that imports them, its record of its sources last, so a CLI started
 * meanwhile (another run) finds whole files.
 */
async function compileCliIfStale(): Promise<void> {
  if (compiledPart('ariadne')) return; // as bin/ariadne.js decides
  const building = join(ROOT, `.dist-${process.pid}`);
  try {
    await compileCli(building);
    mkdirSync(join(ROOT, 'dist'), { recursive: true });
    const order = (file: string) => (isCliChunk(file) ? 0 : file.endsWith('.json') ? 2 : 1);
    const files = readdirSync(building).sort((a, b) => order(a) - order(b));
    for (const file of files) renameSync(join(building, file), join(ROOT, 'dist', file));
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/**
 * The experiment machine's definition is synthesized once and cached in the temp dir (state-machine/definition.ts);
 * done here, while Postgres starts, the first files to run an experiment do not each synthesize it at once, seconds
 * of CPU apiece.
 */
async function synthesizeDefinition(): Promise<void> {
  const script = "import('./state-machine/definition.ts').then((m) => m.experimentDefinition())";
  await promisify(execFile)(process.execPath, ['--import', 'tsx', '--eval', script], { cwd: ROOT });
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    databaseKind: 'embedded' | 'external';
    /** Where the run's one cloud assembly goes (test/support/assembly.ts synthesizes it on first use). */
    assemblyDir: string;
  }
}

let server: EmbeddedServer | null = null;
let parent: string | null = null;
let assemblies: string | null = null;

export async function setup(project: TestProject): Promise<void> {
  mkdirSync(RUN_DIR, { recursive: true });
  chmodSync(RUN_DIR, 0o755); // as root, the embedded server runs as "postgres", who must reach a data dir in it
  assemblies = mkdtempSync(join(tmpdir(), 'ariadne-assembly-'));
  project.provide('assemblyDir', join(assemblies, 'cdk.out'));
  const ready = Promise.all([compileCliIfStale(), synthesizeDefinition()]);
  ready.catch(() => undefined); // awaited below: a failure meanwhile is not left unhandled while Postgres starts
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    project.provide('databaseUrl', external);
    project.provide('databaseKind', 'external');
  } else {
    parent = mkdtempSync(join(tmpdir(), 'ariadne-test-'));
    chmodSync(parent, 0o755); // as root the server runs as "postgres", who must reach the data dir
    server = await startEmbeddedPostgres({ dataDir: join(parent, 'pgdata'), persistent: false });
    project.provide('databaseUrl', server.url);
    project.provide('databaseKind', 'embedded');
  }
  await ready;
}

export async function teardown(): Promise<void> {
  if (assemblies) rmSync(assemblies, { recursive: true, force: true });
  await server?.stop();
  if (parent) rmSync(parent, { recursive: true, force: true });
  rmSync(RUN_DIR, { recursive: true, force: true });
}
