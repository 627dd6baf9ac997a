// A block of lines redrawn in place on a terminal: up to the top of the last block, each line rewritten, what is
// left of a longer last block cleared; lines wider than the terminal are cut with an ellipsis so none wraps (a
// wrapped line would throw the count of lines to move up off).
export function blockPainter(stream: NodeJS.WriteStream): (lines: string[]) => void {
  let drawn = 0;
  return (lines) => {
    const width = stream.columns ?? 120;
    const fitted = lines.map((l) => (l.length > width - 1 ? `${l.slice(0, width - 2)}…` : l));
    const up = drawn > 0 ? `\x1b[${drawn}A` : '';
    const clearRest = drawn > fitted.length ? '\x1b[J' : '';
    stream.write(`${up}${fitted.map((l) => `\r\x1b[2K${l}`).join('\n')}\n${clearRest}`);
    drawn = fitted.length;
  };
}
