/** The bottom line: the line being typed (with its cursor), else the last message, else the keys of this page. */
import { Box, Text } from 'ink';
import type { Flash, InputState } from '../ui-state.js';
import { commandCandidates } from '../commands.js';
import { keyLabel } from '../keys.js';
import { terminalSafe } from '../../output/terminal-safe.js';

interface Props {
  input?: InputState;
  flash?: Flash;
  hints: Array<[string, string]>;
  width: number;
}

export function Footer({ input, flash, hints, width }: Props) {
  return <Box width={width}>{input ? <InputLine input={input} /> : flash ? <FlashLine flash={flash} /> : <Hints hints={hints} />}</Box>;
}

function InputLine({ input }: { input: InputState }) {
  const chars = [...masked(input)];
  const at = Math.min(input.cursor, chars.length);
  const candidates = input.purpose === 'command' ? commandCandidates(input.text) : [];
  return (
    <Text wrap="truncate-end">
      <Text color="cyan" bold>
        {input.prompt}
      </Text>
      <Text>{chars.slice(0, at).join('')}</Text>
      <Text inverse>{chars[at] ?? ' '}</Text>
      <Text>{chars.slice(at + 1).join('')}</Text>
      {candidates.length && input.text ? <Text dimColor>{`   ${candidates.join(' ')}`}</Text> : null}
    </Text>
  );
}

/** The text with every character from word `maskFromWord` on shown as •, so a token typed in is not on screen. */
function masked(input: InputState): string {
  if (input.maskFromWord === undefined) return input.text;
  let word = 0;
  let inWord = false;
  return [...input.text]
    .map((ch) => {
      if (ch === ' ') {
        inWord = false;
        return ch;
      }
      if (!inWord) {
        inWord = true;
        word++;
      }
      return word > input.maskFromWord! ? '•' : ch;
    })
    .join('');
}

function FlashLine({ flash }: { flash: Flash }) {
  return (
    <Text color={flash.level === 'error' ? 'red' : 'green'} wrap="truncate-end">
      {terminalSafe(flash.text)}
    </Text>
  );
}

function Hints({ hints }: { hints: Array<[string, string]> }) {
  return (
    <Text wrap="truncate-end">
      {hints.map(([key, label], i) => (
        <Text key={i}>
          <Text color="cyan" bold>{`<${keyLabel(key)}>`}</Text>
          <Text dimColor>{` ${label}  `}</Text>
        </Text>
      ))}
    </Text>
  );
}
