/** A table page: optional lines above, the header, and the rows that fit, scrolled to keep the selected row in sight. */
import { useRef } from 'react';
import { Box, Text } from 'ink';
import type { Cell, TableContent } from '../page-spec.js';
import { filterRows } from '../filter.js';
import { cellsLine, columnWidths } from '../columns.js';
import { StyledLine } from './styled-line.js';

interface Props {
  content: TableContent;
  filter: string;
  cursor: number;
  width: number;
  height: number;
}

export function TableView({ content, filter, cursor, width, height }: Props) {
  const rows = filterRows(content.rows, filter);
  const above = content.above ?? [];
  const visible = Math.max(1, height - 1 - above.length);
  const selected = Math.min(cursor, rows.length - 1);
  // Scroll only as far as needed to keep the selection on screen (kept between frames).
  const offsetRef = useRef(0);
  const offset = Math.max(0, Math.min(Math.max(offsetRef.current, selected - visible + 1), selected, rows.length - visible));
  offsetRef.current = Math.max(0, offset);

  const header: Cell[] = content.columns.map((c) => ({ text: c.header, bold: true }));
  const widths = columnWidths(
    [header, ...rows.map((r) => r.cells)],
    content.columns.findIndex((c) => c.flex),
    width - 1,
  );

  return (
    <Box flexDirection="column" height={height} width={width}>
      {above.map((l, i) => (
        <StyledLine key={`above-${i}`} line={l} />
      ))}
      <StyledLine line={cellsLine(header, widths)} />
      {rows.length === 0 ? <Text dimColor>{content.empty}</Text> : null}
      {rows.slice(offsetRef.current, offsetRef.current + visible).map((r, i) => (
        <StyledLine key={r.key} line={cellsLine(r.cells, widths)} inverse={offsetRef.current + i === selected} />
      ))}
    </Box>
  );
}
