// The paper tables' layout (reports/paper-table.ts): what a LaTeX or Markdown reader would misread is escaped, and
// every row, the caption and the notes are there. The numbers themselves: cli-tables.test.ts, against the csv.
import { describe, expect, it } from 'vitest';
import { latexTable, latexText, markdownTable, type PaperTable } from '../reports/paper-table.ts';

const table: PaperTable = {
  caption: 'Sweep a_b: success by label x model.',
  columns: [
    { header: 'label', align: 'left' },
    { header: 'success %', align: 'right' },
  ],
  rows: [
    ['ollama:qwen|think', '50.0'],
    ['R&D {v2} ~#1 $5 ^x \\ end', '-'],
  ],
  notes: ['n counts 100% of runs.', 'Second note.'],
};

describe('paper tables', () => {
  it('LaTeX: its ten special characters typeset literally', () => {
    expect(latexText('a_b & 50% $x$ #1 {y} ~ ^ \\')).toBe(
      'a\\_b \\& 50\\% \\$x\\$ \\#1 \\{y\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{}',
    );
    const tex = latexTable(table, 'tab:a b');
    expect(tex).toContain('\\begin{tabular}{lr}');
    expect(tex).toContain('\\caption{Sweep a\\_b: success by label x model.}');
    expect(tex).toContain('\\label{tab:a-b}');
    expect(tex).toContain('    R\\&D \\{v2\\} \\textasciitilde{}\\#1 \\$5 \\textasciicircum{}x');
    expect(tex).toContain('n counts 100\\% of runs. Second note.');
    // a row opening with "[" (a list setting's value) is not read as the optional argument of the \\\\ before it
    expect(latexTable({ ...table, rows: [['[1, 2]', '50.0']] }, 't')).toContain('    {}[1, 2] & 50.0 \\\\');
    expect(tex.indexOf('\\toprule')).toBeLessThan(tex.indexOf('\\midrule'));
    expect(tex.indexOf('\\midrule')).toBeLessThan(tex.indexOf('\\bottomrule'));
  });

  it('Markdown: a pipe inside a cell is escaped, alignment in the rule line, caption and notes around', () => {
    const md = markdownTable(table).split('\n');
    expect(md[0]).toBe('**Sweep a_b: success by label x model.**');
    expect(md).toContain('| label | success % |');
    expect(md).toContain('| :--- | ---: |');
    expect(md).toContain('| ollama:qwen\\|think | 50.0 |');
    expect(md.filter((l) => l.startsWith('|'))).toHaveLength(4);
    expect(md.slice(-3)).toEqual(['n counts 100% of runs.', 'Second note.', '']);
  });
});
