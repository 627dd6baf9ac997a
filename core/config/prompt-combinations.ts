// Settings that together would measure nothing, refused when the config is checked (a run, a sweep's every cell), as
// a goal in view at the start is refused (engine/experiment.ts). full_map shows the whole maze from the first turn,
// so success_rule "seen" would count every run as found, and recall_all would repeat what the model already sees:
// recall_tool defaults to off under full_map (so `--observation full_map` needs no more flags), and recall_tool true
// with it is refused.

interface Combination {
  observation: string;
  success_rule: string;
  recall_tool?: boolean;
}

/** recall_tool when the config leaves it out. */
export const defaultRecallTool = (c: Pick<Combination, 'observation'>): boolean => c.observation !== 'full_map';

/** The first combination that measures nothing, as a zod issue (path, input, message naming the fix); or null. */
export function meaninglessCombination(c: Combination): { path: string[]; input: unknown; message: string } | null {
  if (c.observation === 'full_map' && c.success_rule === 'seen')
    return {
      path: ['observation'],
      input: c.observation,
      message:
        '"full_map" with success_rule "seen" measures nothing: the whole maze, goal included, is shown from the ' +
        'first turn, so every run would count as found before its first action; use success_rule "reached" ' +
        '(--success-rule reached) or another observation format',
    };
  if (c.observation === 'full_map' && c.recall_tool === true)
    return {
      path: ['recall_tool'],
      input: c.recall_tool,
      message:
        'true with observation "full_map" offers a tool that measures nothing: the whole maze is shown every ' +
        'turn, so recall_all could only repeat a part of it; leave recall_tool out (it is off under full_map), ' +
        'set it false, or use another observation format',
    };
  return null;
}
