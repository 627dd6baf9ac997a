// The code says why, not when: no comment names an issue of this project (git log holds the history). A citation of
// another project's issue (owner/repo issue N, a github.com link) is a source, and stays.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CODE_DIRS = [
  'aws-facts',
  'bench',
  'bin',
  'core',
  'functions',
  'lib',
  'rehearsal',
  'reports',
  'results',
  'simulators',
];
const MORE_DIRS = ['state-machine', 'test', 'viewer'];
const CODE = /\.(ts|mjs|js|sql)$/;

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : files(path);
    // this file names issues to test the rule
    return CODE.test(e.name) && path !== join('test', 'source-history.test.ts') ? [path] : [];
  });
}

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
    const found = [...CODE_DIRS, ...MORE_DIRS].flatMap((dir) =>
      files(dir).flatMap((file) =>
        ownIssueMentions(readFileSync(join(ROOT, file), 'utf8')).map((line) => `${relative('.', file)}:${line}`),
      ),
    );
    expect(found).toEqual([]);
  });
});
