// A sweep that grows under its name (as Inspect's eval sets grow): more agents, generators, sizes, seeds, setting
// values or repeats, its finished runs kept and its statistics over all. Only growth: a change to anything a
// finished run was measured under (the shared config, an agent's model or config, a setting dropped) would mix two
// studies under one name, so it is refused, naming what changed. A cell keeps the index it was registered with (its
// runs' experiment ids carry it); the new cells come after, in the order the file lists them.
import { isDeepStrictEqual } from 'node:util';
import { InvalidInputError } from '../errors.ts';
import type { LoadedSweep } from './sweep-spec.ts';

type Spec = LoadedSweep['spec'];

/** What a grown spec changed that is not growth; null when the new spec only adds to the stored one. */
export function notGrowth(stored: Spec, grown: Spec): string | null {
  if (!isDeepStrictEqual(stored.config ?? {}, grown.config ?? {})) return 'its config';
  const agents = new Map(grown.agents.map((a) => [a.label ?? a.model ?? a.agent, a]));
  for (const a of stored.agents) {
    const label = a.label ?? a.model ?? a.agent;
    const now = agents.get(label);
    if (!now) return `agent "${label}" is gone`;
    if (now.agent !== a.agent || now.model !== a.model || !isDeepStrictEqual(now.config ?? {}, a.config ?? {}))
      return `agent "${label}" changed`;
  }
  const kept = <T>(name: string, before: readonly T[], after: readonly T[]) =>
    before.every((v) => after.some((w) => isDeepStrictEqual(v, w))) ? null : `mazes.${name} lost a value`;
  const mazes =
    kept('generators', stored.mazes.generators, grown.mazes.generators) ??
    kept('sizes', stored.mazes.sizes, grown.mazes.sizes) ??
    kept('seeds', stored.mazes.seeds, grown.mazes.seeds);
  if (mazes) return mazes;
  const before = Object.keys(stored.settings).sort();
  const after = Object.keys(grown.settings).sort();
  if (!isDeepStrictEqual(before, after)) return `its settings' keys (${before.join(', ')} -> ${after.join(', ')})`;
  for (const key of before) {
    const lost = kept(key, stored.settings[key], grown.settings[key]);
    if (lost) return `settings.${key} lost a value`;
  }
  if (grown.repeats < stored.repeats) return `repeats fell from ${stored.repeats} to ${grown.repeats}`;
  return null;
}

/**
 * The sweep as the database holds its cells: each cell registered before at its index (by its key), the new ones
 * after the highest. Refused when a registered cell is not in the file (growth never drops a cell).
 */
export function reindexed(s: LoadedSweep, registered: ReadonlyMap<string, number>): LoadedSweep {
  let next = Math.max(-1, ...registered.values()) + 1;
  const cells = s.cells.map((c) => ({ ...c, index: registered.get(c.key) ?? next++ }));
  const keys = new Set(cells.map((c) => c.key));
  const missing = [...registered.keys()].find((k) => !keys.has(k));
  if (missing !== undefined)
    throw new InvalidInputError(
      'sweep',
      s.spec.sweep,
      `sweep "${s.spec.sweep}" grown would drop its cell "${missing}"; a sweep may only grow: give the changed ` +
        'sweep a new name',
    );
  const byKey = new Map(cells.map((c) => [c.key, c]));
  return {
    ...s,
    cells: [...cells].sort((a, b) => a.index - b.index),
    runs: s.runs.map((r) => ({ ...r, cell: byKey.get(r.cell.key)! })),
  };
}
