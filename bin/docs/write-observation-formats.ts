// npm run docs: writes docs/observation-formats.md from the code that renders
// prompts and observations (observation-formats-page.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { observationFormatsPage, PAGE_PATH } from './observation-formats-page.ts';

const file = join(import.meta.dirname, '..', '..', PAGE_PATH);
writeFileSync(file, observationFormatsPage());
process.stdout.write(`wrote ${PAGE_PATH}\n`);
