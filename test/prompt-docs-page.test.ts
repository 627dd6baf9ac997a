// docs/observation-formats.md is generated (npm run docs): it must be what the
// code renders now, or the page would show prompts and observations that no
// run gets. Regenerate it with `npm run docs` when this fails.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { observationFormatsPage, PAGE_PATH } from '../bin/docs/observation-formats-page.ts';
import { OBSERVATION_FORMATS } from '../core/config/experiment-config.ts';

const ROOT = join(import.meta.dirname, '..');
/** The guide whose paragraph on what the model is shown links the generated page. */
const PROMPTS_PAGE = 'docs/prompts-and-observations.md';

describe('the observation formats page', () => {
  const page = observationFormatsPage();

  it('is committed as the script writes it now (run `npm run docs` after changing a prompt or a format)', () => {
    expect(readFileSync(join(ROOT, PAGE_PATH), 'utf8')).toBe(page);
  });

  it('has every format with its prompt, first observation and a tool result, sized in characters', () => {
    for (const format of OBSERVATION_FORMATS) expect(page).toMatch(new RegExp(`^## \`${format}\`, `, 'm'));
    // see_through appears where it shows something else (rays' off-axis cells), not where it changes nothing
    expect(page).toMatch(/^## `rays`, see_through$/m);
    expect(page).toMatch(/^## `full_map`, either \(see_through shows the same\)$/m);
    const sizes = [
      ...page.matchAll(
        /^(System prompt|First observation|Result of `move_\w+`) \(([\d,]+) characters\):\n\n```text\n([^]*?)\n```$/gm,
      ),
    ];
    expect(sizes.length).toBe(3 * page.split('\n## ').length - 3);
    for (const [, , size, text] of sizes) expect(Number(size.replace(/,/g, ''))).toBe(text.length);
  });

  it("is linked from the prompts page's paragraph on what the model is shown, and from the README", () => {
    const guide = readFileSync(join(ROOT, PROMPTS_PAGE), 'utf8');
    const paragraph = guide.slice(guide.indexOf('**What the model is shown**'));
    // a link relative to the page that holds it
    expect(paragraph.slice(0, paragraph.indexOf('\n\n'))).toContain(`(${relative(dirname(PROMPTS_PAGE), PAGE_PATH)})`);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`(${PAGE_PATH})`);
  });
});
