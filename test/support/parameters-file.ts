// A local parameters file (the stand-in for Parameter Store) for one test.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function parametersFile(lines: string[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'ariadne-params-')), 'parameters.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
