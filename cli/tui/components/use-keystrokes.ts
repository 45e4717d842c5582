/**
 * Every input event Ink reads, as it arrives and in order, to one handler.
 * Ink's `useInput` hands over keys already interpreted, and loses the Escape
 * of "Esc then ':'" arriving together; its input events (escape sequences and
 * runs of characters, split by Ink's parser) are decoded by keys.ts instead.
 * `internal_eventEmitter` is in Ink's typed `useStdin()` result but marked
 * internal: ink is pinned (~6.8) and the tmux test that types at full speed
 * (test/e2e/cli/tui-tmux.test.ts) fails if an upgrade changes it.
 */
import { useEffect } from 'react';
import { useStdin } from 'ink';

export function useKeystrokes(handler: (data: string) => void): void {
  const { setRawMode, internal_eventEmitter: events } = useStdin();
  useEffect(() => {
    setRawMode(true);
    return () => setRawMode(false);
  }, [setRawMode]);
  useEffect(() => {
    const onInput = (data: unknown) => {
      if (typeof data === 'string') handler(data);
    };
    events.on('input', onInput);
    return () => void events.off('input', onInput);
  }, [events, handler]);
}
