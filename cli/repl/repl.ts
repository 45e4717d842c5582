/**
 * gateway-client with no command. On a terminal: an interactive shell with
 * tab completion, persistent history and a status line fed by the server's
 * health and event stream. Otherwise: one command per input line, exiting
 * with the last command's status (for scripts).
 */
import { createInterface } from 'node:readline';
import type { WriteStream } from 'node:tty';
import type { Cli } from 'clipanion';
import { ServerConnection, type ConnectionState } from '../client/server-connection.js';
import type { ManagementClient } from '../client/management-client.js';
import type { Colors } from '../output/colors.js';
import { EXIT } from '../output/exit-codes.js';
import { GATEWAY_VERSION } from '../../runtime/version.js';
import type { ClientContext } from '../client-commands/client-command.js';
import { complete } from './completer.js';
import { commandShapes } from './command-shapes.js';
import { historyFile, HISTORY_SIZE, loadHistory, saveHistory } from './history.js';
import { LiveNames } from './live-names.js';
import { runLine, type LineContext } from './run-line.js';
import { StatusLine } from './status-line.js';

export const PROMPT = 'gateway> ';

/** Scripted use: every line in order; the exit code is the last command's. */
export async function runScript(ctx: LineContext, input: NodeJS.ReadableStream): Promise<number> {
  let last: number = EXIT.ok;
  const rl = createInterface({ input, terminal: false });
  for await (const line of rl) {
    const result = await runLine(line, ctx, new AbortController().signal);
    if (result === 'exit') break;
    if (result !== undefined) last = result;
  }
  rl.close();
  return last;
}

export async function runInteractive(
  ctx: LineContext & { client: ManagementClient; cli: Cli<ClientContext> },
  input: NodeJS.ReadStream,
  tty: WriteStream,
): Promise<number> {
  const { c, client } = ctx;
  tty.write(`gateway-client ${GATEWAY_VERSION} on ${client.baseUrl} ${c.dim('(help, Tab completes, exit or Ctrl-D)')}\n`);
  const status = new StatusLine(tty);
  status.install();
  const connection = new ServerConnection(client, { pollMs: 5000 });
  const names = new LiveNames(client);
  status.set(statusText(connection.state, c));
  connection.on('state', (s) => {
    if (s.reachable) names.markStale();
    status.set(statusText(s, c));
  });
  connection.on('event', () => names.markStale());
  connection.start();

  const shapes = commandShapes(ctx.cli);
  const file = historyFile();
  const rl = createInterface({
    input,
    output: status.terminal,
    terminal: true,
    prompt: PROMPT,
    history: loadHistory(file),
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
    completer: (line: string, callback: (err: Error | null, result: [string[], string]) => void) => {
      names.fresh().then(
        (n) => callback(null, complete(line, shapes, n)),
        () => callback(null, complete(line, shapes, names.current)),
      );
    },
  });
  rl.on('history', (entries: string[]) => saveHistory(file, entries));

  let last: number = EXIT.ok;
  let running: AbortController | undefined;
  let queue = Promise.resolve();
  const closed = new Promise<void>((resolve) => rl.once('close', resolve));

  rl.on('line', (line) => {
    queue = queue.then(async () => {
      running = new AbortController();
      const result = await runLine(line, ctx, running.signal).finally(() => (running = undefined));
      if (result === 'exit') return rl.close();
      if (result !== undefined) last = result;
      rl.prompt();
    });
  });
  rl.on('SIGINT', () => {
    if (running) return running.abort();
    if (rl.line) {
      // Like a shell: Ctrl-C drops the line being typed.
      rl.write(null, { ctrl: true, name: 'e' });
      rl.write(null, { ctrl: true, name: 'u' });
      return;
    }
    tty.write(`\n${c.dim('(exit or Ctrl-D leaves)')}\n`);
    rl.prompt();
  });
  rl.prompt();
  await closed;
  running?.abort();
  connection.close();
  status.dispose();
  tty.write('\n');
  return last;
}

/** `● http://127.0.0.1:9000 | backends 2/3 healthy`, red and `unreachable` when the server does not answer. */
export function statusText(s: ConnectionState, c: Colors): string {
  if (!s.reachable) return s.error ? `${c.red('●')} ${s.url} | ${c.red('unreachable')}` : `${c.dim('○')} ${s.url} | connecting…`;
  const h = s.health;
  if (!h) return `${c.green('●')} ${s.url}`;
  const dot = h.status === 'healthy' ? c.green('●') : h.status === 'degraded' ? c.yellow('●') : c.red('●');
  return `${dot} ${s.url} | backends ${h.backends.healthy}/${h.backends.total} healthy`;
}
