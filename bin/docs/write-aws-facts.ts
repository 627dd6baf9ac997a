// npm run docs: writes docs/aws-facts.md from the facts table and the simulators that read it (aws-facts-page.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { awsFactsPage, AWS_FACTS_PAGE_PATH } from './aws-facts-page.ts';

writeFileSync(join(import.meta.dirname, '..', '..', AWS_FACTS_PAGE_PATH), awsFactsPage());
process.stdout.write(`wrote ${AWS_FACTS_PAGE_PATH}\n`);
