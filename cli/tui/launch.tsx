/**
 * Starts the TUI on this process's terminal and resolves with the exit code
 * once the user quits. It needs a terminal on both ends; it draws on the
 * alternate screen, so the shell's screen comes back as it was.
 */
import type { BaseContext } from 'clipanion';
import { ServerDirectory } from '../servers/server-directory.js';
import { defaultServersFilePath, ServersFileError } from '../servers/servers-file.js';
import { EXIT } from '../output/exit-codes.js';

export interface TuiFlags {
  server?: string;
  serversConfig?: string;
  token?: string;
  readOnly?: boolean;
}

const ALT_SCREEN_ON = '\x1b[?1049h';
const ALT_SCREEN_OFF = '\x1b[?1049l';

export async function runTui(flags: TuiFlags, io: Pick<BaseContext, 'stderr'>): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    io.stderr.write('gateway tui needs a terminal (standard input and output); for scripts use gateway-client\n');
    return EXIT.usage;
  }
  const directory = new ServerDirectory(flags.serversConfig ?? defaultServersFilePath(), { server: flags.server, token: flags.token });
  let start: ReturnType<ServerDirectory['load']>;
  try {
    start = directory.load();
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n`);
    return err instanceof ServersFileError ? EXIT.failure : EXIT.usage;
  }

  // Ink draws only the last frame when it believes it runs in CI (CI=true, set in CI jobs
  // and by some shells' tooling); this is an interactive terminal, so it is not CI here.
  // Ink reads these once, when it is first loaded: below.
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  const [{ render }, { App }, { TuiController }] = await Promise.all([import('ink'), import('./components/app.js'), import('./controller.js')]);

  const tui = new TuiController({
    servers: start.choices,
    active: start.active,
    readOnly: flags.readOnly,
    directory,
    columns: process.stdout.columns,
    rows: process.stdout.rows,
  }).start();
  // The TUI must outlive every failure: a stray rejection becomes a message, not a crash.
  const onStray = (err: unknown) => tui.flash(`Unexpected error: ${(err as Error)?.message ?? String(err)}`, 'error');
  const onSignal = () => tui.quit();
  process.on('unhandledRejection', onStray);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);

  process.stdout.write(ALT_SCREEN_ON);
  const restore = () => process.stdout.write(ALT_SCREEN_OFF);
  process.once('exit', restore);
  try {
    const app = render(<App tui={tui} />, { exitOnCtrlC: false });
    await app.waitUntilExit();
  } finally {
    tui.quit();
    process.off('exit', restore);
    restore();
    process.off('unhandledRejection', onStray);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
  return EXIT.ok;
}
