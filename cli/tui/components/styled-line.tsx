/**
 * One line of styled segments, cut at the screen's edge (never wrapped: a wrapped line would push the layout down).
 * Text is made terminal-safe here (cli/output/terminal-safe.ts): lines and tables carry backend text.
 */
import { Text } from 'ink';
import type { Line, Segment } from '../text.js';
import { terminalSafe } from '../../output/terminal-safe.js';

export function StyledLine({ line, inverse = false }: { line: Line; inverse?: boolean }) {
  if (line.length === 0) return <Text> </Text>;
  return (
    <Text wrap="truncate-end" inverse={inverse}>
      {line.map((s, i) => (
        <SegmentText key={i} segment={s} inverse={inverse} />
      ))}
    </Text>
  );
}

function SegmentText({ segment: s, inverse }: { segment: Segment; inverse: boolean }) {
  return (
    <Text color={s.color} bold={s.bold} dimColor={s.dim} inverse={inverse}>
      {terminalSafe(s.text)}
    </Text>
  );
}
