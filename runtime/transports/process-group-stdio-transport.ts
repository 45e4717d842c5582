/**
 * A client-side MCP transport over a child process's stdin/stdout, like the
 * SDK's StdioClientTransport, with two differences a gateway needs:
 *
 * - the child leads its own process group, and close() signals the whole
 *   group: `npx pkg` runs the server as a grandchild that would otherwise
 *   outlive the gateway;
 * - stderr is delivered line by line to a callback (for the debug log) rather
 *   than inherited, and the exit is reported with code and signal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { serializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { JsonRpcLineReader } from './line-reader.js';
import { TextLineSplitter } from './text-line-splitter.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { BackendTransport, ProcessExit } from './backend-transport.js';

export interface ProcessLaunch {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/** After the exit, how long the rest of stderr may take to arrive before the exit is told anyway. */
const STDERR_DRAIN_MS = 200;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Time between SIGTERM and SIGKILL of the process group on close. */
const KILL_GRACE_MS = 2000;

export class ProcessGroupStdioTransport implements BackendTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called for each line the process writes to stderr. */
  onstderr?: (line: string) => void;
  /** Called once when the process has exited, before onclose. */
  onexit?: (exit: ProcessExit) => void;

  private child?: ChildProcess;
  private readonly reader = new JsonRpcLineReader();
  private exited?: Promise<void>;
  private closing = false;
  /** stdin is corked until the end of this event-loop turn (see send). */
  private corked = false;

  constructor(private readonly launch: ProcessLaunch) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('ProcessGroupStdioTransport already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.launch.command, this.launch.args ?? [], {
        env: { ...getDefaultEnvironment(), ...this.launch.env },
        cwd: this.launch.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true, // own process group, so close() can signal every descendant
        shell: false,
      });
      this.child = child;
      let spawned = false;

      const stderrEnded = this.pipeStderr(child);
      this.exited = new Promise((done) => {
        child.once('exit', (code, signal) => {
          // Orphaned grandchildren (an npx launch) must not outlive their leader.
          signalGroup(child, 'SIGKILL');
          // The last stderr lines (why it exited) may still be in the pipe: they come before the exit is told.
          void Promise.race([stderrEnded, delay(STDERR_DRAIN_MS)]).then(() => {
            this.onexit?.({ code, signal });
            done();
            this.onclose?.();
          });
        });
      });
      child.once('error', (err) => {
        if (!spawned) reject(err);
        else this.onerror?.(err);
      });
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });

      child.stdout.on('data', (chunk: Buffer) => {
        this.reader.push(chunk, this.deliver, this.fail);
      });
      child.stdout.on('error', (err) => this.onerror?.(err));
      child.stdin.on('error', (err) => {
        // EPIPE after the child died is reported through exit, not as a separate error.
        if (!this.closing) this.onerror?.(err);
      });
    });
  }

  private readonly deliver = (message: JSONRPCMessage): void => this.onmessage?.(message);
  private readonly fail = (err: Error): void => this.onerror?.(err);

  /** Hands stderr over line by line; resolves when it has ended. */
  private pipeStderr(child: ChildProcess): Promise<void> {
    const lines = new TextLineSplitter((line) => this.onstderr?.(line));
    child.stderr!.on('data', (chunk: Buffer) => lines.push(chunk));
    return new Promise((resolve) => {
      child.stderr!.once('end', () => {
        lines.end();
        resolve();
      });
      child.stderr!.once('error', () => resolve());
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('Process is not running'));
    // Messages sent in the same event-loop turn (many clients calling at once)
    // leave in one write system call rather than one each.
    if (!this.corked) {
      this.corked = true;
      stdin.cork();
      setImmediate(() => {
        this.corked = false;
        stdin.uncork();
      });
    }
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closing) return this.exited;
    this.closing = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      signalGroup(child, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), KILL_GRACE_MS);
      timer.unref();
      await this.exited;
      clearTimeout(timer);
      // The leader is gone; make sure no grandchild lingers in the group.
      signalGroup(child, 'SIGKILL');
    }
    this.reader.clear();
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}
