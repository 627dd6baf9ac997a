// Comments say why, briefly: a file's opening comment is at most five lines (detail goes beside the code it
// explains, or into docs/), and an AWS rule is cited by its key in aws-facts/facts.ts, the table of AWS's pages.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { allFacts } from '../aws-facts/facts.ts';
import { houseFiles } from '../bench/house-files.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CODE = /\.(ts|mts|mjs|js)$/;
const MAX_HEADER_LINES = 5;

/**
 * Pages cited for a rule that has no fact in aws-facts/facts.ts yet, by file: each stays a URL until it gets one.
 * A page not listed here fails the test; one listed but no longer cited fails it too, so the list stays current.
 */
const UNFACTED_PAGES: Record<string, string[]> = {
  // data, not comments: the model table's sources, kept with each row it prices and windows
  'core/config/model-table.ts': [
    'bedrock/latest/userguide/claude-messages-adaptive-thinking.html',
    'bedrock/latest/userguide/model-lifecycle.html',
    'bedrock/latest/userguide/model-card-anthropic-claude',
  ],
};

/** Lines of the comment a file opens with (// lines or a block comment), a #! line and tool directives not counted. */
function headerLines(text: string): number {
  const lines = text.split('\n');
  let i = lines[0]?.startsWith('#!') ? 1 : 0;
  let count = 0;
  let inBlock = false;
  for (; i < lines.length; i++) {
    const t = lines[i].trim();
    if (!inBlock && /^(\/\/\/ <reference|\/\* (global|eslint))/.test(t)) continue;
    if (inBlock) {
      count++;
      if (t.includes('*/')) inBlock = false;
    } else if (t.startsWith('//')) count++;
    else if (t.startsWith('/*')) {
      count++;
      inBlock = !t.includes('*/');
    } else break;
  }
  return count;
}

/** The docs.aws.amazon.com pages a text cites, as the path after the host. */
function awsDocPages(text: string): string[] {
  return [...text.matchAll(/docs\.aws\.amazon\.com\/(\S+?)(?=[\s'"`),;]|$)/g)].map((m) => m[1]);
}

const ALL = houseFiles(CODE);

/** Each key cited as `aws-facts: KEY` (a trailing `*` stands for every key it begins), with its file. */
function citedFactKeys(file: string, text: string): Array<{ file: string; key: string }> {
  return [...text.matchAll(/aws-facts: ([a-z][\w.-]*[\w*])/g)].map((m) => ({ file, key: m[1] }));
}

describe('comments say why, briefly', () => {
  it('counts a header by its comment lines, not its directives', () => {
    expect(headerLines('#!/usr/bin/env node\n// one\n// two\nimport x from "y";\n')).toBe(2);
    expect(headerLines('/// <reference lib="dom" />\n/**\n * a\n */\nconst x = 1;\n')).toBe(3);
    expect(headerLines('// a\n/* global Chart */\nconst x = 1;\n')).toBe(1);
    expect(headerLines('import x from "y";\n// not a header\n')).toBe(0);
  });

  it(`no file opens with a comment of more than ${MAX_HEADER_LINES} lines`, () => {
    const long = ALL.flatMap((file) => {
      const n = headerLines(readFileSync(join(ROOT, file), 'utf8'));
      return n > MAX_HEADER_LINES ? [`${file}: ${n} lines`] : [];
    });
    expect(long).toEqual([]);
  });

  it('code outside aws-facts/ cites an AWS rule by its fact key, not by its page', () => {
    const cited = ALL.filter(
      (file) => !file.startsWith('aws-facts/') && file !== join('test', 'source-comments.test.ts'),
    ).flatMap((file) => awsDocPages(readFileSync(join(ROOT, file), 'utf8')).map((page) => ({ file, page })));
    const allowed = (file: string, page: string) => (UNFACTED_PAGES[file] ?? []).some((p) => page.startsWith(p));
    expect(cited.filter(({ file, page }) => !allowed(file, page)).map(({ file, page }) => `${file}: ${page}`)).toEqual(
      [],
    );
    const stale = Object.entries(UNFACTED_PAGES).flatMap(([file, pages]) =>
      pages.filter((p) => !cited.some((c) => c.file === file && c.page.startsWith(p))).map((p) => `${file}: ${p}`),
    );
    expect(stale).toEqual([]);
  });

  it('every `aws-facts: KEY` citation names a fact of the table', () => {
    const keys = allFacts().map((f) => f.key as string);
    const known = (key: string) =>
      key.endsWith('*') ? keys.some((k) => k.startsWith(key.slice(0, -1))) : keys.includes(key);
    const cited = ALL.flatMap((file) => citedFactKeys(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(cited.length).toBeGreaterThan(10);
    expect(cited.filter(({ key }) => !known(key)).map(({ file, key }) => `${file}: ${key}`)).toEqual([]);
  });
});
