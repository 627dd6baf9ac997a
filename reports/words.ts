// Counts in words, one way for every table and note of the statistics.

/** "1 error", "2 errors". */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
