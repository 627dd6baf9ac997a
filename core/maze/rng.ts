// Seeded PRNG used by every generator and by the random baseline agent.
// Integer-only arithmetic (sfc32 seeded through splitmix32) so a seed gives the
// same stream on every platform and Node version: Math.random is never used.

export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: T[]): T[];
}

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Hashes any number of integers or strings into one 32-bit seed. */
export function mixSeed(...parts: Array<number | string>): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const text = String(part);
    for (let i = 0; i < text.length; i++) {
      h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
    }
    h = Math.imul(h ^ 0x2c, 0x01000193) >>> 0; // separator so ("ab","c") != ("a","bc")
  }
  return h >>> 0;
}

/** sfc32's state after seeding and warm-up, as createRng starts from it. */
export function sfc32State(seed: number): [number, number, number, number] {
  const init = splitmix32(seed);
  const state: [number, number, number, number] = [init(), init(), init(), init()];
  for (let i = 0; i < 12; i++) sfc32Next(state); // discard warm-up outputs
  return state;
}

/**
 * One sfc32 output, advancing the state. The bootstrap inlines these same lines in its loop (millions of draws, where
 * a call per draw costs more than the draw); test/statistics-bootstrap.test.ts checks it draws this stream.
 */
function sfc32Next(s: [number, number, number, number]): number {
  const [a, b, c, d] = s;
  const t = (((a + b) >>> 0) + d) >>> 0;
  s[3] = (d + 1) >>> 0;
  s[0] = b ^ (b >>> 9);
  const c1 = (c + (c << 3)) >>> 0;
  s[1] = c1;
  const c2 = ((c << 21) | (c >>> 11)) >>> 0;
  s[2] = (c2 + t) >>> 0;
  return t;
}

export function createRng(seed: number): Rng {
  const state = sfc32State(seed);
  const nextU32 = () => sfc32Next(state);
  const rng: Rng = {
    next: () => nextU32() / 4294967296,
    int: (n) => {
      if (!Number.isInteger(n) || n <= 0) throw new RangeError(`rng.int needs a positive integer, got ${n}`);
      return Math.floor(rng.next() * n);
    },
    chance: (p) => rng.next() < p,
    pick: (items) => {
      if (items.length === 0) throw new RangeError('rng.pick needs a non-empty list');
      return items[rng.int(items.length)];
    },
    shuffle: (items) => {
      for (let i = items.length - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        [items[i], items[j]] = [items[j], items[i]];
      }
      return items;
    },
  };
  return rng;
}
