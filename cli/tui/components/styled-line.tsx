/** One line of styled segments, cut at the screen's edge (never wrapped: a wrapped line would push the layout down). */
import { Text } from 'ink';
import type { Line, Segment } from '../text.js';

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
      {s.text}
    </Text>
  );
}
