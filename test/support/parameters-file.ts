// A local parameters file (the stand-in for Parameter Store) for one test.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir.ts';

export function parametersFile(lines: string[]): string {
  const file = join(tempDir('params'), 'parameters.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
