// Keys that can reach an object's prototype (prototype pollution) are refused
// wherever outside data becomes objects: JSON files, YAML files, parameter
// names. Returns the path of the first one found, e.g. ["config", "__proto__"].
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN.has(key);
}

export function findForbiddenKey(value: unknown, path: Array<string | number> = []): Array<string | number> | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findForbiddenKey(value[i], [...path, i]);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (FORBIDDEN.has(key)) return [...path, key];
      const found = findForbiddenKey((value as Record<string, unknown>)[key], [...path, key]);
      if (found) return found;
    }
  }
  return null;
}
