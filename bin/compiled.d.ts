/** dist/<name>.js (its URL) while every source in it is as it was built (mtimes in dist/<name>.json); else undefined */
export function compiledPart(name: 'startup' | 'ariadne'): string | undefined;
