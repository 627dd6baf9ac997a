// Versioned system prompts. A version used in published runs is never edited: add a new one. The text and its sha256
// are stored with every experiment, and the stack publishes them under <prefix>/prompts/maze/<version>. v1 says the
// same whatever the experiment shows; v2 is composed of parts describing the experiment's observation format, vision
// mode, success rule, memory and tools (prompt-parts.ts).
import { InvalidInputError } from '../errors.ts';

export const PROMPTS: Record<string, string> = {
  v1: [
    'You are exploring a 2-D grid maze of {width}x{height} tiles to find the goal tile.',
    'Coordinates are (x, y): x grows to the east, y grows to the south. You start at ({start_x},{start_y}).',
    'After every action you see up to {vision_range} tiles in each of the four directions; walls block your view.',
    'Tiles: "." open, "#" wall, "G" goal. The maze edge behaves like a wall.',
    // {recall_text} renders the recall_all sentence only when the tool is offered (config.recall_tool).
    'Use the tools: move_north, move_south, move_east, move_west (each may carry a short "reasoning"){recall_text}.',
    'You may take up to {max_actions_per_turn} actions per turn. The experiment ends when {success_text}.',
    'Explore efficiently: avoid revisiting tiles and walking into walls.',
  ].join('\n'),
  v2: [
    'You are exploring a 2-D grid maze of {width}x{height} tiles to find the goal tile.',
    'Coordinates are (x, y): x grows to the east, y grows to the south. You start at ({start_x},{start_y}).',
    '{observation_text}',
    '{tools_text}',
    'You may take up to {max_actions_per_turn} actions per turn. {goal_text}',
    '{turn_text}',
  ].join('\n'),
};

/** A prompt version's text: from parameters (<prefix>/prompts/<name>/v<N>) first, then the built-in ones. */
export function promptTemplate(version: string, fromParameters: Record<string, string> = {}): string {
  const text = fromParameters[version] ?? PROMPTS[version];
  if (text === undefined) {
    const known = [...Object.keys(PROMPTS), ...Object.keys(fromParameters)];
    throw new InvalidInputError(
      'config.prompt_version',
      version,
      `config.prompt_version "${version}" is not defined; choose one of: ${known.join(', ')}`,
    );
  }
  return text;
}

/** Fills {name} placeholders; an unknown placeholder is an error, never left in a prompt. */
export function renderPrompt(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{([a-z_]+)\}/g, (_m, name: string) => {
    if (!Object.hasOwn(vars, name))
      throw new InvalidInputError(
        'prompt',
        name,
        `the prompt uses {${name}}, which is not a known variable (${Object.keys(vars).join(', ')})`,
      );
    return String(vars[name]);
  });
}
