/** A question that needs y or n (destructive actions), or a message to read (an authorization URL). */
import { Box, Text } from 'ink';
import type { Overlay } from '../ui-state.js';
import { StyledLine } from './styled-line.js';
import { terminalSafe } from '../../output/terminal-safe.js';

type DialogOverlay = Exclude<Overlay, { kind: 'help' }>;

export function Dialog({ overlay, width, height }: { overlay: DialogOverlay; width: number; height: number }) {
  const confirm = overlay.kind === 'confirm';
  return (
    <Box flexDirection="column" width={width} height={height} justifyContent="center" alignItems="center">
      <Box
        flexDirection="column"
        borderStyle="round"
        borderColor={confirm ? 'yellow' : 'cyan'}
        paddingX={2}
        width={confirm ? Math.min(width, 76) : width}
        overflow="hidden"
      >
        <Text bold color={confirm ? 'yellow' : 'cyan'}>
          {confirm ? 'Confirm' : overlay.title}
        </Text>
        {confirm ? <Text>{terminalSafe(overlay.message)}</Text> : overlay.lines.map((l, i) => <StyledLine key={i} line={l} />)}
        <Text dimColor>{confirm ? 'y / Enter: yes    n / Esc: no' : 'Esc / Enter: close'}</Text>
      </Box>
    </Box>
  );
}
