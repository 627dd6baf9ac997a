// docs/cli.md is generated (npm run docs) from the ariadne program's definitions: it must be what buildProgram()
// defines now, or the reference would document options the CLI no longer has. Regenerate it with `npm run docs`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { cliReferencePage, CLI_REFERENCE_PATH } from '../bin/docs/cli-reference-page.ts';
import { buildProgram } from '../bin/cli/program.ts';

const ROOT = join(import.meta.dirname, '..');

/** Every command below `cmd` with its path of names. */
const walk = (cmd: Command, path: string[] = []): Array<{ path: string; cmd: Command }> =>
  cmd.commands.flatMap((c) => [{ path: [...path, c.name()].join(' '), cmd: c }, ...walk(c, [...path, c.name()])]);

describe('the CLI reference page', () => {
  const page = cliReferencePage();

  it('is committed as the script writes it now (run `npm run docs` after changing a command)', () => {
    expect(readFileSync(join(ROOT, CLI_REFERENCE_PATH), 'utf8')).toBe(page);
  });

  it('has a section for every command, with every option and one example of that command', () => {
    const program = buildProgram();
    for (const { path, cmd } of [{ path: '', cmd: program }, ...walk(program)]) {
      const heading = `## ${`ariadne ${path}`.trim()}\n`;
      const start = page.indexOf(heading);
      expect(start, heading).toBeGreaterThan(0);
      const next = page.indexOf('\n## ', start + heading.length);
      const section = page.slice(start, next < 0 ? undefined : next);
      for (const option of cmd.options)
        expect(section, `${path}: ${option.flags}`).toContain(`| \`${option.flags}\` |`);
      for (const arg of cmd.registeredArguments) expect(section, `${path}: ${arg.name()}`).toContain(arg.name());
      expect(section).toMatch(
        new RegExp(`\\nExample:\\n\\n\`\`\`text\\nariadne ${path === '' ? '\\S' : `${path}( |\\n)`}`),
      );
    }
  });

  it('is linked from the README', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`(${CLI_REFERENCE_PATH})`);
  });
});
