// The longest functions of the house, outside bench/: what makes a newcomer scroll. Read with TypeScript's parser
// (every function, method, arrow function and accessor, by the lines of its body); the target is 80 lines each.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { recordFigure } from './figures.ts';
import { HOUSE_DIRS, houseFiles, ROOT } from './house-files.ts';

/** The house but its benchmarks and tests. */
const DIRS = HOUSE_DIRS.filter((dir) => dir !== 'bench' && dir !== 'test');
export const TARGET_LINES = 80;

interface FunctionLength {
  where: string;
  name: string;
  lines: number;
}

function nameOf(node: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return `${node.parent.name?.getText(file) ?? 'class'} constructor`;
  if (node.name) return node.name.getText(file);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(file);
  return '(anonymous)';
}

/** Every function of one file with the lines its body spans. */
export function functionLengths(path: string, text: string): FunctionLength[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const out: FunctionLength[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node;
      const start = file.getLineAndCharacterOfPosition(fn.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(fn.getEnd()).line;
      out.push({ where: `${path}:${start + 1}`, name: nameOf(fn, file), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** Every function of the house outside bench/, the longest first. */
export function houseFunctionLengths(): FunctionLength[] {
  return houseFiles(/\.tsx?$/, DIRS)
    .flatMap((f) => functionLengths(f, readFileSync(join(ROOT, f), 'utf8')))
    .sort((a, b) => b.lines - a.lines);
}

export function functionLengthsBench(): void {
  const all = houseFunctionLengths();
  const over = all.filter((f) => f.lines > TARGET_LINES);
  console.log(`function lengths: ${all.length} functions outside bench/, ${over.length} over ${TARGET_LINES} lines`);
  for (const f of all.slice(0, 15)) console.log(`  ${String(f.lines).padStart(4)} lines  ${f.name}  ${f.where}`);
  recordFigure({
    what: 'the longest function outside bench/',
    measured: all[0].lines,
    target: TARGET_LINES,
    unit: 'lines',
  });
  recordFigure({
    what: `functions over ${TARGET_LINES} lines outside bench/`,
    measured: over.length,
    target: 0,
    unit: '',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) functionLengthsBench();
