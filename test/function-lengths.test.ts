// No function outside bench/ passes 80 lines (nested functions count in the one that holds them): what makes a
// newcomer scroll. Measured as `npm run bench -- function-lengths` measures it.
import { describe, expect, it } from 'vitest';
import { functionLengths, houseFunctionLengths, TARGET_LINES } from '../bench/function-lengths.ts';

describe('function lengths', () => {
  it(`keeps every function outside bench/ at ${TARGET_LINES} lines or fewer`, () => {
    const all = houseFunctionLengths();
    expect(all.length).toBeGreaterThan(1000);
    expect(all.filter((f) => f.lines > TARGET_LINES).map((f) => `${f.name} ${f.where}: ${f.lines} lines`)).toEqual([]);
  });

  it('counts the lines a function spans, its nested functions in it', () => {
    const text = `function outer() {\n  const inner = () => {\n    return 1;\n  };\n  return inner();\n}\n`;
    expect(functionLengths('x.ts', text).map((f) => [f.name, f.lines])).toEqual([
      ['outer', 6],
      ['inner', 3],
    ]);
  });
});
