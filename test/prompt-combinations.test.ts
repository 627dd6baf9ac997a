// Every combination of observation format, vision mode, success rule, memory and recall_tool: the default system
// prompt is rendered next to that setting's observations and tool results on a small seeded maze, and each claim it
// makes is checked against what those texts show (never against a list of what a format should show). Combinations
// that measure nothing are refused instead.
import { describe, expect, it } from 'vitest';
import { OBSERVATION_FORMATS, SUCCESS_RULES, type ExperimentConfig } from '../core/config/experiment-config.ts';
import { resolveConfig, systemPrompt } from '../core/engine/experiment.ts';
import { showsWholeMaze } from '../core/config/prompt-combinations.ts';
import { InvalidInputError } from '../core/errors.ts';
import { offeredTools, TOOL_NAMES } from '../core/engine/tools.ts';
import { generateMaze } from '../core/maze/generators/index.ts';
import { DIRECTION_NAMES, WALL } from '../core/maze/grid.ts';
import type { Maze } from '../core/maze/maze.ts';
import { AGENT_CHAR, tileChar, UNSEEN_CHAR } from '../core/providers/llm/observations/common.ts';
import { readObservation } from '../simulators/observation-reader.ts';
import { shownAt } from '../reports/observation-sample.ts';
import { withPicturesRead } from '../simulators/picture-reader.ts';

const MAZE = generateMaze({ generator: 'medium', width: 9, height: 9, seed: 2 });
/** Every character the renderers draw a cell with (from the renderers, not a list kept here). */
const CELL_CHARS = [tileChar(0), tileChar(1), tileChar(2), AGENT_CHAR, UNSEEN_CHAR];
const MEMORY = ['fresh', 'history', 'conversation'] as const;

/**
 * How a prompt names the image format's colours ("black is a wall"...), as the cell characters the simulated model
 * reads those colours as (simulators/picture-reader.ts): what the pictures show is checked against them.
 */
const COLOUR_WORDS: Array<[RegExp, string]> = [
  [/black is a wall/, tileChar(1)],
  [/white is open floor/, tileChar(0)],
  [/green is the goal/, tileChar(2)],
  [/gray is out of sight/, UNSEEN_CHAR],
  [/red dot is you/, AGENT_CHAR],
];

