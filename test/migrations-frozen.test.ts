// An applied migration is never edited: every database keeps its checksum and refuses to start when the file
// changed (core/store/migrate.ts). This holds each committed migration to the checksum it was released with, so an
// edit (even of a comment) fails here rather than on a researcher's database.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMigrations } from '../core/store/migrate.ts';

const RELEASED: Record<string, string> = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures', 'migration-checksums.json'), 'utf8'),
) as Record<string, string>;

describe('the migrations', () => {
  it('are the files they were released as (add a new numbered migration instead of editing one)', async () => {
    const changed = (await loadMigrations())
      .filter((m) => RELEASED[m.name] !== undefined && RELEASED[m.name] !== m.checksum)
      .map((m) => m.name);
    expect(changed).toEqual([]);
  });

  it('each has its checksum recorded in test/fixtures/migration-checksums.json, none recorded is gone', async () => {
    const names = (await loadMigrations()).map((m) => m.name);
    expect(
      names.filter((n) => RELEASED[n] === undefined),
      'record a new migration with its sha256',
    ).toEqual([]);
    expect(Object.keys(RELEASED).filter((n) => !names.includes(n))).toEqual([]);
  });
});
