// Settings that together would measure nothing, refused when the config is checked (a run, a sweep's every cell), as
// a goal in view at the start is refused (engine/experiment.ts). full_map and adjacency show the whole maze from the
// first turn (as a picture, or as the links between its open tiles), so success_rule "seen" would count every run as
// found, and recall_all would repeat what the model already sees: recall_tool defaults to off under them (so
// `--observation full_map` needs no more flags), and recall_tool true with one of them is refused.

interface Combination {
  observation: string;
  success_rule: string;
  recall_tool?: boolean;
}

/** The observation formats that show the whole maze, goal included, every turn. */
const WHOLE_MAZE_FORMATS: readonly string[] = ['full_map', 'adjacency'];

export const showsWholeMaze = (observation: string): boolean => WHOLE_MAZE_FORMATS.includes(observation);

/** recall_tool when the config leaves it out. */
export const defaultRecallTool = (c: Pick<Combination, 'observation'>): boolean => !showsWholeMaze(c.observation);

/** The first combination that measures nothing, as a zod issue (path, input, message naming the fix); or null. */
export function meaninglessCombination(c: Combination): { path: string[]; input: unknown; message: string } | null {
  if (showsWholeMaze(c.observation) && c.success_rule === 'seen')
    return {
      path: ['observation'],
      input: c.observation,
      message:
        `"${c.observation}" with success_rule "seen" measures nothing: the whole maze, goal included, is shown from ` +
        'the first turn, so every run would count as found before its first action; use success_rule "reached" ' +
        '(--success-rule reached) or another observation format',
    };
  if (showsWholeMaze(c.observation) && c.recall_tool === true)
    return {
      path: ['recall_tool'],
      input: c.recall_tool,
      message:
        `true with observation "${c.observation}" offers a tool that measures nothing: the whole maze is shown ` +
        `every turn, so recall_all could only repeat a part of it; leave recall_tool out (it is off under ` +
        `${c.observation}), set it false, or use another observation format`,
    };
  return null;
}
