// npm run docs: writes docs/cli.md from the ariadne program's command definitions (cli-reference-page.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliReferencePage, CLI_REFERENCE_PATH } from './cli-reference-page.ts';

writeFileSync(join(import.meta.dirname, '..', '..', CLI_REFERENCE_PATH), cliReferencePage());
process.stdout.write(`wrote ${CLI_REFERENCE_PATH}\n`);
