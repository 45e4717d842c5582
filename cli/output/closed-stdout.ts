/**
 * A reader that stops early (`gateway-client … | head`) closes the pipe, and
 * every later write to stdout fails with EPIPE, which Node reports as an
 * `error` event: unhandled, a crash with a stack trace. Nobody reads the
 * output any more, so the program ends quietly, like a program ended by
 * SIGPIPE but with exit code 0 (a pipeline under `set -o pipefail` still
 * succeeds). Installed once by each program's entry point.
 */
import { EXIT } from './exit-codes.js';

export function endQuietlyWhenStdoutCloses(stdout: NodeJS.WriteStream = process.stdout): void {
  stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT.ok);
    throw err;
  });
}
