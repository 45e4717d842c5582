/** A text page: the lines from `scroll` on that fit. */
import { Box } from 'ink';
import type { Line } from '../text.js';
import { filterLines } from '../filter.js';
import { StyledLine } from './styled-line.js';

export function TextView({ lines, filter, scroll, width, height }: { lines: Line[]; filter: string; scroll: number; width: number; height: number }) {
  const shown = filterLines(lines, filter);
  const from = Math.max(0, Math.min(scroll, shown.length - height));
  return (
    <Box flexDirection="column" height={height} width={width}>
      {shown.slice(from, from + height).map((l, i) => (
        <StyledLine key={from + i} line={l} />
      ))}
    </Box>
  );
}