/** The characters a prompt names as cell characters: the entries of its "Tiles:" and "Legend:" lines. */
function legendChars(text: string): Set<string> {
  const out = new Set<string>();
  if (/In the pictures: /.test(text)) for (const [words, c] of COLOUR_WORDS) if (words.test(text)) out.add(c);
  for (const line of text.split('\n')) {
    const m = /^(?:Tiles|Legend): (.*)$/.exec(line);
    if (m) for (const entry of m[1].split(',')) out.add(entry.trim().split(' ')[0].replace(/"/g, ''));
  }
  return out;
}

/**
 * The cell characters a text shows: those in runs of cell characters standing alone (between spaces, quotes,
 * colons or line ends), outside legend lines; so the "." ending a sentence, "0..6" in a header and the "G" of
 * "Goal" do not count.
 */
function shownChars(text: string): Set<string> {
  const run = new RegExp(`(?<=^|[\\s":])[${CELL_CHARS.map((c) => `\\${c}`).join('')}]+(?=$|[\\s",}])`, 'gm');
  const out = new Set<string>();
  for (const line of text.split('\n'))
    if (!/^(?:Tiles|Legend): /.test(line)) for (const m of line.matchAll(run)) for (const c of m[0]) out.add(c);
  return out;
}

/** What the texts show, read back: the whole maze, only cells along the four rays up to a wall, or more. */
function sightOf(maze: Maze, texts: Array<{ at: { x: number; y: number }; text: string }>) {
  let whole = false;
  let directional = true;
  for (const { at, text } of texts) {
    const cells = readObservation(text).cells.filter(([x, y]) => x !== at.x || y !== at.y);
    if (new Set(cells.map(([x, y]) => `${x},${y}`)).size === maze.width * maze.height - 1) whole = true;
    for (const [x, y] of cells) {
      const dx = Math.sign(x - at.x),
        dy = Math.sign(y - at.y);
      if (dx !== 0 && dy !== 0) directional = false;
      // a cell on a ray behind a wall: the wall did not block the view
      for (let k = 1; k < Math.max(Math.abs(x - at.x), Math.abs(y - at.y)); k++)
        if (maze.grid.get(at.x + dx * k, at.y + dy * k) === WALL) directional = false;
    }
  }
  return { whole, directional };
}

/** Where the prompt says something the observations or the config contradict; empty when it holds. */
function contradictions(prompt: string, config: ExperimentConfig, maze: Maze): string[] {
  const problems: string[] = [];
  const say = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  const open = Array.from(maze.grid.cells).flatMap((t, i) =>
    t === WALL ? [] : [{ x: i % maze.width, y: Math.floor(i / maze.width) }],
  );
  // what the model reads: the text, and (the image format) each picture read into it after its caption
  const shown = open
    .map((at) => shownAt(maze, config, at))
    .map((s) => ({
      ...s,
      observationText: withPicturesRead(s.observationText, s.pictures.observation),
      resultText: withPicturesRead(s.resultText, s.pictures.result),
    }));
  const observations = shown.map((s) => ({ at: s.observation.position, text: s.observationText }));
  const results = shown.map((s) => ({ at: s.result.to, text: s.resultText }));

  // tools: named exactly when offered
  const named = new Set(TOOL_NAMES.filter((t) => new RegExp(`\\b${t}\\b`).test(prompt)));
  const offered = new Set(offeredTools(config).map((t) => t.name));
  for (const t of TOOL_NAMES) say(named.has(t) === offered.has(t), `${t} ${offered.has(t) ? 'not named' : 'named'}`);

  // cell characters: every one the prompt names is shown, and every one shown is named
  const claimed = legendChars(prompt);
  const drawn = new Set(shown.flatMap((s) => [...shownChars(s.observationText), ...shownChars(s.resultText)]));
  for (const c of claimed) say(drawn.has(c), `names "${c}", which no observation shows`);
  for (const c of drawn) say(claimed.has(c), `shows "${c}" without naming it`);
  // a legend in the observation itself says the same as the prompt's
  const inObservation = legendChars(shown[0].observationText);
  if (inObservation.size > 0)
    say(
      [...inObservation].join() === [...claimed].join(),
      `legend ${[...claimed].join()} vs observation's ${[...inObservation].join()}`,
    );

  // vision: the whole maze, rays stopped by walls, or the square seen through
  const sight = sightOf(maze, [...observations, ...results]);
  const blocks = /a wall blocks your view/.test(prompt);
  const seesThrough = /walls do not block your view/.test(prompt);
  if (sightOf(maze, observations.slice(0, 1)).whole) {
    say(/the whole maze/.test(prompt), 'the whole maze is shown but the prompt does not say so');
    say(!blocks && !seesThrough && !/four directions/.test(prompt), 'directional vision wording with the whole map');
    say(!/into (your )?view|in sight/.test(prompt), '"comes into view" wording with the goal on the map from turn 1');
  } else if (sight.directional) say(blocks && !seesThrough, 'rays stopped by walls, but the prompt says otherwise');
  else say(seesThrough && !blocks, 'the whole square is shown, but the prompt says walls block the view');

  // results: with the surroundings, or the position only
  const resultsShowMore = results.some(({ at, text }) =>
    readObservation(text).cells.some(([x, y]) => x !== at.x || y !== at.y),
  );
  const onlyPosition = /result gives only whether it worked and your new position/.test(prompt);
  say(onlyPosition === !resultsShowMore, `results ${resultsShowMore ? 'show surroundings' : 'give the position only'}`);

  // the success rule
  if (config.success_rule === 'seen') say(/as soon as the goal is in sight/.test(prompt), 'success "seen" not said');
  else say(/when you stand on the goal tile/.test(prompt) && !/in sight;/.test(prompt), 'success "reached" not said');

  // memory: revisits only where the agent can know them (the map, or memory of earlier turns)
  const knowsVisits = config.memory !== 'fresh' || sight.whole;
  say(!/revisit/.test(prompt) || knowsVisits, 'asks to avoid revisits with no memory of earlier turns');
  say(
    {
      fresh: /Each turn starts afresh/,
      history: new RegExp(`your last ${config.memory_history_actions} actions, oldest first`),
      conversation: /The conversation carries over/,
    }[config.memory].test(prompt),
    `memory ${config.memory} not described`,
  );
  say(!/[{}]/.test(prompt), 'a placeholder left in');
  return problems;
}

const combinations = OBSERVATION_FORMATS.flatMap((observation) =>
  [false, true].flatMap((see_through) =>
    SUCCESS_RULES.flatMap((success_rule) =>
      MEMORY.flatMap((memory) =>
        [true, false].map((recall_tool) => ({ observation, see_through, success_rule, memory, recall_tool })),
      ),
    ),
  ),
);

describe('the v2 prompt of every combination says what its observations show', () => {
  it.each(combinations)('%o', (input) => {
    const refusedFor = showsWholeMaze(input.observation) && (input.success_rule === 'seen' || input.recall_tool);
    if (refusedFor) {
      // measures nothing: refused with the field, the value and the fix
      expect(() => resolveConfig(input)).toThrow(InvalidInputError);
      expect(() => resolveConfig(input)).toThrow(/measures nothing.*(use success_rule "reached"|set it false)/);
      return;
    }
    const config = resolveConfig({ ...input, max_moves: 100 });
    expect(config.prompt_version).toBe('v2');
    expect(contradictions(systemPrompt(MAZE, config), config, MAZE)).toEqual([]);
  });

  it('the check is real: v1 contradicts the observations of most combinations, and the check says how', () => {
    const v1 = (input: Record<string, unknown>) => {
      const config = resolveConfig({ ...input, prompt_version: 'v1', max_moves: 100 });
      return contradictions(systemPrompt(MAZE, config), config, MAZE);
    };
    expect(v1({ observation: 'full_map', success_rule: 'reached' })).toEqual(
      expect.arrayContaining([
        'the whole maze is shown but the prompt does not say so',
        'directional vision wording with the whole map',
        'results give the position only',
        'shows "@" without naming it',
      ]),
    );
    // v1 under success_rule "seen" (refused with full_map now) said the run ends when the goal comes into view
    const fullMap = resolveConfig({ observation: 'full_map', success_rule: 'reached', max_moves: 100 });
    const seenText = systemPrompt(MAZE, resolveConfig({ prompt_version: 'v1', max_moves: 100 }));
    expect(contradictions(seenText, fullMap, MAZE)).toContain(
      '"comes into view" wording with the goal on the map from turn 1',
    );
    expect(v1({ observation: 'local_grid' })).toContain('shows "@" without naming it');
    expect(v1({ observation: 'local_grid' })).toContain('shows "?" without naming it');
    expect(v1({ observation: 'coordinates' })).toContain('names "#", which no observation shows');
    expect(v1({ observation: 'rays', see_through: true })).toContain(
      'the whole square is shown, but the prompt says walls block the view',
    );
    expect(v1({ observation: 'rays', memory: 'fresh' })).toContain(
      'asks to avoid revisits with no memory of earlier turns',
    );
    expect(v1({ observation: 'rays', recall_tool: false })).toEqual(
      expect.arrayContaining(['memory fresh not described']),
    );
    // the terse/v1 style of naming recall_all whatever the settings is caught too
    const config = resolveConfig({ recall_tool: false, max_moves: 100 });
    expect(contradictions(`${systemPrompt(MAZE, config)}\nAlso: recall_all.`, config, MAZE)).toContain(
      'recall_all named',
    );
  });

  it('the small maze exercises the checks: walls, the goal in sight from some cells, rays cut by walls', () => {
    const config = resolveConfig({ observation: 'rays', max_moves: 100 });
    const texts = Array.from(MAZE.grid.cells).flatMap((t, i) =>
      t === WALL ? [] : [shownAt(MAZE, config, { x: i % MAZE.width, y: Math.floor(i / MAZE.width) }).observationText],
    );
    const drawn = new Set(texts.flatMap((t) => [...shownChars(t)]));
    expect([...drawn].sort()).toEqual(['#', '.', 'G']);
    // a ray that ends at a wall before the vision range: the wall blocks the view
    expect(DIRECTION_NAMES.some((d) => texts.some((t) => new RegExp(`^${d}: \\.*#$`, 'm').test(t)))).toBe(true);
  });
});
