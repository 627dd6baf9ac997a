// The package's version, read at runtime from package.json, for the files an export writes (Inspect's packages,
// OTLP's service.version) to say which Ariadne wrote them.
import { readFileSync } from 'node:fs';

const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export const ARIADNE_VERSION = PACKAGE.version;
