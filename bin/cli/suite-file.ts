// A suite file written back as the repository keeps it: its JSON laid out as `prettier --check` wants (suite files
// are data files of the repository). Used by bin/make-suite-reference.ts and `ariadne suite record-humans`.
import { writeFileSync } from 'node:fs';
import type { MazeSuite } from '../../core/maze/suites.ts';

/** Writes `suite` to `path`, laid out by Prettier with the repository's settings for that path. */
export async function writeSuiteFile(path: string, suite: MazeSuite): Promise<void> {
  // loaded only here: the other commands start without it
  const { format, resolveConfig } = await import('prettier');
  writeFileSync(path, await format(JSON.stringify(suite), { ...(await resolveConfig(path)), filepath: path }));
}
