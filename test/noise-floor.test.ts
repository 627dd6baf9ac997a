// The noise floor's resampling: the spread of a repeat set's success and of the gap between two sets, against what
// the binomial gives when each maze's runs split evenly, and its refusals.
import { describe, expect, it } from 'vitest';
import { noiseFloor } from '../reports/noise-floor.ts';

describe('noiseFloor', () => {
  it('is zero where every run of every maze ends alike', () => {
    const f = noiseFloor(Array.from({ length: 20 }, () => [true, true, true]));
    expect(f).toMatchObject({ mazes: 20, repeats: 3, success_rate: 1, sd: 0, low: 1, high: 1, gap95: 0 });
  });

  it('gives the binomial spread where each maze is won by one of its two runs', () => {
    // a set's success is Binomial(100, 1/2) / 100: sd 0.05; two sets take opposite runs, so the gap is
    // |2 x rate - 1|, whose 95th percentile is about 1.96 x 0.1
    const f = noiseFloor(
      Array.from({ length: 100 }, () => [true, false]),
      4000,
      7,
    );
    expect(f.success_rate).toBe(0.5);
    expect(f.sd).toBeCloseTo(0.05, 2);
    expect(f.low).toBeGreaterThan(0.38);
    expect(f.high).toBeLessThan(0.62);
    expect(Math.abs(f.gap95 - 0.196)).toBeLessThan(0.03);
  });

  it('is made again exactly from its seed', () => {
    const mazes = Array.from({ length: 30 }, (_, i) => [i % 2 === 0, i % 3 === 0, i % 5 === 0]);
    expect(noiseFloor(mazes, 500, 3)).toEqual(noiseFloor(mazes, 500, 3));
    expect(noiseFloor(mazes, 500, 3)).not.toEqual(noiseFloor(mazes, 500, 4));
  });

  it('refuses a maze with fewer runs than the others, or one run a maze', () => {
    expect(() => noiseFloor([[true, false], [true]])).toThrow(/maze 1 has 1 runs, not 2/);
    expect(() => noiseFloor([[true], [false]])).toThrow(RangeError);
  });
});
