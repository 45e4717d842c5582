/** `?`: the keys of the current page, then the keys for moving and those that work everywhere. */
import { Box, Text } from 'ink';
import { keyLabel } from '../keys.js';

export function HelpOverlay({ sections, width, height }: { sections: Array<{ title: string; keys: Array<[string, string]> }>; width: number; height: number }) {
  const keyWidth = Math.max(...sections.flatMap((s) => s.keys.map(([k]) => keyLabel(k).length)), 4) + 2;
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor="cyan" paddingX={1} overflow="hidden">
      <Text bold color="cyan">
        Help (Esc closes)
      </Text>
      {sections.map((s) => (
        <Box key={s.title} flexDirection="column">
          <Text bold>{s.title}</Text>
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
  );
}
