// One Postgres for the whole run: TEST_DATABASE_URL when given (any server),
// else an embedded server in a fresh temp directory, removed afterwards.
// Test files isolate themselves in schemas of their own (see db.ts).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../lambdas/store/embedded.ts';

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
  assemblies = mkdtempSync(join(tmpdir(), 'ariadne-assembly-'));
  project.provide('assemblyDir', join(assemblies, 'cdk.out'));
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    project.provide('databaseUrl', external);
    project.provide('databaseKind', 'external');
    return;
  }
  parent = mkdtempSync(join(tmpdir(), 'ariadne-test-'));
  chmodSync(parent, 0o755); // as root the server runs as "postgres", who must reach the data dir
  server = await startEmbeddedPostgres({ dataDir: join(parent, 'pgdata'), persistent: false });
  project.provide('databaseUrl', server.url);
  project.provide('databaseKind', 'embedded');
}

export async function teardown(): Promise<void> {
  if (assemblies) rmSync(assemblies, { recursive: true, force: true });
  await server?.stop();
  if (parent) rmSync(parent, { recursive: true, force: true });
}
