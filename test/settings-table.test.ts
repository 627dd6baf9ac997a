// One settings table: every setting is declared once in the config schema, and the flags of run and launch, --set,
// a sweep's settings keys, --help and docs/settings.md are made from it. Each is checked here against the table, so
// a setting that one of them names differently, bounds differently or leaves out fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { settingPaths } from '../core/config/experiment-config.ts';
import { FLAGGED_SETTINGS, SETTINGS, expectedText, type SettingRow } from '../core/config/settings-table.ts';
import { loadSweep } from '../core/sweeps/sweep-spec.ts';
import { buildProgram } from '../bin/cli/program.ts';
import { requestFromOptions } from '../bin/cli/experiment-input.ts';
import type { ExperimentOptions } from '../bin/cli/options.ts';
import { settingsFromSet } from '../bin/cli/set-option.ts';
import { SETTINGS_PAGE_PATH, settingsPage } from '../bin/docs/settings-page.ts';

const ROOT = join(import.meta.dirname, '..');

/** A value the setting takes alone and beside the defaults of the others. */
function sample(row: SettingRow): unknown {
  if (row.kind === 'text' && row.path.endsWith('endpoint')) return 'http://127.0.0.1:9/';
  if (row.default !== undefined) return row.default;
  if (row.kind === 'choice') return row.choices![0];
  if (row.kind === 'boolean') return true;
  return row.max;
}

/** The `run` command, its action replaced, parsed from argv; its request's config and the error, if any. */
async function runConfig(argv: string[]): Promise<Record<string, unknown>> {
  const program = buildProgram().exitOverride();
  const run = program.commands.find((c) => c.name() === 'run')!;
  run.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  run.action(() => {});
  await program.parseAsync(['run', ...argv], { from: 'user' });
  return requestFromOptions(run.opts<ExperimentOptions>()).config;
}

/** What a setting needs beside it on the command line: its provider, or any LLM agent for a prompt. */
const providerArgs = (row: SettingRow) => {
  const section = row.path.split('.')[0];
  if (['ollama', 'bedrock', 'openai'].includes(section)) return ['--provider', section, '--model', 'm'];
  return row.path === 'prompt_version' ? ['--provider', 'ollama', '--model', 'm'] : [];
};

const at = (config: Record<string, unknown>, path: string) =>
  path.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], config);

describe('the settings table', () => {
  it('has a row with a description for every setting of the schema, and nothing else', () => {
    const leaves = settingPaths();
    const rows = SETTINGS.map((r) => r.path);
    expect(rows.filter((p) => SETTINGS.find((r) => r.path === p)!.kind !== 'table').sort()).toEqual([...leaves].sort());
    for (const row of SETTINGS) expect(row.description.length, row.path).toBeGreaterThan(10);
  });

  it('is docs/settings.md (run `npm run docs` after changing a setting)', () => {
    expect(readFileSync(join(ROOT, SETTINGS_PAGE_PATH), 'utf8')).toBe(settingsPage());
    for (const row of SETTINGS) expect(settingsPage(), row.path).toContain(`| \`${row.path}\` |`);
  });
});

describe.each(FLAGGED_SETTINGS.map((row) => ({ flag: row.flag!, path: row.path, row })))(
  'the flag $flag ($path)',
  ({ flag, path, row }) => {
    const help = buildProgram()
      .commands.find((c) => c.name() === 'run')!
      .helpInformation()
      .replace(/\s+/g, ' ');

    it('is in run --help with its range and default', () => {
      expect(help).toContain(flag);
      if (row.kind !== 'text' && row.kind !== 'boolean') expect(help).toContain(expectedText(row));
      expect(help).toContain(`/ariadne/config/${path.replace('.', '/')}`);
    });

    it('sets the setting it names in the request', async () => {
      const value = row.kind === 'boolean' ? true : sample(row);
      const argv = row.kind === 'boolean' ? [flag] : [flag, String(value)];
      expect(at(await runConfig([...providerArgs(row), ...argv]), path)).toEqual(value);
    });

    it('is refused beside a --set of the same setting', () => {
      const value = sample(row);
      const given = new Set([flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())]);
      expect(() => settingsFromSet([`${path}=${stringify(value).trim()}`], given)).toThrow(
        new RegExp(`and ${flag} both set ${path}`),
      );
    });
  },
);

describe.each(
  FLAGGED_SETTINGS.filter((r) => r.kind === 'integer' || r.kind === 'number').map((row) => ({ flag: row.flag!, row })),
)('the number flag $flag', ({ flag, row }) => {
  it('takes its bounds and refuses a value past them, naming the flag and the range', async () => {
    expect(await runConfig([flag, String(row.min)])).toBeDefined();
    expect(await runConfig([flag, String(row.max)])).toBeDefined();
    await expect(runConfig([flag, String(row.max! + 1)])).rejects.toThrow(`${flag} must be ${expectedText(row)}`);
    await expect(runConfig([flag, 'many'])).rejects.toThrow(`${flag} must be ${expectedText(row)}, got "many"`);
  });
});

describe.each(SETTINGS.filter((r) => r.kind !== 'table').map((row) => ({ path: row.path, row })))(
  'the setting $path',
  ({ path, row }) => {
    const value = sample(row);

    it('is taken by --set as the table types it', () => {
      const config = settingsFromSet([`${path}=${stringify(value).trim()}`], new Set());
      expect(at(config as Record<string, unknown>, path)).toEqual(value);
    });

    it("is a sweep's settings key", () => {
      const [, provider] = providerArgs(row);
      const agent = provider ? `{ agent: ${provider}, model: m }` : '{ agent: frontier }';
      const sweep = loadSweep(
        `sweep: table-check\nagents: [${agent}]\nmazes: { generators: [perfect], sizes: [11], seeds: [1] }\n` +
          `settings: { ${path}: [${JSON.stringify(value)}] }\n`,
        'test',
      );
      expect(at(sweep.runs[0].cell.config as Record<string, unknown>, path)).toEqual(value);
    });
  },
);
