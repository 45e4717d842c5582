/**
 * A client-side MCP transport to a stdio server running in a container:
 * newline-delimited JSON-RPC over the container's attached stdin/stdout,
 * stderr line by line to a callback. It creates the container (from
 * hardened create options, see ./hardening.ts), attaches before starting it
 * so no output is missed, and reports the exit like the process transport
 * (`onexit`, then `onclose`). close() ends stdin, stops the container after a
 * grace period and makes sure it is removed.
 */
import { Writable } from 'node:stream';
import type { Socket } from 'node:net';
import type Docker from 'dockerode';
import type { ContainerCreateOptions } from 'dockerode';
import { serializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { JsonRpcLineReader } from '../transports/line-reader.js';
import { TextLineSplitter } from '../transports/text-line-splitter.js';
import type { BackendTransport, ProcessExit } from '../transports/backend-transport.js';
import type { ContainerRuntime, RuntimeName } from './container-runtime.js';
import { ContainerError, daemonMessage } from './errors.js';

/** What the backend record shows: `container: { id, image, runtime }`. */
export interface ContainerInfo {
  id: string;
  image: string;
  runtime: RuntimeName;
}

/** After stdin ends, how long the server may take to exit by itself before it is stopped. */
const STDIN_GRACE_MS = 1000;
/** Seconds between the stop signal and SIGKILL. */
const STOP_TIMEOUT_S = 2;
/** How long to wait for the exit status once the output stream has ended. */
const EXIT_STATUS_GRACE_MS = 3000;

export class ContainerStdioTransport implements BackendTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  onstderr?: (line: string) => void;
  /** Once, when the container has stopped, before onclose. `signal` is always null: a container reports an exit code. */
  onexit?: (exit: ProcessExit) => void;

  private handle?: Docker.Container;
  private socket?: Socket;
  private readonly reader = new JsonRpcLineReader();
  private readonly exited: Promise<void>;
  private markExited!: (code: number | null) => void;
  private closing = false;
  private started = false;
  /** A start that failed reports through its rejection, not onexit/onclose. */
  private startFailed = false;

  constructor(
    private readonly runtime: ContainerRuntime,
    private readonly backend: string,
    private readonly create: ContainerCreateOptions,
    /** Runs before the container is created (e.g. making sure its network exists). */
    private readonly prepare?: () => Promise<void>,
  ) {
    this.exited = new Promise((resolve) => {
      let done = false;
      this.markExited = (code) => {
        if (done) return;
        done = true;
        if (!this.startFailed) this.onexit?.({ code, signal: null });
        resolve();
        if (!this.startFailed) this.onclose?.();
      };
    });
  }

  /** The running container, once start() has created it. */
  get container(): ContainerInfo | undefined {
    return this.handle ? { id: this.handle.id, image: this.create.Image!, runtime: this.runtime.name } : undefined;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('ContainerStdioTransport already started');
    this.started = true;
    const docker = this.runtime.docker;
    let container: Docker.Container;
    try {
      await this.prepare?.();
      container = await docker.createContainer(this.create);
    } catch (err) {
      throw new ContainerError(this.backend, 'ContainerCreateFailed', `creating the container failed: ${daemonMessage(err)}`, err);
    }
    this.handle = container;
    try {
      const socket = await attach(docker, container.id);
      this.socket = socket;
      this.wire(socket);
      // Asked before start, so even an instant exit is seen with its status.
      container.wait({ condition: 'next-exit' }).then(
        (r: { StatusCode?: number }) => this.markExited(r.StatusCode ?? null),
        () => undefined, // the output stream's end reports the exit then
      );
      await container.start();
    } catch (err) {
      this.startFailed = true;
      this.socket?.destroy();
      await container.remove({ force: true }).catch(() => undefined);
      throw new ContainerError(this.backend, 'ContainerStartFailed', `starting the container failed: ${daemonMessage(err)}`, err);
    }
  }

  private wire(socket: Socket): void {
    const stdout = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        this.reader.push(chunk, this.deliver, this.fail);
        done();
      },
    });
    const stderrLines = new TextLineSplitter((line) => this.onstderr?.(line));
    const stderr = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        stderrLines.push(chunk);
        done();
      },
    });
    this.runtime.docker.modem.demuxStream(socket, stdout, stderr);
    socket.on('error', (err) => {
      if (!this.closing) this.onerror?.(err);
    });
    socket.once('close', () => {
      stderrLines.end();
      // The exit status normally arrives through wait(); if it does not, report an unknown one.
      setTimeout(() => this.markExited(null), EXIT_STATUS_GRACE_MS).unref();
    });
  }

  private readonly deliver = (message: JSONRPCMessage): void => this.onmessage?.(message);
  private readonly fail = (err: Error): void => this.onerror?.(err);

  send(message: JSONRPCMessage): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.destroyed || socket.writableEnded) return Promise.reject(new Error('Container is not running'));
    return new Promise((resolve, reject) => {
      const ok = socket.write(serializeMessage(message), (err) => (err ? reject(err) : undefined));
      if (ok) resolve();
      else socket.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const container = this.handle;
    // Never started, or its start failed (and cleaned up after itself): nothing runs.
    if (!container || this.startFailed) return;
    if (this.closing) return this.exited;
    this.closing = true;
    this.socket?.end(); // stdin EOF: a well-behaved stdio server exits now
    if (!(await settlesWithin(this.exited, STDIN_GRACE_MS))) {
      await container.stop({ t: STOP_TIMEOUT_S }).catch(() => undefined);
      await settlesWithin(this.exited, (STOP_TIMEOUT_S + 3) * 1000);
    }
    // AutoRemove normally did this; make sure (404 and "removal in progress" are fine).
    await container.remove({ force: true }).catch(() => undefined);
    this.socket?.destroy();
    this.reader.clear();
    this.markExited(null);
  }
}

/**
 * Attach to stdin, stdout and stderr through a hijacked connection. Not
 * dockerode's container.attach(): it sends its options as a JSON request
 * body, which Podman passes on to the container's stdin (dockerode #742),
 * and a stdio server would read it as a broken first message.
 */
function attach(docker: Docker, id: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    docker.modem.dial(
      {
        path: `/containers/${encodeURIComponent(id)}/attach?`,
        method: 'POST',
        options: { stream: true, stdin: true, stdout: true, stderr: true },
        file: Buffer.alloc(0),
        hijack: true,
        isStream: true,
        statusCodes: { 101: true, 200: true, 404: 'no such container', 500: 'server error' },
      },
      (err, stream) => (err ? reject(err as Error) : resolve(stream as Socket)),
    );
  });
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
