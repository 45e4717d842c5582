/**
 * `?`: the keys of the current page, then the keys for moving and those that
 * work everywhere. Every line keeps its own row (a squeezed flex layout would
 * draw lines over each other): when one column is too tall for the screen,
 * the sections are laid out in two.
 */
import { Box, Text } from 'ink';
import { keyLabel } from '../keys.js';

type Section = { title: string; keys: Array<[string, string]> };

/** Rows a section takes: its title, then one row per key (or one saying there is none). */
const rowsOf = (s: Section) => 1 + Math.max(1, s.keys.length);

export function HelpOverlay({ sections, width, height }: { sections: Section[]; width: number; height: number }) {
  const keyWidth = Math.max(...sections.flatMap((s) => s.keys.map(([k]) => keyLabel(k).length)), 4) + 2;
  // Inside the border (2 rows) and below the title (1 row).
  const room = height - 3;
  const columns = splitInTwo(sections, room);
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor="cyan" paddingX={1} overflow="hidden">
      <Text bold color="cyan">
        Help (Esc closes)
      </Text>
      <Box flexDirection="row" flexShrink={0}>
        {columns.map((column, i) => (
          <Box key={i} flexDirection="column" flexShrink={0} width={columns.length === 1 ? width - 4 : Math.floor((width - 4) / 2)}>
            {column.map((s) => (
              <Box key={s.title} flexDirection="column" flexShrink={0}>
                <Text bold wrap="truncate-end">
                  {s.title}
                </Text>
                {s.keys.length === 0 ? <Text dimColor>no keys of its own</Text> : null}
                {s.keys.map(([k, label]) => (
                  <Text key={k} wrap="truncate-end">
                    <Text color="cyan">{keyLabel(k).padEnd(keyWidth)}</Text>
                    {label}
                  </Text>
                ))}
              </Box>
            ))}
          </Box>
        ))}
      </Box>
    </Box>
  );
}

/** One column when it fits in `room` rows, else the first sections on the left and the rest on the right. */
function splitInTwo(sections: Section[], room: number): Section[][] {
  const total = sections.reduce((n, s) => n + rowsOf(s), 0);
  if (total <= room || sections.length < 2) return [sections];
  let left = 0;
  let cut = 0;
  while (cut < sections.length - 1 && left + rowsOf(sections[cut]) <= room) left += rowsOf(sections[cut++]);
  if (cut === 0) cut = 1;
  return [sections.slice(0, cut), sections.slice(cut)];
}
