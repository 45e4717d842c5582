/**
 * The top line, always: the active server, its health and when data last
 * arrived, most important first (a narrow terminal cuts the end).
 */
import { Box, Text } from 'ink';
import type { GatewaySnapshot } from '../data/live-gateway.js';
import type { UiState } from '../ui-state.js';
import { toneOf } from '../text.js';
import { clock } from '../views/format.js';

export function Header({ ui, data }: { ui: UiState; data: GatewaySnapshot }) {
  const health = data.connecting ? 'connecting…' : !data.reachable ? 'unreachable' : (data.health?.status ?? 'unknown');
  const color = data.connecting ? 'yellow' : (toneOf(health) ?? 'yellow');
  const b = data.health?.backends;
  const showUrl = new URL(ui.active.url).host !== ui.active.name;
  return (
    <Box width={ui.columns}>
      <Text wrap="truncate-end">
        <Text color={color}>● </Text>
        <Text bold>{ui.active.name}</Text>
        <Text color={color} bold>{`  ${health}`}</Text>
        {b && data.reachable ? <Text>{`  backends ${b.healthy}/${b.total} healthy`}</Text> : null}
        <Text dimColor>{`  updated ${clock(data.updatedAt)}`}</Text>
        {ui.readOnly ? <Text color="yellow"> [read-only]</Text> : null}
        {showUrl ? <Text dimColor>{`  ${ui.active.url}`}</Text> : null}
      </Text>
    </Box>
  );
}
