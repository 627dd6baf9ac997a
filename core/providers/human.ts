// The human agent by name, apart from its agent (human-agent.ts) so that what only names it (contracts, options, the
// results) does not carry the LLM agent's conversation with it.
export const HUMAN_AGENT = 'human';

export const isHuman = (agent: string): boolean => agent === HUMAN_AGENT;

/** A player id: who played a human run (experiments.player, migration 034). */
export const PLAYER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;
export const PLAYER_HELP = 'a player id: 1-40 letters, digits, ".", "_" or "-", starting with a letter or digit';
