// The simulators' fault lists, as `ariadne sim --faults` takes them (docs/agents-and-providers.md's example among
// them).
import { describe, expect, it } from 'vitest';
import { parseFaults } from '../simulators/sim-server.ts';

describe('sim --faults', () => {
  it('parses the documented example: a trailing xN repeats, an x inside a name does not', () => {
    const kinds = parseFaults('429x2,500,reset,slow:3000,malformed,text-embedded,text-only,empty').map((f) =>
      f.kind === 'status' ? f.status : f.kind === 'slow' ? `slow ${f.ms}` : f.kind,
    );
    expect(kinds).toEqual([429, 429, 500, 'reset', 'slow 3000', 'malformed', 'text-embedded', 'text-only', 'empty']);
  });

  it('repeats any fault, names included', () => {
    expect(parseFaults('text-embeddedx3, emptyx2').map((f) => f.kind)).toEqual([
      'text-embedded',
      'text-embedded',
      'text-embedded',
      'empty',
      'empty',
    ]);
  });

  it.each([
    ['slow:soon', /fault "slow:soon" is not one of/],
    ['429x0', /repeat count after x must be from 1 to 1000/],
    ['teapot', /fault "teapot" is not one of: NNN \(HTTP status\)/],
  ])('refuses %s naming it', (spec, message) => {
    expect(() => parseFaults(spec)).toThrow(message);
  });
});
