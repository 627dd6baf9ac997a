// The code says why, not when: no comment names an issue of this project (git log holds the history). A citation of
// another project's issue (owner/repo issue N, a github.com link) is a source, and stays.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { houseFiles } from '../bench/house-files.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CODE = /\.(ts|mjs|js|sql)$/;
// this file names issues to test the rule
const files = () => houseFiles(CODE).filter((path) => path !== join('test', 'source-history.test.ts'));

/** A mention of one of this project's issues: "issue 30", "Issue 17's", "issues 3 and 4" not after owner/repo. */
function ownIssueMentions(text: string): number[] {
  return text.split('\n').flatMap((line, i) => {
    const own = [...line.matchAll(/\b[Ii]ssues? #?\d+/g)].filter((m) => {
      const before = line.slice(0, m.index);
      return !/[\w.-]+\/[\w.-]+ $/.test(before) && !/github\.com\S*$/.test(before);
    });
    return own.length > 0 ? [i + 1] : [];
  });
}

describe('history stays in git', () => {
  it("finds an issue of ours and lets another project's issue be cited", () => {
    expect(ownIssueMentions('// built for issue 30, item 5\n// openai/openai-python issue 2072 says so\n')).toEqual([
      1,
    ]);
  });

  it('no source names an issue of this project', () => {
    const found = files().flatMap((file) =>
      ownIssueMentions(readFileSync(join(ROOT, file), 'utf8')).map((line) => `${relative('.', file)}:${line}`),
    );
    expect(found).toEqual([]);
  });
});
