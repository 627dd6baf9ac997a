// docs/settings.md's table of every setting, written from the config schema (core/config/settings-table.ts) between
// two markers; the prose around it is the page's own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultText, expectedText, SETTINGS, type SettingRow } from '../../core/config/settings-table.ts';

export const SETTINGS_PAGE_PATH = 'docs/settings.md';
const START = '<!-- the settings table: npm run docs writes it from the config schema -->';
const END = '<!-- end of the settings table -->';

const cell = (text: string) => text.replace(/\|/g, '\\|');

function line(row: SettingRow): string {
  const values = row.kind === 'text' ? '' : expectedText(row);
  const what = [row.description, row.why].flatMap((t) => (t ? [`${t[0].toUpperCase()}${t.slice(1)}.`] : [])).join(' ');
  const flag = row.flag ? `\`${row.flag}\`` : '';
  return `| \`${row.path}\` | ${cell(defaultText(row))} | ${cell(values)} | ${flag} | ${cell(what)} |`;
}

/** The table as the schema declares it today. */
function settingsTable(): string {
  const head = [
    '| setting | default | values | flag | what it is, and why a researcher varies it |',
    '|---|---|---|---|---|',
  ];
  return [START, ...head, ...SETTINGS.map(line), END].join('\n');
}

/** The page with its table written anew. */
export function settingsPage(
  current = readFileSync(join(import.meta.dirname, '..', '..', SETTINGS_PAGE_PATH), 'utf8'),
) {
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${SETTINGS_PAGE_PATH} lost its table markers: put back ${START}`);
  return current.slice(0, start) + settingsTable() + current.slice(end + END.length);
}
