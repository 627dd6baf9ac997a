// Test files share a worker process one after another (isolate: false in vitest.config.ts): what a file sets in
// process.env is put back as it was when the file ends, so no file runs with another's variables (or spawns CLIs
// with them).
import { afterAll } from 'vitest';

const saved = { ...process.env };
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});
