/**
 * The Ink root: draws the controller's state, hands it every input event
 * (one stable handler: no keystroke reaches a handler from an older render)
 * and the terminal's size, and leaves when it quits.
 */
import { useEffect, useSyncExternalStore } from 'react';
import { useApp, useStdout } from 'ink';
import type { TuiController } from '../controller.js';
import { Screen } from './screen.js';
import { useKeystrokes } from './use-keystrokes.js';

export function App({ tui }: { tui: TuiController }) {
  const state = useSyncExternalStore(tui.subscribe, tui.getState);
  const { exit } = useApp();
  const { stdout } = useStdout();

  useEffect(() => tui.onQuit(() => exit()), [tui, exit]);
  useEffect(() => {
    const resize = () => tui.setSize(stdout.columns || 80, stdout.rows || 24);
    resize();
    stdout.on('resize', resize);
    return () => void stdout.off('resize', resize);
  }, [tui, stdout]);
  useKeystrokes(tui.handleInput);

  return <Screen state={state} tui={tui} />;
}
