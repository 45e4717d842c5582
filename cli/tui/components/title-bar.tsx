/** The page's title, with the filter in force and a busy mark. */
import { Box, Text } from 'ink';

export function TitleBar({ title, filter, busy, width }: { title: string; filter: string; busy: boolean; width: number }) {
  return (
    <Box width={width}>
      <Text wrap="truncate-end">
        <Text bold color="cyan" inverse>{` ${title} `}</Text>
        {filter ? <Text color="yellow">{`  /${filter}`}</Text> : null}
        {busy ? <Text dimColor> working…</Text> : null}
      </Text>
    </Box>
  );
}
