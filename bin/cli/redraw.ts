// A block of lines redrawn in place on a terminal: up to the top of the last block, each line rewritten, what is
// left of a longer last block cleared; lines wider than the terminal are cut with an ellipsis so none wraps (a
// wrapped line would throw the count of lines to move up off).
// `note` writes text that stays (a message while the block is shown) where the block was; the next block is drawn
// under it, not over it.
export function blockPainter(
  stream: NodeJS.WriteStream,
): ((lines: string[]) => void) & { note: (text: string) => void } {
  let drawn = 0;
  const paint = (lines: string[]) => {
    const width = stream.columns ?? 120;
    const fitted = lines.map((l) => (l.length > width - 1 ? `${l.slice(0, width - 2)}…` : l));
    const up = drawn > 0 ? `\x1b[${drawn}A` : '';
    const clearRest = drawn > fitted.length ? '\x1b[J' : '';
    stream.write(`${up}${fitted.map((l) => `\r\x1b[2K${l}`).join('\n')}\n${clearRest}`);
    drawn = fitted.length;
  };
  const note = (text: string) => {
    stream.write(`${drawn > 0 ? `\x1b[${drawn}A\r\x1b[J` : ''}${text}`);
    drawn = 0;
  };
  return Object.assign(paint, { note });
}
