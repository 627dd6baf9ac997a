// npm run docs: writes every generated page of docs/ from the code it describes; each page's test fails when the
// committed page is not what this writes now.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { observationFormatsPage, PAGE_PATH } from './observation-formats-page.ts';
import { awsFactsPage, AWS_FACTS_PAGE_PATH } from './aws-facts-page.ts';
import { cliReferencePage, CLI_REFERENCE_PATH } from './cli-reference-page.ts';
import { environmentPage, ENVIRONMENT_PAGE_PATH } from './environment-page.ts';
import { settingsPage, SETTINGS_PAGE_PATH } from './settings-page.ts';

const PAGES: Array<[path: string, render: () => string]> = [
  [PAGE_PATH, observationFormatsPage], // what a model is shown
  [AWS_FACTS_PAGE_PATH, awsFactsPage], // the AWS facts and the simulators that enforce them
  [CLI_REFERENCE_PATH, cliReferencePage], // every command, from its definition
  [ENVIRONMENT_PAGE_PATH, environmentPage], // every environment variable the code reads
  [SETTINGS_PAGE_PATH, () => settingsPage()], // every setting, from the config schema
];

for (const [path, render] of PAGES) {
  writeFileSync(join(import.meta.dirname, '..', '..', path), render());
  process.stdout.write(`wrote ${path}\n`);
}
