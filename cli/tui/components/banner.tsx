/** The red line while the gateway does not answer (or refuses): the TUI keeps retrying meanwhile. */
import { Box, Text } from 'ink';
import { terminalSafe } from '../../output/terminal-safe.js';

export function Banner({ text, width }: { text: string; width: number }) {
  return (
    <Box width={width}>
      <Text backgroundColor="red" color="white" bold wrap="truncate-end">
        {` ✖ ${terminalSafe(text)} `.padEnd(width)}
      </Text>
    </Box>
  );
}
